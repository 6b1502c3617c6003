import CastWire

/// CAF PlayerState. LOADING exists only inside `extendedStatus`.
public enum PlayerState: String, Sendable, Equatable {
    case idle = "IDLE", playing = "PLAYING", paused = "PAUSED", buffering = "BUFFERING"
}

/// Why a session went IDLE.
public enum IdleReason: String, Sendable, Equatable {
    case cancelled = "CANCELLED", interrupted = "INTERRUPTED", finished = "FINISHED", error = "ERROR"
}

/// One entry of the media queue (§6.4 QueueItem).
public struct QueueItem: Sendable, Equatable {
    public var itemId: Int
    public var media: MediaInformation
    public var autoplay: Bool
    public var startTime: Double
    public var activeTrackIds: [Int]?
    public var customData: JSONValue?

    public var json: JSONValue {
        var fields: [String: JSONValue] = [
            "itemId": .number(Double(itemId)), "media": media.json, "autoplay": .bool(autoplay),
            "customData": customData ?? [:],
        ]
        if startTime != 0 { fields["startTime"] = .number(startTime) }
        if let activeTrackIds { fields["activeTrackIds"] = .array(activeTrackIds.map { .number(Double($0)) }) }
        return .object(fields)
    }
}

/// A media session: created by LOAD, ended by STOP, the end of the media, an error,
/// or a newer LOAD.
public struct MediaSession: Sendable, Equatable {
    public let mediaSessionId: Int
    public internal(set) var items: [QueueItem]
    public internal(set) var currentItemId: Int
    public internal(set) var playerState: PlayerState
    public internal(set) var clock: PlayerClock
    public internal(set) var streamVolume: Volume
    public internal(set) var activeTrackIds: [Int]
    public internal(set) var repeatMode = "REPEAT_OFF"
    /// `customData` of the LOAD, echoed in statuses.
    public internal(set) var customData: JSONValue?
    /// Kept for inspection: what the sender authenticated with.
    public internal(set) var credentials: String?
    public internal(set) var credentialsType: String?

    public var currentItem: QueueItem? { items.first { $0.itemId == currentItemId } }

    /// The length the player plays to: the sender's `duration`, else the device default;
    /// nil for live streams, which never end.
    var effectiveDuration: Double? { currentItem?.media.duration }

    public func currentTime(at now: SimTime) -> Double {
        clock.position(at: now, limit: effectiveDuration)
    }
}

/// The media receiver of a running media app.
public struct MediaPlayer: Sendable, Equatable {
    public internal(set) var session: MediaSession?
}
