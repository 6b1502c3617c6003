import CastWire

/// CAF PlayerState, as senders see it. LOADING exists only inside `extendedStatus`.
public enum PlayerState: String, Sendable, Equatable {
    case idle = "IDLE", playing = "PLAYING", paused = "PAUSED", buffering = "BUFFERING"
}

/// Why a session went IDLE.
public enum IdleReason: String, Sendable, Equatable, Codable {
    case cancelled = "CANCELLED", interrupted = "INTERRUPTED", finished = "FINISHED", error = "ERROR"
}

/// A media session: what was loaded and what the senders set on it, whatever the player
/// is doing. Created by LOAD or QUEUE_LOAD; ended by STOP, the end of the queue, an error,
/// a newer load, or the app stopping.
struct MediaSession: Sendable, Equatable {
    let mediaSessionId: Int
    var queue: MediaQueue
    var currentItemId: Int
    var playbackRate: Double
    var streamVolume: Volume
    var activeTrackIds: [Int]
    /// `customData` of the load, echoed in statuses.
    var customData: JSONValue?
    /// Kept for inspection: what the sender authenticated with.
    var credentials: String?
    var credentialsType: String?
    var preloadedItemId: Int?
    /// Stalls still ahead in the current item (from the media catalog), by position.
    var stallsAhead: [MediaLoadBehaviour.BufferingPhase] = []
    /// For live media: when the live edge was at ``liveWindow`` seconds.
    var liveOrigin: SimTime?
    let liveWindow: Double
    /// Commands this session does not offer, whatever the app allows (an entitlement
    /// without seeking, say).
    var withheldCommands: MediaCommands = []
    /// The USER_ACTIONs the current item takes (its catalog entry's).
    var userActions: [String] = []
    /// The current item's ad breaks, and the one playing (media.md §11).
    var adBreaks: AdBreaks?
    var inBreak: BreakPlayback?
    /// MediaStatus `videoInfo` of the current item; nil for audio or on a speaker.
    var videoInfo: JSONValue?
    /// The item that last finished loading; nil until the first load completes, which is
    /// when the session counts as started.
    var loadedItemId: Int?

    var currentItem: QueueItem? { queue.item(currentItemId) }
    var isLive: Bool { currentItem?.media.streamType == .live }
    var hasStarted: Bool { loadedItemId != nil }

    /// The window a live stream can be sought in; it moves with time.
    func liveSeekableRange(at now: SimTime) -> (start: Double, end: Double)? {
        guard isLive, let liveOrigin else { return nil }
        let end = liveWindow + max(0, now - liveOrigin)
        return (max(0, end - liveWindow), end)
    }

    /// Where the player stops: the item's end, or the live edge.
    func endPosition(at now: SimTime) -> Double? {
        if let range = liveSeekableRange(at: now) { return range.end }
        return currentItem?.endPosition
    }

    /// Clamps a seek target into what can be played.
    func clampedPosition(_ position: Double, at now: SimTime) -> Double {
        if let range = liveSeekableRange(at: now) { return position.clamped(to: range.start...range.end) }
        let lower = currentItem?.startTime ?? 0
        let upper = max(lower, currentItem?.endPosition ?? .greatestFiniteMagnitude)
        return position.clamped(to: lower...upper)
    }

    /// A position, never past where the player stops.
    func limited(_ position: Double, at now: SimTime) -> Double {
        endPosition(at: now).map { min(position, $0) } ?? position
    }
}

/// What the player is doing. Each phase carries only its own facts; the media session is
/// shared by every phase but idle, so "no session" and "idle" are one and the same.
enum PlayerPhase: Sendable, Equatable {
    case idle
    /// An item on its way to playing: the first item of a LOAD, or the next of the queue.
    case loading(MediaSession, Load)
    case playing(MediaSession, Playhead)
    case paused(MediaSession, position: Double)
    /// Stalled at `position` until `until`, then playing again.
    case buffering(MediaSession, Stall)

    /// The load in progress.
    struct Load: Sendable, Equatable {
        let itemId: Int
        /// When the load finishes; nil when it never answers.
        let readyAt: SimTime?
        let outcome: MediaLoadBehaviour.Outcome
        /// Who asked: the status that completes the load answers them (nil: the queue moved on by itself).
        let requester: Requester?
        let autoplay: Bool
        let startPosition: Double
        /// The first load of a session reports `extendedStatus: LOADING`.
        let isInitial: Bool
        /// Where the playhead stood when loading began; statuses show it until the item plays.
        let heldPosition: Double
    }

    /// The playhead moves at the session's rate from `position` at `since`.
    struct Playhead: Sendable, Equatable {
        let position: Double
        let since: SimTime

        func position(at now: SimTime, rate: Double) -> Double { position + rate * max(0, now - since) }

        /// When the playhead reaches `target`.
        func time(reaching target: Double, rate: Double) -> SimTime { since + max(0, target - position) / rate }
    }

    struct Stall: Sendable, Equatable {
        let position: Double
        let until: SimTime
    }

    var name: PlayerPhaseName {
        switch self {
        case .idle: .idle
        case .loading: .loading
        case .playing: .playing
        case .paused: .paused
        case .buffering: .buffering
        }
    }

    var session: MediaSession? {
        switch self {
        case .idle: nil
        case .loading(let session, _), .playing(let session, _), .paused(let session, _), .buffering(let session, _): session
        }
    }

    /// `playerState` as senders see it: IDLE while loading.
    var playerState: PlayerState {
        switch self {
        case .idle, .loading: .idle
        case .playing: .playing
        case .paused: .paused
        case .buffering: .buffering
        }
    }

    /// Whether an ad break plays, asked on every phase change: read in place, without
    /// copying the session out as ``session`` does.
    var isInBreak: Bool {
        switch self {
        case .idle: false
        case .loading(let session, _), .playing(let session, _), .paused(let session, _), .buffering(let session, _):
            session.inBreak != nil
        }
    }

    var load: Load? {
        if case .loading(_, let load) = self { return load }
        return nil
    }

    /// The playhead's position at `now`, never past where the player stops.
    func currentTime(at now: SimTime) -> Double {
        switch self {
        case .idle: 0
        case .loading(let session, let load): session.limited(load.heldPosition, at: now)
        case .playing(let session, let playhead):
            // The content waits at the break's position while an ad break plays.
            session.limited(session.inBreak?.position ?? playhead.position(at: now, rate: session.playbackRate), at: now)
        case .paused(let session, let position): session.limited(position, at: now)
        case .buffering(let session, let stall): session.limited(stall.position, at: now)
        }
    }

    /// Puts `session` in the place of the current one, keeping the phase and its facts.
    mutating func replaceSession(_ session: MediaSession) {
        switch self {
        case .idle: break
        case .loading(_, let load): self = .loading(session, load)
        case .playing(_, let playhead): self = .playing(session, playhead)
        case .paused(_, let position): self = .paused(session, position: position)
        case .buffering(_, let stall): self = .buffering(session, stall)
        }
    }

    /// Changes the session in place, whatever the phase. The phase is set to `.idle` while
    /// `body` runs, so the session's storage (its queue) is not shared and not copied.
    mutating func updateSession<T>(_ body: (inout MediaSession) throws(RequestRejection) -> T) throws(RequestRejection) -> T? {
        switch self {
        case .idle:
            return nil
        case .loading(var session, let load):
            self = .idle
            defer { self = .loading(session, load) }
            return try body(&session)
        case .playing(var session, let playhead):
            self = .idle
            defer { self = .playing(session, playhead) }
            return try body(&session)
        case .paused(var session, let position):
            self = .idle
            defer { self = .paused(session, position: position) }
            return try body(&session)
        case .buffering(var session, let stall):
            self = .idle
            defer { self = .buffering(session, stall) }
            return try body(&session)
        }
    }
}
