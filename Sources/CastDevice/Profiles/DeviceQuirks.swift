/// What real devices do that an ideal one does not, and that broke senders
/// (docs/profiles.md, "Quirks"): each switch is off in castsim's own device, a profile
/// turns on its family's, and a scenario's `device.quirks` turns any on or off.
///
/// Plain data, Codable as part of a recording's configuration. Scenario files and profile
/// files are read by their parser (`device.quirks`), which starts from the profile's.
public struct DeviceQuirks: Sendable, Equatable, Codable {
    public var eureka = Eureka()
    public var mdns = MDNS()
    public var volume = Volume()
    public var apps = Apps()
    /// Whether the device can be a member of a speaker group: video dongles and TVs could
    /// not (the Google Home app offered only speakers, displays and Chromecast Audio).
    public var groupMember = true

    public init(eureka: Eureka = Eureka(), mdns: MDNS = MDNS(), volume: Volume = Volume(), apps: Apps = Apps(), groupMember: Bool = true) {
        self.eureka = eureka
        self.mdns = mdns
        self.volume = volume
        self.apps = apps
        self.groupMember = groupMember
    }

    /// `/setup/eureka_info` on 8443 and 8008 (docs/protocol/castv2.md §5.4, §5.5, §5.7).
    public struct Eureka: Sendable, Equatable, Codable {
        /// What port 8443 does.
        public enum HTTPS: String, Sendable, Codable, CaseIterable {
            /// Answers `params` with the sections asked for (`device_info`, `name`, ...).
            case deviceInfo = "device-info"
            /// Closes the connection during the TLS handshake: the client reads EOF
            /// (BRAVIA 4K 2015, Harman Kardon Citation One).
            case tlsEOF = "tls-eof"
            /// Accepts and never answers, not even the handshake (LG WK7, Philips TAW6205).
            case stall
            /// Nothing listens (a Fuchsia preview build, AirReceiver).
            case closed
        }

        /// What port 8008 does.
        public enum HTTP: String, Sendable, Codable, CaseIterable {
            /// Honours `params` as 8443 does: castsim's own device, so that a sender
            /// without TLS still learns everything.
            case params
            /// Ignores `params` and answers the flat legacy body, `"version": 12`, with no
            /// `device_info` (every current firmware).
            case flat
            /// Nothing listens (AirReceiver).
            case closed
        }

        public var https: HTTPS = .deviceInfo
        public var http: HTTP = .params
        /// 403 when the `Host` header names a host instead of an IP address (SHIELD, Home
        /// Mini); pychromecast then retries with an empty `Host`.
        public var hostCheck = false
        /// After this many eureka_info requests the device locks up: HTTP stops answering
        /// and the Cast channel goes unresponsive until it restarts (JBL Link). nil: never.
        public var crashAfterPolls: Int?
        /// `mac_address`: Android TVs say `00:00:00:00:00:00`. nil: one derived from the UUID.
        public var macAddress: String?
        /// `product_name`, the maker's code name. nil: the model name.
        public var productName: String?
        /// How `multizone.groups` writes a multichannel group (a stereo pair).
        public enum MultizoneKeys: String, Sendable, Codable, CaseIterable {
            /// `elected_leader` and `cast_port`, as every group's entry.
            case legacy
            /// Newer firmware: `leader` instead of `elected_leader`, and no `cast_port`;
            /// pychromecast's host discovery loses the pair, Music Assistant reads both.
            case current
        }

        public var multizoneKeys: MultizoneKeys = .legacy
        /// 8008 also serves DIAL's `/ssdp/device-desc.xml`, as firmware before Chromecast
        /// Audio 1.28 did; current firmware answers 404, which broke DIAL-era name lookups.
        public var deviceDesc = false

        public init(https: HTTPS = .deviceInfo, http: HTTP = .params, hostCheck: Bool = false, crashAfterPolls: Int? = nil,
                    macAddress: String? = nil, productName: String? = nil, deviceDesc: Bool = false, multizoneKeys: MultizoneKeys = .legacy) {
            self.https = https
            self.http = http
            self.hostCheck = hostCheck
            self.crashAfterPolls = crashAfterPolls
            self.macAddress = macAddress
            self.productName = productName
            self.deviceDesc = deviceDesc
            self.multizoneKeys = multizoneKeys
        }
    }

    /// The `_googlecast._tcp` advertisement (docs/protocol/castv2.md §5.1–§5.2).
    public struct MDNS: Sendable, Equatable, Codable {
        /// The SRV target's label instead of the dashed UUID (a Nest Hub after the Fuchsia
        /// update: `fuchsia-xxxx-xxxx-xxxx`).
        public var host: String?
        /// `id` other than the 32-hex UUID (emulators: a 12-hex MAC); pychromecast ignores
        /// such a device.
        public var id: String?
        /// `st` fixed to this value (a stereo pair's child says 2). nil: 0 idle, 1 busy.
        public var status: Int?
        /// Keys real devices add beyond the usual ones (`ct` on Android TVs, `rr`),
        /// appended in this order.
        public var txt: [TXTEntry] = []
        /// Seconds after its start at which the device stops answering for `_googlecast._tcp`
        /// (goodbye, as a withdraw step), while it keeps running and its connections stay up:
        /// a Chromecast with Google TV after hours. nil: never.
        public var dropCastAfter: Double?
        /// Android TV's remote-control service beside Cast: `_androidtvremote2._tcp` on port
        /// 6466, TXT `bt` with the MAC (Home Assistant's Android TV Remote finds TVs by it).
        /// It stays when `dropCastAfter` takes the Cast service away.
        public var androidTVRemote = false

        public init(host: String? = nil, id: String? = nil, status: Int? = nil, txt: [TXTEntry] = [], dropCastAfter: Double? = nil,
                    androidTVRemote: Bool = false) {
            self.host = host
            self.id = id
            self.status = status
            self.txt = txt
            self.dropCastAfter = dropCastAfter
            self.androidTVRemote = androidTVRemote
        }
    }

    /// One extra TXT key and its value.
    public struct TXTEntry: Sendable, Equatable, Codable {
        public var key: String
        public var value: String

        public init(_ key: String, _ value: String) {
            self.key = key
            self.value = value
        }
    }

    /// SET_VOLUME as the device carries it out (docs/protocol/platform.md §2).
    public struct Volume: Sendable, Equatable, Codable {
        /// The status offers volume, and a level set has no effect (a Chromecast with
        /// Google TV whose volume control is off); muting still works.
        public var ignoreSet = false
        /// An absolute level moves one step from the old level towards it, as a TV
        /// driving a soundbar over HDMI does (BRAVIA).
        public var relativeOnly = false

        public init(ignoreSet: Bool = false, relativeOnly: Bool = false) {
            self.ignoreSet = ignoreSet
            self.relativeOnly = relativeOnly
        }
    }

    /// Which apps the device will start (docs/protocol/platform.md §3, §4).
    public struct Apps: Sendable, Equatable, Codable {
        /// App ids GET_APP_AVAILABILITY says are unavailable and LAUNCH answers NOT_FOUND
        /// for, although the device has them (YouTube on a speaker).
        public var unavailable: [String] = []
        /// App ids whose LAUNCH is refused with this LAUNCH_ERROR reason (`NOT_ALLOWED`:
        /// the Default Media Receiver on some users' Nest Audio).
        public var refuse: [String: String] = [:]
        /// Seconds after which an app that plays nothing and hears nothing from its senders is
        /// closed, and the device goes back to its idle state (a Nest Hub closes a dashboard
        /// after 10 minutes, 30 seconds since the Fuchsia update). nil: never.
        public var idleTimeout: Double?

        public init(unavailable: [String] = [], refuse: [String: String] = [:], idleTimeout: Double? = nil) {
            self.unavailable = unavailable
            self.refuse = refuse
            self.idleTimeout = idleTimeout
        }
    }
}
