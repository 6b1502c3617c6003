import CastWire

/// How loading a piece of media goes on the simulated player: how long it takes and
/// whether it plays, fails or never answers. The scenario engine drives this; tests and
/// embedders can set it per content id.
public struct MediaLoadBehaviour: Sendable, Equatable {
    public enum Outcome: Sendable, Equatable {
        case play
        /// LOAD_FAILED with this `detailedErrorCode` (§6.5), then IDLE/ERROR.
        case fail(detailedErrorCode: Int, reason: String?)
        /// The load never completes (the sender's own timeout is under test).
        case neverAnswer
    }

    /// The player stalls (BUFFERING) when the playhead reaches `position`, for `duration`.
    public struct BufferingPhase: Sendable, Equatable {
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
    public var tracks: JSONValue?
    public var metadata: JSONValue?
    public var bufferingPhases: [BufferingPhase]

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

/// Decides each load's behaviour: exact content ids first, then a resolver (patterns,
/// scenario catalogs), then plain success.
public struct MediaLoadPolicy: Sendable {
    public var byContentId: [String: MediaLoadBehaviour] = [:]
    public var resolver: (@Sendable (MediaInformation) -> MediaLoadBehaviour?)?

    public init(byContentId: [String: MediaLoadBehaviour] = [:],
                resolver: (@Sendable (MediaInformation) -> MediaLoadBehaviour?)? = nil) {
        self.byContentId = byContentId
        self.resolver = resolver
    }

    public func behaviour(for media: MediaInformation) -> MediaLoadBehaviour {
        byContentId[media.contentId] ?? resolver?(media) ?? MediaLoadBehaviour()
    }
}
