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

    public var outcome: Outcome
    /// Seconds between the request and the outcome.
    public var loadDelay: Double
    /// Duration of BUFFERED media the sender loads without one; nil: the device default.
    public var duration: Double?

    public init(outcome: Outcome = .play, loadDelay: Double = 0, duration: Double? = nil) {
        self.outcome = outcome
        self.loadDelay = loadDelay
        self.duration = duration
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
