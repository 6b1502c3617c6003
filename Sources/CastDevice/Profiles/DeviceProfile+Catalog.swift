/// The families castsim can be, one value each. Every value's source is in docs/profiles.md
/// (captures of real TXT records and eureka_info bodies, sender code, issue reports); where
/// no capture exists the value is the nearest family's, marked there as an analogy.
extension DeviceProfile {
    public static let catalog: [DeviceProfile] = [
        chromecast, chromecastUltra, chromecastAudio, chromecastWithGoogleTV, googleTVStreamer,
        nestMini, nestAudio, homeMax, nestHub, nestHubMax, pixelTabletHub, bravia, vizioSmartCast, jblLink, airReceiver,
    ]

    /// Current firmware answers 8008 with the flat legacy body whatever `params` says.
    static let flat = DeviceQuirks(eureka: .init(http: .flat))
    /// A video dongle or TV: 8008 flat, and no speaker groups.
    static let video = DeviceQuirks(eureka: .init(http: .flat), groupMember: false)
    /// Android and Google TV: zero MAC in eureka_info, a `ct` TXT key, the maker's code name,
    /// and the Android TV remote service beside Cast.
    static func androidTV(productName: String, volume: DeviceQuirks.Volume = .init(), https: DeviceQuirks.Eureka.HTTPS = .deviceInfo,
                          groupMember: Bool = false) -> DeviceQuirks
    {
        DeviceQuirks(eureka: .init(https: https, http: .flat, macAddress: "00:00:00:00:00:00", productName: productName),
                     mdns: .init(txt: [.init("ct", "1e3a5c")], androidTVRemote: true), volume: volume, groupMember: groupMember)
    }
    /// A Nest Hub after the Fuchsia update: its SRV target is `fuchsia-…`, not the UUID.
    static let fuchsia = DeviceQuirks(eureka: .init(http: .flat), mdns: .init(host: "fuchsia-{mac}"))

    /// Speakers: 8008 flat, and no YouTube app (catt falls back to the Default Media Receiver).
    static let speaker = DeviceQuirks(eureka: .init(http: .flat), apps: .init(unavailable: [CastAppDefinition.youTube.appId]))
    /// A speaker on current firmware: a stereo pair's multizone entry says `leader`, no `cast_port`.
    static let currentSpeaker = DeviceQuirks(eureka: .init(http: .flat, multizoneKeys: .current),
                                             apps: .init(unavailable: [CastAppDefinition.youTube.appId]))

    public static let chromecast = DeviceProfile(
        name: "chromecast", kind: .dongle, differs: "3rd gen dongle: master volume, Backdrop when idle, YouTube",
        modelName: "Chromecast", manufacturer: "Google Inc.", supportsVideo: true, capabilities: 200_709,
        volumeControl: .master, idleScreen: true, quirks: video,
        media: MediaSupport(videoCodecs: ["h264", "vp8"], maxWidth: 1920, maxHeight: 1080))

    public static let chromecastUltra = DeviceProfile(
        name: "chromecast-ultra", kind: .dongle, differs: "4K HDR dongle (ca bit 13)",
        modelName: "Chromecast Ultra", manufacturer: "Google Inc.", supportsVideo: true, capabilities: 208_901,
        volumeControl: .master, idleScreen: true, quirks: video,
        media: MediaSupport(videoCodecs: ["h264", "vp8", "hevc", "vp9"], maxWidth: 3840, maxHeight: 2160, hdr: ["hdr10", "dolby-vision"]))

    public static let chromecastAudio = DeviceProfile(
        name: "chromecast-audio", kind: .speaker, differs: "audio only, no applications when idle, no YouTube",
        modelName: "Chromecast Audio", manufacturer: "Google Inc.", supportsVideo: false, capabilities: 198_660,
        volumeControl: .attenuation, idleScreen: false, quirks: speaker,
        media: .audioOnly)

    public static let chromecastWithGoogleTV = DeviceProfile(
        name: "chromecast-google-tv", kind: .dongle, differs: "Google TV: manufacturer \"Google\", Android TV ca bit 18, TXT ct, MAC 00:…",
        modelName: "Chromecast", manufacturer: "Google", supportsVideo: true, capabilities: 465_413,
        volumeControl: .master, idleScreen: true, quirks: androidTV(productName: "sabrina"),
        media: MediaSupport(videoCodecs: ["h264", "hevc", "vp9"], maxWidth: 3840, maxHeight: 2160, hdr: ["hdr10", "dolby-vision"]))

    public static let googleTVStreamer = DeviceProfile(
        name: "google-tv-streamer", kind: .dongle, differs: "model unknown to pychromecast (probed), manufacturer \"Google\"",
        modelName: "Google TV Streamer", manufacturer: "Google", supportsVideo: true, capabilities: 465_413,
        volumeControl: .master, idleScreen: true, quirks: androidTV(productName: "kirkwood", groupMember: true),
        media: MediaSupport(videoCodecs: ["h264", "hevc", "vp9", "av1"], maxWidth: 3840, maxHeight: 2160, hdr: ["hdr10", "dolby-vision"], audioCodecs: MediaSupport.castAudio + ["ac3", "eac3"]))

    public static let nestMini = DeviceProfile(
        name: "nest-mini", kind: .speaker, differs: "speaker: audio only, attenuation, no applications when idle, no YouTube",
        modelName: "Google Nest Mini", manufacturer: "Google Inc.", supportsVideo: false, capabilities: 198_660,
        volumeControl: .attenuation, idleScreen: false, quirks: speaker,
        media: .audioOnly)

    public static let nestAudio = DeviceProfile(
        name: "nest-audio", kind: .speaker, differs: "speaker, stereo pairs in current firmware's multizone keys",
        modelName: "Nest Audio", manufacturer: "Google Inc.", supportsVideo: false, capabilities: 198_660,
        volumeControl: .attenuation, idleScreen: false, quirks: currentSpeaker,
        media: .audioOnly)

    public static let homeMax = DeviceProfile(
        name: "home-max", kind: .speaker, differs: "speaker whose model pychromecast does not know (probed)",
        modelName: "Google Home Max", manufacturer: "Google Inc.", supportsVideo: false, capabilities: 198_660,
        volumeControl: .attenuation, idleScreen: false, quirks: speaker,
        media: .audioOnly)

    public static let nestHub = DeviceProfile(
        name: "nest-hub", kind: .hub, differs: "smart display: video and touch (ca bit 15), no Backdrop, SRV host fuchsia-…",
        modelName: "Google Nest Hub", manufacturer: "Google Inc.", supportsVideo: true, capabilities: 231_941,
        volumeControl: .attenuation, idleScreen: false, quirks: fuchsia,
        media: MediaSupport(videoCodecs: ["h264", "vp9"], maxWidth: 1280, maxHeight: 720))

    public static let nestHubMax = DeviceProfile(
        name: "nest-hub-max", kind: .hub, differs: "smart display, 720p30, SRV host fuchsia-…",
        modelName: "Google Nest Hub Max", manufacturer: "Google Inc.", supportsVideo: true, capabilities: 233_477,
        volumeControl: .attenuation, idleScreen: false, quirks: fuchsia,
        media: MediaSupport(videoCodecs: ["h264", "vp9"], maxWidth: 1280, maxHeight: 720))

    public static let pixelTabletHub = DeviceProfile(
        name: "pixel-tablet-hub", kind: .hub, differs: "tablet in hub mode: no applications when idle, model probed",
        modelName: "Pixel Tablet", manufacturer: "Google", supportsVideo: true, capabilities: 465_413,
        volumeControl: .attenuation, idleScreen: false, quirks: flat,
        media: MediaSupport(videoCodecs: ["h264", "vp8", "vp9"], maxWidth: 1920, maxHeight: 1080))

    public static let bravia = DeviceProfile(
        name: "bravia", kind: .tv, differs: "Sony Android TV: 8443 TLS ends in EOF (manufacturer unknown), volume moves a step",
        modelName: "BRAVIA 4K UR3", manufacturer: "Sony", supportsVideo: true, capabilities: 264_709,
        volumeControl: .master, idleScreen: true, quirks: androidTV(productName: "BRAVIA 4K UR3", volume: .init(relativeOnly: true), https: .tlsEOF),
        media: MediaSupport(videoCodecs: ["h264", "hevc", "vp9"], maxWidth: 3840, maxHeight: 2160, hdr: ["hdr10"]))

    public static let vizioSmartCast = DeviceProfile(
        name: "vizio-smartcast", kind: .tv, differs: "TV of another maker: manufacturer Vizio, no Backdrop",
        modelName: "V705-H3", manufacturer: "Vizio", supportsVideo: true, capabilities: 200_709,
        volumeControl: .master, idleScreen: false, quirks: video,
        media: MediaSupport(videoCodecs: ["h264", "hevc", "vp9"], maxWidth: 3840, maxHeight: 2160, hdr: ["hdr10", "dolby-vision"]))

    public static let jblLink = DeviceProfile(
        name: "jbl-link", kind: .speaker, differs: "third-party speaker: manufacturer JBL, locks up after 20 eureka_info polls",
        modelName: "JBL Link 20", manufacturer: "JBL", supportsVideo: false, capabilities: 198_660,
        volumeControl: .attenuation, idleScreen: false, quirks: DeviceQuirks(eureka: .init(http: .flat, crashAfterPolls: 20),
                                                               apps: .init(unavailable: [CastAppDefinition.youTube.appId])),
        media: .audioOnly)

    public static let airReceiver = DeviceProfile(
        name: "airreceiver", kind: .software, differs: "software receiver: no eureka_info on 8008 or 8443, old ca bits, no Backdrop",
        modelName: "AirReceiver", manufacturer: "AirReceiver", supportsVideo: true, capabilities: 4_101,
        volumeControl: .attenuation, idleScreen: false, quirks: DeviceQuirks(eureka: .init(https: .closed, http: .closed), groupMember: false),
        media: nil)
}
