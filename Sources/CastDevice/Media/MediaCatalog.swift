import CastWire

/// How loading a piece of media goes on the simulated player: how long it takes, whether
/// it plays, fails or never answers, and what the media really is.
public struct MediaLoadBehaviour: Sendable, Equatable, Codable {
    public enum Outcome: Sendable, Equatable, Codable {
        case play
        /// LOAD_FAILED with this `detailedErrorCode` (docs/protocol/media.md §5.3), then IDLE/ERROR.
        case fail(detailedErrorCode: Int, reason: String?)
        /// The load never completes (the sender's own timeout is under test).
        case neverAnswer
    }

    /// The player stalls (BUFFERING) when the playhead reaches `position`, for `duration`.
    public struct BufferingPhase: Sendable, Equatable, Codable {
        public var position: Double
        public var duration: Double
        public init(position: Double, duration: Double) {
            self.position = position
            self.duration = duration
        }
    }

    public var outcome: Outcome
    /// Seconds between the request and the outcome.
    public var loadDelay: Double
    /// The real length of the media: it wins over what the sender claims, as a real
    /// player reports what it finds in the stream.
    public var duration: Double?
    /// Facts of the simulated media that fill in what the sender left out.
    public var streamType: MediaInformation.StreamType?
    public var contentType: String?
    /// In-band tracks, as a LOAD's `media.tracks` (checked when the catalog is made).
    public var tracks: JSONValue?
    public var metadata: JSONValue?
    /// The picture's size and HDR format, checked against the device's ``MediaSupport``.
    public var video: MediaSupport.Facts?
    public var bufferingPhases: [BufferingPhase]
    /// The USER_ACTIONs the receiver takes for this media (LIKE, FOLLOW, ...): each with a
    /// bit of its own is in `supportedMediaCommands` while it plays; others are refused.
    public var userActions: [String] = []
    /// Ad breaks the receiver puts in this media (`media.breaks` and `media.breakClips` as
    /// a LOAD carries them), when the sender sends none.
    public var breaks: JSONValue?
    public var breakClips: JSONValue?

    public init(outcome: Outcome = .play, loadDelay: Double = 0, duration: Double? = nil,
                streamType: MediaInformation.StreamType? = nil, contentType: String? = nil, tracks: JSONValue? = nil,
                metadata: JSONValue? = nil, bufferingPhases: [BufferingPhase] = []) {
        self.outcome = outcome
        self.loadDelay = loadDelay
        self.duration = duration
        self.streamType = streamType
        self.contentType = contentType
        self.tracks = tracks
        self.metadata = metadata
        self.bufferingPhases = bufferingPhases
    }
}

/// The media the simulated device knows, keyed by content id: plain values, so a
/// configuration can be written down (a recording's header), read back and compared.
public struct MediaCatalog: Sendable, Equatable, Codable {
    /// An exact content id, or a pattern with `*` and `?`, and how its loads go.
    public struct Entry: Sendable, Equatable, Codable {
        public var key: String
        public var behaviour: MediaLoadBehaviour

        public init(key: String, behaviour: MediaLoadBehaviour) {
            self.key = key
            self.behaviour = behaviour
        }

        public var isPattern: Bool { key.contains("*") || key.contains("?") }
    }

    /// In order: exact keys win over patterns, and among patterns the first match wins.
    public private(set) var entries: [Entry]
    private var exact: [String: MediaLoadBehaviour]

    public init(_ entries: [Entry] = []) {
        self.entries = entries
        exact = [:]
        for entry in entries where !entry.isPattern && exact[entry.key] == nil { exact[entry.key] = entry.behaviour }
    }

    /// Adds an entry after the others (an exact key replaces an earlier one).
    public mutating func add(_ key: String, _ behaviour: MediaLoadBehaviour) {
        entries.removeAll { $0.key == key }
        entries.append(Entry(key: key, behaviour: behaviour))
        if !Entry(key: key, behaviour: behaviour).isPattern { exact[key] = behaviour }
    }

    /// How a load of `contentId` goes: its exact entry, else the first matching pattern,
    /// else a plain successful load.
    public func behaviour(for contentId: String) -> MediaLoadBehaviour {
        if let behaviour = exact[contentId] { return behaviour }
        return entries.first { $0.isPattern && Glob.matches($0.key, contentId) }?.behaviour ?? MediaLoadBehaviour()
    }

    public static func == (lhs: MediaCatalog, rhs: MediaCatalog) -> Bool { lhs.entries == rhs.entries }

    public init(from decoder: any Decoder) throws {
        self.init(try [Entry](from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try entries.encode(to: encoder)
    }
}

/// `*` and `?` wildcards for content ids.
enum Glob {
    static func matches(_ pattern: String, _ text: String) -> Bool {
        let p = Array(pattern), t = Array(text)
        var pi = 0, ti = 0, starP = -1, starT = 0
        while ti < t.count {
            if pi < p.count, p[pi] == "?" || p[pi] == t[ti] {
                pi += 1
                ti += 1
            } else if pi < p.count, p[pi] == "*" {
                starP = pi
                starT = ti
                pi += 1
            } else if starP >= 0 {
                pi = starP + 1
                starT += 1
                ti = starT
            } else {
                return false
            }
        }
        while pi < p.count, p[pi] == "*" { pi += 1 }
        return pi == p.count
    }
}
