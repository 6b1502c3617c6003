import CastWire

/// A media session as inspection sees it at one instant: what a sender would learn from a
/// full MEDIA_STATUS, and what the player is doing underneath.
public struct MediaSnapshot: Sendable, Equatable {
    public var mediaSessionId: Int
    public var phase: PlayerPhaseName
    /// As senders see it: IDLE while loading.
    public var playerState: PlayerState
    /// The playhead at the snapshot's time.
    public var currentTime: Double
    public var playbackRate: Double
    public var queue: MediaQueue
    public var currentItemId: Int
    public var loadingItemId: Int?
    public var preloadedItemId: Int?
    public var activeTrackIds: [Int]
    public var streamVolume: Volume
    public var customData: JSONValue?
    public var credentials: String?
    public var credentialsType: String?
    /// While BUFFERING: when playback resumes.
    public var bufferingUntil: SimTime?
    public var liveSeekableRange: ClosedRange<Double>?
    public var supportedMediaCommands: MediaCommands
    /// `breakStatus` while an ad break plays, as MEDIA_STATUS says it.
    public var breakStatus: JSONValue?

    public var items: [QueueItem] { queue.items }
    public var currentItem: QueueItem? { queue.item(currentItemId) }
    public var repeatMode: RepeatMode { queue.repeatMode }
    public var textTrackStyle: JSONValue? { currentItem?.media.textTrackStyle }
}

extension MediaReceiver {
    package func snapshot(at now: SimTime) -> MediaSnapshot? {
        guard let session = phase.session else { return nil }
        var bufferingUntil: SimTime?
        if case .buffering(_, let stall) = phase { bufferingUntil = stall.until }
        return MediaSnapshot(
            mediaSessionId: session.mediaSessionId, phase: phase.name, playerState: phase.playerState,
            currentTime: phase.currentTime(at: now), playbackRate: session.playbackRate, queue: session.queue,
            currentItemId: session.currentItemId, loadingItemId: phase.load?.itemId, preloadedItemId: session.preloadedItemId,
            activeTrackIds: session.activeTrackIds, streamVolume: session.streamVolume, customData: session.customData,
            credentials: session.credentials, credentialsType: session.credentialsType, bufferingUntil: bufferingUntil,
            liveSeekableRange: session.liveSeekableRange(at: now).map { $0.start...$0.end },
            supportedMediaCommands: supportedMediaCommands(session), breakStatus: breakStatus(session, at: now))
    }
}

extension MediaSnapshot {
    /// STORE_SESSION's `sessionState` (docs/protocol/media.md §7): `loadRequestData` as a
    /// LOAD would carry it (the media, autoplay as the player is, the position, the rate,
    /// the tracks, customData, credentials), the queue in its `queueData`. Nil without an item.
    public var sessionState: JSONValue? {
        guard let item = currentItem, let index = queue.items.firstIndex(where: { $0.itemId == item.itemId }) else { return nil }
        var queueData: [String: JSONValue] = [:]
        if case .object(let echoed)? = queue.queueData { queueData = echoed }
        queueData["items"] = .array(queue.items.map(\.json))
        queueData["startIndex"] = .number(Double(index))
        queueData["repeatMode"] = .string(queue.repeatMode.rawValue)
        var load: [String: JSONValue] = [
            "media": item.media.json,
            "autoplay": .bool(playerState != .paused),
            "currentTime": .number(currentTime),
            "playbackRate": .number(playbackRate),
            "activeTrackIds": .array(activeTrackIds.map { .number(Double($0)) }),
            "queueData": .object(queueData),
        ]
        if let customData { load["customData"] = customData }
        if let credentials { load["credentials"] = .string(credentials) }
        if let credentialsType { load["credentialsType"] = .string(credentialsType) }
        return ["loadRequestData": .object(load)]
    }
}
