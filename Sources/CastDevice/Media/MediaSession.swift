import CastWire

/// CAF PlayerState. LOADING exists only inside `extendedStatus`.
public enum PlayerState: String, Sendable, Equatable {
    case idle = "IDLE", playing = "PLAYING", paused = "PAUSED", buffering = "BUFFERING"
}

/// Why a session went IDLE.
public enum IdleReason: String, Sendable, Equatable {
    case cancelled = "CANCELLED", interrupted = "INTERRUPTED", finished = "FINISHED", error = "ERROR"
}

/// The sender endpoint that asked for something, so a late answer (LOAD_FAILED,
/// LOAD_CANCELLED) goes back to it alone.
struct Requester: Sendable, Equatable {
    let connection: ConnectionID
    let senderId: String
    let localId: String
    let requestId: Int

    init(_ request: Request) {
        connection = request.connection
        senderId = request.envelope.sourceId
        localId = request.envelope.destinationId
        requestId = request.requestId
    }
}

/// An item on its way to playing: the first item of a LOAD, or the next item of the queue.
public struct PendingLoad: Sendable, Equatable {
    public let itemId: Int
    /// When the load finishes; nil when it never answers.
    public let readyAt: SimTime?
    public let outcome: MediaLoadBehaviour.Outcome
    let requester: Requester?
    let autoplay: Bool
    let startPosition: Double
    /// The first load of a session reports `extendedStatus: LOADING`.
    public let isInitial: Bool
}

/// A media session: created by LOAD or QUEUE_LOAD, ended by STOP, the end of the queue,
/// an error, or a newer load.
public struct MediaSession: Sendable, Equatable {
    public let mediaSessionId: Int
    public internal(set) var queue: MediaQueue
    public internal(set) var currentItemId: Int
    public internal(set) var playerState: PlayerState
    public internal(set) var clock: PlayerClock
    public internal(set) var streamVolume: Volume
    public internal(set) var activeTrackIds: [Int]
    /// `customData` of the load, echoed in statuses.
    public internal(set) var customData: JSONValue?
    /// Kept for inspection: what the sender authenticated with.
    public internal(set) var credentials: String?
    public internal(set) var credentialsType: String?
    public internal(set) var pendingLoad: PendingLoad?
    public internal(set) var preloadedItemId: Int?
    /// Stalls still ahead in the current item (from the media catalog).
    var bufferingPhases: [MediaLoadBehaviour.BufferingPhase] = []
    /// While BUFFERING: when playback resumes.
    public internal(set) var bufferingUntil: SimTime?
    /// For live media: when the live edge was at ``liveWindow`` seconds.
    var liveOrigin: SimTime?
    var liveWindow: Double = 0

    public var items: [QueueItem] { queue.items }
    public var currentItem: QueueItem? { queue.item(currentItemId) }
    public var loadingItemId: Int? { pendingLoad?.itemId }
    public var repeatMode: RepeatMode { queue.repeatMode }

    var isLive: Bool { currentItem?.media.streamType == .live }

    /// Where the player stops: the item's end, or the live edge.
    func endPosition(at now: SimTime) -> Double? {
        if let range = liveSeekableRange(at: now) { return range.end }
        return currentItem?.endPosition
    }

    public func currentTime(at now: SimTime) -> Double {
        clock.position(at: now, limit: endPosition(at: now))
    }

    /// The window a live stream can be sought in; it moves with time.
    public func liveSeekableRange(at now: SimTime) -> (start: Double, end: Double)? {
        guard isLive, let liveOrigin else { return nil }
        let end = liveWindow + max(0, now - liveOrigin)
        return (max(0, end - liveWindow), end)
    }

    /// Clamps a seek target into what can be played.
    func clampedPosition(_ position: Double, at now: SimTime) -> Double {
        if let range = liveSeekableRange(at: now) { return position.clamped(to: range.start...range.end) }
        let lower = currentItem?.startTime ?? 0
        let upper = max(lower, currentItem?.endPosition ?? .greatestFiniteMagnitude)
        return position.clamped(to: lower...upper)
    }
}

/// The media receiver of a running media app.
public struct MediaPlayer: Sendable, Equatable {
    public internal(set) var session: MediaSession?
}
