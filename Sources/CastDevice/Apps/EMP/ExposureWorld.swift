/// The Exposure backend the EMP receiver would ask, as a scenario declares it (`exposure`):
/// business units and their session tokens, VOD assets, live channels with their EPG, and
/// what each viewer is entitled to. Plain values, so a configuration can be written down.
///
/// Without an `exposure` section the world is open (``isOpen``): any token and customer
/// is accepted and any asset id plays as a VOD asset, so a demo needs no setup.
public struct ExposureWorld: Sendable, Equatable, Codable {
    /// Wall-clock time at scenario time 0, in ms since 1970: EPG times and `startTimeLive`
    /// are this plus scenario time, so a replay sends the same ISO dates.
    public var epochMilliseconds: Int64
    /// No section in the scenario: nothing is refused.
    public var isOpen: Bool
    public var businessUnits: [BusinessUnit]
    public var assets: [String: Asset]
    public var channels: [String: Channel]
    /// Also send what the real receiver sends and the iOS sender rejects (`assetchanged`,
    /// `liveDelay`, fractional `segmentmissing`), to test a sender's error path.
    public var realReceiverExtras: Bool
    /// Seconds behind the live edge the player sits (`liveDelay`).
    public var liveDelay: Double

    /// 2026-01-01T12:00:00Z.
    public static let defaultEpochMilliseconds: Int64 = 1_767_268_800_000

    public init(epochMilliseconds: Int64 = Self.defaultEpochMilliseconds, isOpen: Bool = true,
                businessUnits: [BusinessUnit] = [], assets: [String: Asset] = [:], channels: [String: Channel] = [:],
                realReceiverExtras: Bool = false, liveDelay: Double = 30) {
        self.epochMilliseconds = epochMilliseconds
        self.isOpen = isOpen
        self.businessUnits = businessUnits
        self.assets = assets
        self.channels = channels
        self.realReceiverExtras = realReceiverExtras
        self.liveDelay = liveDelay
    }

    /// A customer's business unit and the session tokens Exposure knows for it.
    public struct BusinessUnit: Sendable, Equatable, Codable {
        public var customer: String
        public var businessUnit: String
        public var sessionTokens: [String: TokenState]

        public init(customer: String, businessUnit: String, sessionTokens: [String: TokenState]) {
            self.customer = customer
            self.businessUnit = businessUnit
            self.sessionTokens = sessionTokens
        }
    }

    public enum TokenState: String, Sendable, Equatable, Codable, CaseIterable {
        case valid, expired
    }

    /// A VOD asset.
    public struct Asset: Sendable, Equatable, Codable {
        public var title: String?
        /// Seconds; nil: the device's `defaultMediaDuration`.
        public var duration: Double?
        public var textLanguages: [String]
        public var audioLanguages: [String]
        /// Stretches of the media whose segments are missing: a seek into one is cancelled.
        public var gaps: [Gap]
        /// Where the viewer stopped last time (`playFrom: bookmark`, `useLastViewedOffset`).
        public var bookmark: Double?
        public var entitlement: Entitlement

        public init(title: String? = nil, duration: Double? = nil, textLanguages: [String] = [], audioLanguages: [String] = [],
                    gaps: [Gap] = [], bookmark: Double? = nil, entitlement: Entitlement = .granted(Grant())) {
            self.title = title
            self.duration = duration
            self.textLanguages = textLanguages
            self.audioLanguages = audioLanguages
            self.gaps = gaps
            self.bookmark = bookmark
            self.entitlement = entitlement
        }
    }

    /// Missing segments from `from` to `to` seconds of the media.
    public struct Gap: Sendable, Equatable, Codable {
        public var from: Double
        public var to: Double

        public init(from: Double, to: Double) {
            self.from = from
            self.to = to
        }

        func contains(_ position: Double) -> Bool { position >= from && position < to }
    }

    /// A live channel and its EPG.
    public struct Channel: Sendable, Equatable, Codable {
        public var title: String?
        /// In start order; times are scenario seconds.
        public var programs: [Program]
        public var textLanguages: [String]
        public var audioLanguages: [String]
        public var entitlement: Entitlement

        public init(title: String? = nil, programs: [Program] = [], textLanguages: [String] = [], audioLanguages: [String] = [],
                    entitlement: Entitlement = .granted(Grant())) {
            self.title = title
            self.programs = programs
            self.textLanguages = textLanguages
            self.audioLanguages = audioLanguages
            self.entitlement = entitlement
        }
    }

    /// One EPG entry: on air from `start` to `end` (scenario seconds).
    public struct Program: Sendable, Equatable, Codable {
        public var programId: String
        public var assetId: String
        public var title: String?
        public var start: Double
        public var end: Double

        public init(programId: String, assetId: String, title: String? = nil, start: Double, end: Double) {
            self.programId = programId
            self.assetId = assetId
            self.title = title
            self.start = start
            self.end = end
        }
    }

    /// What Exposure answers a play request with.
    public enum Entitlement: Sendable, Equatable, Codable {
        case granted(Grant)
        case refused(Refusal)
    }

    /// The contract restrictions of a granted play (docs/protocol/emp.md §4.6); `live` nil:
    /// true for a channel.
    public struct Grant: Sendable, Equatable, Codable {
        public var live: Bool?
        public var ffEnabled: Bool
        public var rwEnabled: Bool
        public var timeshiftEnabled: Bool
        public var airplayBlocked: Bool
        public var minBitrate: Int?
        public var maxBitrate: Int?
        public var maxResHeight: Int?

        public init(live: Bool? = nil, ffEnabled: Bool = true, rwEnabled: Bool = true, timeshiftEnabled: Bool = true,
                    airplayBlocked: Bool = false, minBitrate: Int? = nil, maxBitrate: Int? = nil, maxResHeight: Int? = nil) {
            self.live = live
            self.ffEnabled = ffEnabled
            self.rwEnabled = rwEnabled
            self.timeshiftEnabled = timeshiftEnabled
            self.airplayBlocked = airplayBlocked
            self.minBitrate = minBitrate
            self.maxBitrate = maxBitrate
            self.maxResHeight = maxResHeight
        }
    }

    /// A refused play: the Exposure error message (`NOT_ENTITLED`, `GEO_BLOCKED`,
    /// `CONCURRENT_STREAMS_LIMIT_REACHED` ...) and the EMP player error code
    /// (docs/protocol/emp.md §4.8).
    public struct Refusal: Sendable, Equatable, Codable {
        public var message: String
        public var code: Int

        public init(message: String, code: Int = EMPErrorCode.entitlement) {
            self.message = message
            self.code = code
        }
    }
}

/// EMP player error codes (`EmpPlayerErrorCodes`, docs/protocol/emp.md §4.8).
public enum EMPErrorCode {
    public static let unknown = 100
    public static let loadAsset = 101
    public static let entitlement = 102
    /// The Chromecast's own player failed.
    public static let chromecastTech = 500
}
