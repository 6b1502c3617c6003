import CastWire

/// Command bits of `supportedMediaCommands` (§6.5).
public struct MediaCommands: OptionSet, Sendable {
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

    /// ALL_BASIC_MEDIA | STREAM_TRANSFER = 274447, what a current DMR reports.
    public static let defaultMediaReceiver: MediaCommands = [
        .pause, .seek, .streamVolume, .streamMute, .editTracks, .playbackRate, .streamTransfer,
    ]
}

/// Which optional parts a MEDIA_STATUS entry carries.
struct MediaStatusParts: OptionSet {
    let rawValue: Int
    static let media = MediaStatusParts(rawValue: 1)
    static let items = MediaStatusParts(rawValue: 2)
    static let loading = MediaStatusParts(rawValue: 4)
}

extension SimulatedDevice {
    /// One MediaStatus object (§6.4). The always-present fields are always here:
    /// the Android SDK drops a status without `mediaSessionId`, and needs both volume keys.
    func mediaStatusEntry(_ session: MediaSession, parts: MediaStatusParts = [], idleReason: IdleReason? = nil) -> JSONValue {
        var fields: [String: JSONValue] = [
            "mediaSessionId": .number(Double(session.mediaSessionId)),
            "playerState": .string(session.playerState.rawValue),
            "currentTime": .number(session.currentTime(at: now)),
            "playbackRate": .number(session.clock.rate),
            "supportedMediaCommands": .number(Double(MediaCommands.defaultMediaReceiver.rawValue)),
            "volume": ["level": .number(session.streamVolume.level), "muted": .bool(session.streamVolume.muted)],
            "currentItemId": .number(Double(session.currentItemId)),
            "repeatMode": .string(session.repeatMode),
            "activeTrackIds": .array(session.activeTrackIds.map { .number(Double($0)) }),
        ]
        if let idleReason { fields["idleReason"] = .string(idleReason.rawValue) }
        if let customData = session.customData { fields["customData"] = customData }
        if parts.contains(.media), let media = session.currentItem?.media { fields["media"] = media.json }
        if parts.contains(.items) { fields["items"] = .array(session.items.map(\.json)) }
        if parts.contains(.loading), let media = session.currentItem?.media {
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
                                       idleReason: IdleReason? = nil) {
        guard let transportId = runningApp?.transportId else { return }
        let message = fittingMediaStatusMessage(session, requestId: requestId, parts: parts, idleReason: idleReason)
        broadcast(from: transportId, namespace: CastNamespace.media, message)
    }

    /// A MEDIA_STATUS that fits in one frame. A message over 64 KiB cannot be sent at all,
    /// so the optional parts go first: `items`, then the `extendedStatus` copy of the media,
    /// then `media` itself (senders keep the media they already have).
    func fittingMediaStatusMessage(_ session: MediaSession, requestId: Int, parts: MediaStatusParts,
                                   idleReason: IdleReason?) -> JSONValue {
        var parts = parts
        for dropped in [MediaStatusParts.items, .loading, .media] {
            let message = mediaStatusMessage(
                requestId: requestId, entries: [mediaStatusEntry(session, parts: parts, idleReason: idleReason)])
            if message.jsonText().utf8.count <= Self.maxPayloadBytes { return message }
            parts.remove(dropped)
        }
        return mediaStatusMessage(requestId: requestId, entries: [mediaStatusEntry(session, parts: parts, idleReason: idleReason)])
    }
}
