import CastWire

/// Command bits of `supportedMediaCommands` (§6.5).
public struct MediaCommands: OptionSet, Sendable, Equatable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let pause = MediaCommands(rawValue: 1)
    public static let seek = MediaCommands(rawValue: 2)
    public static let streamVolume = MediaCommands(rawValue: 4)
    public static let streamMute = MediaCommands(rawValue: 8)
    public static let queueNext = MediaCommands(rawValue: 64)
    public static let queuePrev = MediaCommands(rawValue: 128)
    public static let queueShuffle = MediaCommands(rawValue: 256)
    public static let queueRepeatAll = MediaCommands(rawValue: 1024)
    public static let queueRepeatOne = MediaCommands(rawValue: 2048)
    public static let editTracks = MediaCommands(rawValue: 4096)
    public static let playbackRate = MediaCommands(rawValue: 8192)
    public static let streamTransfer = MediaCommands(rawValue: 262144)

    /// Every command above.
    public static let all: MediaCommands = [
        .pause, .seek, .streamVolume, .streamMute, .queueNext, .queuePrev, .queueShuffle, .queueRepeatAll,
        .queueRepeatOne, .editTracks, .playbackRate, .streamTransfer,
    ]
    /// What any session of a media receiver allows.
    static let basic: MediaCommands = [.pause, .seek, .streamVolume, .streamMute, .playbackRate, .streamTransfer]
}

/// Which optional parts a MEDIA_STATUS entry carries.
struct MediaStatusParts: OptionSet {
    let rawValue: Int
    static let media = MediaStatusParts(rawValue: 1)
    static let items = MediaStatusParts(rawValue: 2)
    /// `extendedStatus` while the first item of a session loads.
    static let loading = MediaStatusParts(rawValue: 4)
    /// GET_STATUS NO_METADATA: `media` without its `metadata`.
    static let noMetadata = MediaStatusParts(rawValue: 8)
}

extension SimulatedDevice {
    /// What the session allows now, within what the app allows (§6.5): queue commands only
    /// with somewhere to go or a repeat mode, EDIT_TRACKS only with tracks.
    func supportedMediaCommands(_ session: MediaSession) -> MediaCommands {
        var commands = MediaCommands.basic
        let current = session.currentItemId
        let repeating = session.repeatMode != .off
        if session.queue.hasNext(after: current) || repeating { commands.insert(.queueNext) }
        if session.queue.hasPrevious(before: current) || repeating { commands.insert(.queuePrev) }
        if session.items.count > 1 || repeating { commands.formUnion([.queueShuffle, .queueRepeatAll, .queueRepeatOne]) }
        if session.currentItem?.media.hasTracks == true { commands.insert(.editTracks) }
        let allowed = runningApp?.definition.allowedMediaCommands ?? .all
        return commands.intersection(allowed)
    }

    /// One MediaStatus object (§6.4). The always-present fields are always here:
    /// the Android SDK drops a status without `mediaSessionId`, and needs both volume keys.
    ///
    /// `loadingItemId` names the next item when the status of an item that just ended
    /// announces it; otherwise the session's own pending load decides.
    func mediaStatusEntry(_ session: MediaSession, parts: MediaStatusParts = [], idleReason: IdleReason? = nil,
                          loadingItemId: Int? = nil) -> JSONValue {
        var fields: [String: JSONValue] = [
            "mediaSessionId": .number(Double(session.mediaSessionId)),
            "playerState": .string(session.playerState.rawValue),
            "currentTime": .number(session.currentTime(at: now)),
            "playbackRate": .number(session.clock.rate),
            "supportedMediaCommands": .number(Double(supportedMediaCommands(session).rawValue)),
            "volume": ["level": .number(session.streamVolume.level), "muted": .bool(session.streamVolume.muted)],
            "currentItemId": .number(Double(session.currentItemId)),
            "repeatMode": .string(session.repeatMode.rawValue),
            "activeTrackIds": .array(session.activeTrackIds.map { .number(Double($0)) }),
        ]
        if let idleReason { fields["idleReason"] = .string(idleReason.rawValue) }
        if let customData = session.customData { fields["customData"] = customData }
        if let loading = loadingItemId ?? session.loadingItemId { fields["loadingItemId"] = .number(Double(loading)) }
        if let preloaded = session.preloadedItemId { fields["preloadedItemId"] = .number(Double(preloaded)) }
        if let queueData = session.queue.queueData { fields["queueData"] = queueData }
        if let range = session.liveSeekableRange(at: now) {
            fields["liveSeekableRange"] = [
                "start": .number(range.start), "end": .number(range.end), "isMovingWindow": true, "isLiveDone": false,
            ]
        }
        let stripMetadata = parts.contains(.noMetadata)
        if parts.contains(.media), let media = session.currentItem?.media {
            fields["media"] = stripMetadata ? media.json.removing("metadata") : media.json
        }
        if parts.contains(.items) {
            fields["items"] = .array(session.items.map { item in
                stripMetadata ? item.json.replacing("media", with: item.media.json.removing("metadata")) : item.json
            })
        }
        if parts.contains(.loading), session.pendingLoad?.isInitial == true, let media = session.currentItem?.media {
            fields["extendedStatus"] = [
                "playerState": "LOADING", "media": media.json,
                "mediaSessionId": .number(Double(session.mediaSessionId)),
            ]
        }
        return .object(fields)
    }

    func mediaStatusMessage(requestId: Int, entries: [JSONValue]) -> JSONValue {
        ["type": "MEDIA_STATUS", "requestId": .number(Double(requestId)), "status": .array(entries)]
    }

    /// Broadcasts a MEDIA_STATUS for `session` from the running app's transport to every
    /// sender connected to it, tagged with the causing request's id (0 if unsolicited).
    mutating func broadcastMediaStatus(_ session: MediaSession, requestId: Int, parts: MediaStatusParts = [],
                                       idleReason: IdleReason? = nil, loadingItemId: Int? = nil) {
        guard let transportId = runningApp?.transportId else { return }
        let (message, text) = fittingMediaStatus(session, requestId: requestId, parts: parts, idleReason: idleReason,
                                                 loadingItemId: loadingItemId)
        broadcast(from: transportId, namespace: CastNamespace.media, message, text: text)
    }

    func fittingMediaStatusMessage(_ session: MediaSession, requestId: Int, parts: MediaStatusParts,
                                   idleReason: IdleReason?) -> JSONValue {
        fittingMediaStatus(session, requestId: requestId, parts: parts, idleReason: idleReason).message
    }

    /// A MEDIA_STATUS that fits in one frame, with its JSON text. A message over 64 KiB
    /// cannot be sent at all, so the optional parts go first: `items`, then the
    /// `extendedStatus` copy of the media, then `media` itself (senders keep the media
    /// they already have).
    func fittingMediaStatus(_ session: MediaSession, requestId: Int, parts: MediaStatusParts,
                            idleReason: IdleReason?, loadingItemId: Int? = nil) -> (message: JSONValue, text: String) {
        var parts = parts
        for dropped in [MediaStatusParts.items, .loading, .media] {
            let message = mediaStatusMessage(
                requestId: requestId, entries: [mediaStatusEntry(session, parts: parts, idleReason: idleReason, loadingItemId: loadingItemId)])
            let text = message.jsonText()
            if text.utf8.count <= Self.maxPayloadBytes { return (message, text) }
            parts.remove(dropped)
        }
        let message = mediaStatusMessage(requestId: requestId, entries: [mediaStatusEntry(session, parts: parts, idleReason: idleReason, loadingItemId: loadingItemId)])
        return (message, message.jsonText())
    }
}
