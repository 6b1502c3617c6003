import CastDevice
import CastScenario
import CastSimulatorTesting
import CastWire
import Foundation
import Testing

/// A profile makes the device what a sender sees of that family: its identity (model,
/// maker, `ca`), what RECEIVER_STATUS says when idle and about the volume.
@Suite("Device profiles: real families as senders see them")
struct ProfileTests {
    private func idleStatus(_ profile: DeviceProfile) throws -> [String: JSONValue] {
        var harness = CastTestDevice { profile.apply(to: &$0) }
        let connection = harness.open(1)
        harness.connect(connection)
        let reply = harness.send(connection, to: "receiver-0", CastNamespace.receiver, ["type": "GET_STATUS", "requestId": 7])
        return try #require(reply.first?.json["status"]?.objectValue)
    }

    @Test("Each profile's identity, idle RECEIVER_STATUS and volume control", arguments: DeviceProfile.catalog)
    func eachProfile(profile: DeviceProfile) throws {
        var configuration = DeviceConfiguration(identity: try DeviceIdentity(uuid: "0123456789abcdef0123456789abcdef"))
        profile.apply(to: &configuration)
        #expect(configuration.identity.modelName == profile.modelName)
        #expect(configuration.identity.manufacturer == profile.manufacturer)
        #expect(configuration.identity.capabilityBits == profile.capabilities)
        #expect(configuration.identity.supportsVideo == profile.supportsVideo)

        let status = try idleStatus(profile)
        #expect(status["volume"]?["controlType"] == .string(profile.volumeControl.controlType.rawValue))
        #expect(status["volume"]?["stepInterval"] == .number(profile.volumeControl.stepInterval))
        if profile.idleScreen {
            #expect(status["applications"]?[0]?["appId"] == "E8C28D3C")
        } else {
            // Speakers, hubs and tablets in hub mode: the key is absent, not an empty list.
            #expect(status["applications"] == nil)
        }
        // isActiveInput and isStandBy are a video device's (HDMI) alone.
        #expect((status["isActiveInput"] != nil) == profile.supportsVideo)
    }

    @Test("The catalog covers every kind, with distinct names, and at least the families senders classify apart")
    func catalog() {
        let names = DeviceProfile.catalog.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(Set(DeviceProfile.catalog.map(\.kind)) == Set(DeviceProfile.Kind.allCases))
        #expect(DeviceProfile.catalog.count >= 14)
        // pychromecast reads the type from the model name or display_supported: both kinds there.
        #expect(DeviceProfile.catalog.contains { !$0.supportsVideo } && DeviceProfile.catalog.contains { $0.supportsVideo })
    }

    @Test("A fixed volume keeps its level whatever SET_VOLUME asks; muting still works")
    func fixedVolume() throws {
        var harness = CastTestDevice { configuration in
            configuration.volumeControl = VolumeControl(controlType: .fixed, stepInterval: 0)
            configuration.initialVolume = 0.6
        }
        let connection = harness.open(1)
        harness.connect(connection)
        let set = harness.send(connection, to: "receiver-0", CastNamespace.receiver,
                               ["type": "SET_VOLUME", "requestId": 2, "volume": ["level": 0.1]])
        let status = try #require(set.first { $0.type == "RECEIVER_STATUS" && $0.requestId == 2 }?.json["status"])
        #expect(status["volume"]?["level"] == 0.6)
        #expect(status["volume"]?["controlType"] == "fixed")
        let mute = harness.send(connection, to: "receiver-0", CastNamespace.receiver,
                                ["type": "SET_VOLUME", "requestId": 3, "volume": ["muted": true]])
        #expect(mute.first { $0.requestId == 3 }?.json["status"]?["volume"]?["muted"] == true)
    }

    private func setVolume(_ quirks: DeviceQuirks.Volume, control: VolumeControl, from level: Double, to target: Double) throws -> JSONValue? {
        var harness = CastTestDevice { configuration in
            configuration.volumeControl = control
            configuration.initialVolume = level
            configuration.quirks = DeviceQuirks(volume: quirks)
        }
        let connection = harness.open(1)
        harness.connect(connection)
        let set = harness.send(connection, to: "receiver-0", CastNamespace.receiver,
                               ["type": "SET_VOLUME", "requestId": 2, "volume": ["level": .number(target)]])
        return try #require(set.first { $0.type == "RECEIVER_STATUS" && $0.requestId == 2 }?.json["status"]?["volume"])
    }

    @Test("volume.ignoreSet: the status offers volume, a level has no effect; volume.relativeOnly: one step towards it")
    func volumeQuirks() throws {
        let ignored = try setVolume(.init(ignoreSet: true), control: .master, from: 0.4, to: 0.9)
        #expect(ignored?["level"] == 0.4 && ignored?["controlType"] == "master")
        let up = try setVolume(.init(relativeOnly: true), control: .attenuation, from: 0.5, to: 0.9)
        #expect(up?["level"]?.doubleValue.map { abs($0 - 0.55) < 1e-9 } == true, "\(String(describing: up))")
        let down = try setVolume(.init(relativeOnly: true), control: .attenuation, from: 0.5, to: 0.1)
        #expect(down?["level"]?.doubleValue.map { abs($0 - 0.45) < 1e-9 } == true, "\(String(describing: down))")
        // Closer than a step: the level asked for.
        let near = try setVolume(.init(relativeOnly: true), control: .attenuation, from: 0.5, to: 0.52)
        #expect(near?["level"] == 0.52)
        let plain = try setVolume(.init(), control: .attenuation, from: 0.5, to: 0.9)
        #expect(plain?["level"] == 0.9)
    }

    /// The reply to one receiver request with `requestId` 4, from a `profile` device with these app quirks.
    private func platformReply(_ profile: DeviceProfile, quirks: DeviceQuirks.Apps?, _ request: JSONValue) -> JSONValue? {
        var harness = CastTestDevice { configuration in
            profile.apply(to: &configuration)
            if let quirks { configuration.quirks = DeviceQuirks(apps: quirks) }
        }
        let connection = harness.open(1)
        harness.connect(connection)
        return harness.send(connection, to: "receiver-0", CastNamespace.receiver, request).last { $0.requestId == 4 }?.json
    }

    private func availability(_ profile: DeviceProfile, quirks: DeviceQuirks.Apps? = nil, of appIds: [String]) -> JSONValue? {
        platformReply(profile, quirks: quirks, ["type": "GET_APP_AVAILABILITY", "requestId": 4, "appId": .array(appIds.map { .string($0) })])?["availability"]
    }

    @Test("YouTube is there on video families and not on speakers; apps.unavailable hides an app the device has")
    func appAvailability() {
        #expect(availability(.chromecast, of: ["233637DE", "CC1AD845"]) == ["233637DE": "APP_AVAILABLE", "CC1AD845": "APP_AVAILABLE"])
        #expect(availability(.nestMini, of: ["233637DE", "CC1AD845"]) == ["233637DE": "APP_UNAVAILABLE", "CC1AD845": "APP_AVAILABLE"])
        #expect(availability(.chromecast, quirks: .init(unavailable: ["CC1AD845"]), of: ["CC1AD845"]) == ["CC1AD845": "APP_UNAVAILABLE"])
    }

    @Test("LAUNCH: YouTube on a speaker is NOT_FOUND, on a dongle it runs; apps.refuse answers LAUNCH_ERROR with its reason")
    func launchRefusals() throws {
        func launch(_ profile: DeviceProfile, _ appId: String, quirks: DeviceQuirks.Apps? = nil) -> [String: JSONValue]? {
            platformReply(profile, quirks: quirks, ["type": "LAUNCH", "requestId": 4, "appId": .string(appId)])?.objectValue
        }
        let speaker = try #require(launch(.nestMini, "233637DE"))
        #expect(speaker["type"] == "LAUNCH_ERROR" && speaker["reason"] == "NOT_FOUND")
        let dongle = try #require(launch(.chromecast, "233637DE"))
        #expect(dongle["type"] == "RECEIVER_STATUS" && dongle["status"]?["applications"]?[0]?["displayName"] == "YouTube")
        let refused = try #require(launch(.nestAudio, "CC1AD845", quirks: .init(refuse: ["CC1AD845": "NOT_ALLOWED"])))
        #expect(refused["type"] == "LAUNCH_ERROR" && refused["reason"] == "NOT_ALLOWED" && refused["appId"] == "CC1AD845")
    }

    @Test("apps.idleTimeout: an app that plays nothing is closed after its senders fell silent; a playing one stays")
    func idleTimeout() throws {
        var harness = CastTestDevice { $0.quirks = DeviceQuirks(apps: .init(idleTimeout: 30)) }
        let (connection, transportId) = harness.launch("84912283")
        _ = harness.advance(20)
        // A message to the app: it waits 30 s from now.
        _ = harness.send(connection, to: transportId, "urn:x-cast:com.madmod.dashcast", ["url": "https://example.test/", "requestId": 2])
        #expect(harness.advance(29).allSatisfy { $0.type != "RECEIVER_STATUS" })
        #expect(harness.snapshot.runningApp?.appId == "84912283")
        let closed = harness.advance(2)
        let status = try #require(closed.last { $0.type == "RECEIVER_STATUS" })
        #expect(status.isBroadcast && status.json["status"]?["applications"]?[0]?["appId"] == "E8C28D3C")

        var playing = CastTestDevice { $0.quirks = DeviceQuirks(apps: .init(idleTimeout: 30)) }
        let (media, mediaTransport) = playing.launch()
        _ = playing.send(media, to: mediaTransport, CastNamespace.media, [
            "type": "LOAD", "requestId": 3, "media": ["contentId": "film", "streamType": "BUFFERED", "duration": 600]])
        _ = playing.advance(120)
        #expect(playing.snapshot.runningApp?.appId == "CC1AD845" && playing.snapshot.media?.playerState == .playing)
    }

    @Test("The TV on another input: isActiveInput false, not in standby; back on ours: true; every sender told")
    func activeInput() throws {
        var harness = CastTestDevice()
        let connection = harness.open(1)
        harness.connect(connection)
        let away = harness.apply(.setActiveInput(false))
        let status = try #require(away.last { $0.type == "RECEIVER_STATUS" })
        #expect(status.isBroadcast && status.json["status"]?["isActiveInput"] == false && status.json["status"]?["isStandBy"] == false)
        #expect(harness.events.contains { $0.kind == .activeInputChanged(false) })
        let back = harness.apply(.setActiveInput(true))
        #expect(back.last { $0.type == "RECEIVER_STATUS" }?.json["status"]?["isActiveInput"] == true)
        // Standby wins: off is off, whatever the input.
        _ = harness.apply(.setActiveInput(false))
        _ = harness.apply(.setStandby(true))
        _ = harness.apply(.setStandby(false))
        let reply = harness.send(connection, to: "receiver-0", CastNamespace.receiver, ["type": "GET_STATUS", "requestId": 4])
        #expect(reply.first?.json["status"]?["isActiveInput"] == false)
    }

    @Test("mdns.dropCastAfter: the device leaves discovery at that time, once, and keeps running")
    func dropCast() throws {
        var harness = CastTestDevice { configuration in
            configuration.quirks = DeviceQuirks(mdns: .init(dropCastAfter: 3600))
            // An hour without a word: the connection's own liveness is not what is tested.
            configuration.idleTimeout = nil
            configuration.heartbeatInterval = nil
        }
        let connection = harness.open(1)
        harness.connect(connection)
        _ = harness.advance(3599)
        #expect(harness.snapshot.isAdvertised)
        _ = harness.advance(2)
        #expect(!harness.snapshot.isAdvertised)
        #expect(harness.events.filter { $0.kind == .advertisementChanged(.dropCast) }.count == 1)
        // Still answering its senders.
        let reply = harness.send(connection, to: "receiver-0", CastNamespace.receiver, ["type": "GET_STATUS", "requestId": 2])
        #expect(reply.first?.type == "RECEIVER_STATUS")
        // A restore brings it back for good: the quirk fired once.
        _ = harness.apply(.advertise(.restore(host: nil, port: nil)))
        _ = harness.advance(7200)
        #expect(harness.snapshot.isAdvertised)
    }

    @Test("groupMember: a household that puts a video dongle in a speaker group is refused at the group's members")
    func groupMember() throws {
        let error = try #require(throws: ScenarioValidationError.self) {
            try FleetScenario.parse(Data("""
                {"name": "house", "devices": [{"name": "TV", "profile": "chromecast"}, {"name": "Kitchen", "profile": "nest-mini"}],
                 "groups": [{"name": "Downstairs", "members": ["TV", "Kitchen"], "leader": "Kitchen"}]}
                """.utf8))
        }
        #expect(error.issues.map(\.description).contains {
            $0 == #"groups[0].members: "TV" (Chromecast) cannot be in a speaker group (quirks.groupMember: false)"#
        }, "\(error)")
        // Turned on by the file: it may.
        _ = try FleetScenario.parse(Data("""
            {"name": "house", "devices": [{"name": "TV", "profile": "chromecast", "quirks": {"groupMember": true}},
                                          {"name": "Kitchen", "profile": "nest-mini"}],
             "groups": [{"name": "Downstairs", "members": ["TV", "Kitchen"], "leader": "Kitchen"}]}
            """.utf8))
    }

    @Test("device.quirks in a scenario: set over the profile's, 0 turns a lock-up off; bad values refused at their paths")
    func scenarioQuirks() throws {
        let scenario = try Scenario.parse(Data("""
            {"name": "tv", "device": {"profile": "bravia", "quirks": {
              "eureka": {"https": "device-info", "hostCheck": true},
              "mdns": {"host": "fuchsia-{mac}", "status": 2, "txt": {"rr": "AndroidNativeApp"}},
              "volume": {"ignoreSet": true},
              "apps": {"refuse": {"CC1AD845": "NOT_ALLOWED"}, "unavailable": ["233637DE"]}}}}
            """.utf8))
        let quirks = scenario.device.effectiveQuirks
        #expect(quirks.eureka.https == .deviceInfo && quirks.eureka.http == .flat && quirks.eureka.hostCheck)
        #expect(quirks.eureka.macAddress == "00:00:00:00:00:00")
        #expect(quirks.mdns.txt == [.init("ct", "1e3a5c"), .init("rr", "AndroidNativeApp")] && quirks.mdns.status == 2)
        #expect(quirks.volume == .init(ignoreSet: true, relativeOnly: true))
        #expect(quirks.apps == .init(unavailable: ["233637DE"], refuse: ["CC1AD845": "NOT_ALLOWED"]))
        let calm = try Scenario.parse(Data(#"{"name": "x", "device": {"profile": "jbl-link", "quirks": {"eureka": {"crashAfterPolls": 0}}}}"#.utf8))
        #expect(calm.device.effectiveQuirks.eureka.crashAfterPolls == nil)

        let error = try #require(throws: ScenarioValidationError.self) {
            try Scenario.parse(Data("""
                {"name": "x", "device": {"quirks": {"eureka": {"https": "broken", "macAddress": "00:00"},
                  "mdns": {"host": "a.b", "txt": {"st": "2"}}, "apps": {"refuse": {"CC1AD845": "NO"}}, "cec": {}}}}
                """.utf8))
        }
        let lines = error.issues.map(\.description)
        #expect(lines.contains { $0.hasPrefix("device.quirks.eureka.https: expected one of \"device-info\"") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("device.quirks.eureka.macAddress: expected a MAC address") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("device.quirks.mdns.host: expected a host label") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("device.quirks.mdns.txt.st: expected a TXT key of its own") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("device.quirks.apps.refuse.CC1AD845: expected one of \"NOT_ALLOWED\"") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("device.quirks.cec: unknown key") }, "\(lines)")
    }

    /// What each family cannot play (Google's supported-media page), and what it can.
    static let unplayable: [String: (contentType: String, video: MediaSupport.Facts?)] = [
        "chromecast": (#"video/mp4; codecs="hvc1.2.4.L153.B0""#, nil),
        "chromecast-ultra": (#"video/mp4; codecs="av01.0.12M.10""#, nil),
        "chromecast-audio": (#"video/mp4; codecs="avc1.640028, mp4a.40.2""#, nil),
        "chromecast-google-tv": (#"video/mp4; codecs="av01.0.12M.10""#, nil),
        "google-tv-streamer": (#"video/mp4; codecs="avc1.640033""#, .init(width: 7680, height: 4320)),
        "nest-mini": (#"video/webm; codecs="vp9""#, nil),
        "nest-audio": (#"video/mp4; codecs="avc1.640028""#, nil),
        "home-max": (#"video/mp4; codecs="avc1.640028""#, nil),
        "nest-hub": (#"video/mp4; codecs="avc1.640028""#, .init(width: 1920, height: 1080)),
        "nest-hub-max": (#"video/mp4; codecs="hvc1.1.6.L93.B0""#, nil),
        "pixel-tablet-hub": (#"video/mp4; codecs="avc1.640033""#, .init(width: 1920, height: 1080, hdr: "hdr10")),
        "bravia": (#"video/mp4; codecs="dvh1.05.06""#, nil),
        "vizio-smartcast": (#"video/mp4; codecs="av01.0.12M.10""#, nil),
        "jbl-link": (#"audio/mp4; codecs="ec-3""#, nil),
    ]

    private func load(_ profile: DeviceProfile, contentType: String, video: MediaSupport.Facts?) throws -> [SentMessage] {
        var harness = CastTestDevice { configuration in
            profile.apply(to: &configuration)
            var behaviour = MediaLoadBehaviour()
            behaviour.video = video
            configuration.mediaCatalog.add("item", behaviour)
        }
        let (connection, transportId) = harness.launch()
        return harness.send(connection, to: transportId, CastNamespace.media, [
            "type": "LOAD", "requestId": 5, "sessionId": .string(transportId),
            "media": ["contentId": "item", "contentType": .string(contentType), "streamType": "BUFFERED"],
        ])
    }

    @Test("A LOAD of what the family cannot decode fails with 104 as there; what it can plays", arguments: DeviceProfile.catalog)
    func supportedMedia(profile: DeviceProfile) throws {
        guard profile.media != nil else {
            // A software receiver plays what its host decodes: castsim refuses nothing.
            #expect(profile.name == "airreceiver")
            return
        }
        let (contentType, video) = try #require(Self.unplayable[profile.name], "no unplayable media for \(profile.name)")
        let failed = try load(profile, contentType: contentType, video: video)
        #expect(failed.first { $0.type == "LOAD_FAILED" }?.json == ["type": "LOAD_FAILED", "requestId": 5, "itemId": 1, "detailedErrorCode": 104])
        #expect(failed.last { $0.type == "MEDIA_STATUS" }?.mediaStatus?["idleReason"] == "ERROR")
        let audio = try load(profile, contentType: #"audio/mp4; codecs="mp4a.40.2""#, video: nil)
        #expect(audio.last { $0.type == "MEDIA_STATUS" }?.mediaStatus?["playerState"] == "PLAYING")
        if profile.supportsVideo {
            let hd = try load(profile, contentType: #"video/mp4; codecs="avc1.64001F, mp4a.40.2""#, video: .init(width: 1280, height: 720))
            #expect(hd.last { $0.type == "MEDIA_STATUS" }?.mediaStatus?["playerState"] == "PLAYING")
        }
    }

    @Test("A scenario's media says what the picture is; a wrong value is refused at its path")
    func videoFacts() throws {
        let scenario = try Scenario.parse(Data("""
            {"name": "hub", "device": {"profile": "nest-hub"}, "media": {"movie": {"video": {"width": 3840, "height": 2160, "hdr": "hdr10"}}}}
            """.utf8))
        #expect(scenario.device.mediaCatalog.behaviour(for: "movie").video == .init(width: 3840, height: 2160, hdr: "hdr10"))
        #expect(scenario.device.mediaSupport?.maxHeight == 720)
        let error = try #require(throws: ScenarioValidationError.self) {
            try Scenario.parse(Data(#"{"name": "x", "media": {"movie": {"video": {"width": 0, "hdr": "hdr11", "fps": 60}}}}"#.utf8))
        }
        let lines = error.issues.map(\.description)
        #expect(lines.contains { $0.hasPrefix("media.movie.video.fps: unknown key") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("media.movie.video.width: expected") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix(#"media.movie.video.hdr: expected one of "hdr10""#) }, "\(lines)")
    }

    @Test("Every catalog profile written as a profile file reads back the same", arguments: DeviceProfile.catalog)
    func profileFileRoundTrip(profile: DeviceProfile) throws {
        let text = profile.json.jsonText()
        #expect(try DeviceProfile.parse(Data(text.utf8)) == profile)
    }

    @Test("A profile file over a base: what it names changes, the rest is the base's; a wrong field is refused at its path")
    func profileFile() throws {
        let mine = try DeviceProfile.parse(Data("""
            {"name": "hall-tv", "base": "bravia", "model": "BRAVIA XR A80L", "quirks": {"eureka": {"https": "device-info"}},
             "media": {"hdr": ["hdr10", "dolby-vision"]}}
            """.utf8))
        #expect(mine.name == "hall-tv" && mine.modelName == "BRAVIA XR A80L" && mine.manufacturer == "Sony")
        #expect(mine.quirks.eureka.https == .deviceInfo && mine.quirks.eureka.http == .flat && mine.quirks.volume.relativeOnly)
        #expect(mine.media?.hdr == ["hdr10", "dolby-vision"] && mine.media?.videoCodecs == ["h264", "hevc", "vp9"])

        let error = try #require(throws: ScenarioValidationError.self) {
            try DeviceProfile.parse(Data("""
                {"base": "tv", "colour": "red", "volume": {"controlType": "loud"}, "quirks": {"eureka": {"https": "nope"}},
                 "media": {"videoCodecs": ["h265"]}}
                """.utf8), file: "mine.json")
        }
        let lines = error.issues.map(\.description)
        #expect(error.description.hasPrefix("mine.json: "), "\(error)")
        for prefix in ["name: missing", "base: no device profile \"tv\"", "colour: unknown key", "volume.controlType: expected one of",
                       "quirks.eureka.https: expected one of", "media.videoCodecs[0]: expected one of"] {
            #expect(lines.contains { $0.hasPrefix(prefix) }, "\(prefix) in \(lines)")
        }
        // Not JSON: where it stops being JSON.
        #expect(throws: ScenarioValidationError.self) { try DeviceProfile.parse(Data("{\"name\": ".utf8)) }
    }

    @Test("device.profile may be a profile of the scenario's own, checked at its path")
    func inlineProfile() throws {
        let scenario = try Scenario.parse(Data("""
            {"name": "x", "device": {"profile": {"name": "mine", "base": "nest-mini", "manufacturer": "Acme"}}}
            """.utf8))
        #expect(scenario.device.identity.manufacturer == "Acme" && scenario.device.identity.modelName == "Google Nest Mini")
        #expect(!scenario.device.identity.supportsVideo)
        let error = try #require(throws: ScenarioValidationError.self) {
            try Scenario.parse(Data(#"{"name": "x", "device": {"profile": {"name": "mine", "video": "yes"}}}"#.utf8))
        }
        #expect(error.issues.map(\.description).contains { $0.hasPrefix("device.profile.video: expected") }, "\(error)")
    }

    @Test("device.profile in a scenario: the family first, the file's own fields over it")
    func scenarioProfile() throws {
        let scenario = try Scenario.parse(Data("""
            {"name": "speaker", "device": {"profile": "nest-mini", "name": "Kitchen", "manufacturer": "Acme"}}
            """.utf8))
        let device = scenario.device
        #expect(device.identity.modelName == "Google Nest Mini" && device.identity.manufacturer == "Acme")
        #expect(device.identity.friendlyName == "Kitchen" && !device.identity.supportsVideo)
        #expect(device.identity.capabilityBits == 198_660)
        #expect(device.effectiveVolumeControl == .attenuation && device.idleScreenAppId == nil)

        // Capabilities given by the file: the bits follow from them, not from the family.
        let video = try Scenario.parse(Data("""
            {"name": "hub", "device": {"profile": "nest-mini", "capabilities": {"video": true}}}
            """.utf8))
        #expect(video.device.identity.supportsVideo && video.device.identity.capabilityBits == 5)
        #expect(video.device.idleScreenAppId == "E8C28D3C")
    }

    @Test("An unknown profile is refused at its JSON path, with the names there are")
    func unknownProfile() throws {
        let error = try #require(throws: ScenarioValidationError.self) {
            try Scenario.parse(Data(#"{"name": "x", "device": {"profile": "chromecast-9"}}"#.utf8))
        }
        #expect(error.description.contains("device.profile"), "\(error)")
        #expect(error.description.contains("no device profile \"chromecast-9\""), "\(error)")
        #expect(error.description.contains("nest-mini") && error.description.contains("bravia"), "\(error)")
        #expect(throws: UnknownProfile(name: "tv")) { try DeviceProfile.named("tv") }
    }
}

extension DeviceProfile: CustomTestStringConvertible {
    public var testDescription: String { name }
}
