import CastWire

/// Command bits of `supportedMediaCommands` (docs/protocol/media.md §5.1).
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

/// What one MEDIA_STATUS entry describes: a session as the player shows it now, or as it
/// was when it ended (IDLE at its last position).
struct StatusView {
    var session: MediaSession
    var playerState: PlayerState
    var currentTime: Double
    /// The load in progress, for `loadingItemId` and `extendedStatus`.
    var load: PlayerPhase.Load?
}

extension MediaReceiver {
    /// The session as the player shows it at `now`; nil without a session.
    func statusView(at now: SimTime) -> StatusView? {
        phase.session.map {
            StatusView(session: $0, playerState: phase.playerState, currentTime: phase.currentTime(at: now), load: phase.load)
        }
    }

    /// What the session allows now, within what the app allows (media.md §5.1): queue commands only
    /// with somewhere to go or a repeat mode, EDIT_TRACKS only with tracks.
    func supportedMediaCommands(_ session: MediaSession) -> MediaCommands {
        var commands = MediaCommands.basic
        let current = session.currentItemId
        let repeating = session.queue.repeatMode != .off
        if session.queue.hasNext(after: current) || repeating { commands.insert(.queueNext) }
        if session.queue.hasPrevious(before: current) || repeating { commands.insert(.queuePrev) }
        if session.queue.items.count > 1 || repeating { commands.formUnion([.queueShuffle, .queueRepeatAll, .queueRepeatOne]) }
        if session.currentItem?.media.hasTracks == true { commands.insert(.editTracks) }
        for action in session.userActions { if let bit = MediaCommands.userActions[action] { commands.insert(bit) } }
        // SKIP_AD while a clip plays that may be skipped (from the start: its bit says it can be).
        if let playback = session.inBreak, session.adBreaks?.clip(of: playback)?.whenSkippable != nil { commands.insert(.skipAd) }
        return commands.intersection(settings.allowedCommands).subtracting(session.withheldCommands)
    }

    /// One MediaStatus object (media.md §4.1). The always-present fields are always here:
    /// the Android SDK drops a status without `mediaSessionId`, and needs both volume keys.
    ///
    /// `loadingItemId` names the next item when the status of an item that just ended
    /// announces it; otherwise the load in progress decides.
    func mediaStatusEntry(_ view: StatusView, parts: MediaStatusParts, idleReason: IdleReason?, loadingItemId: Int?,
                          now: SimTime) -> JSONValue {
        let session = view.session
        var fields: [String: JSONValue] = [
            "mediaSessionId": .number(Double(session.mediaSessionId)),
            "playerState": .string(view.playerState.rawValue),
            "currentTime": .number(view.currentTime),
            "playbackRate": .number(session.playbackRate),
            "supportedMediaCommands": .number(Double(supportedMediaCommands(session).rawValue)),
            "volume": session.streamVolume.json,
            "currentItemId": .number(Double(session.currentItemId)),
            "repeatMode": .string(session.queue.repeatMode.rawValue),
            "activeTrackIds": .array(session.activeTrackIds.map { .number(Double($0)) }),
        ]
        if let idleReason { fields["idleReason"] = .string(idleReason.rawValue) }
        if let customData = session.customData { fields["customData"] = customData }
        if let loading = loadingItemId ?? view.load?.itemId { fields["loadingItemId"] = .number(Double(loading)) }
        if let preloaded = session.preloadedItemId { fields["preloadedItemId"] = .number(Double(preloaded)) }
        if let queueData = session.queue.queueData { fields["queueData"] = queueData }
        if let breakStatus = breakStatus(session, at: now) { fields["breakStatus"] = breakStatus }
        // Once the item plays: what the picture turned out to be.
        if view.load == nil, let videoInfo = session.videoInfo { fields["videoInfo"] = videoInfo }
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
            fields["items"] = .array(session.queue.items.map { item in
                stripMetadata ? item.json.replacing("media", with: item.media.json.removing("metadata")) : item.json
            })
        }
        if parts.contains(.loading), view.load?.isInitial == true, let media = session.currentItem?.media {
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

    /// A MEDIA_STATUS that fits in one frame, encoded once. A message over 64 KiB cannot be
    /// sent at all, so the optional parts go first: `items`, then the `extendedStatus` copy
    /// of the media, then `media` itself (senders keep the media they already have).
    func fittingMediaStatus(_ view: StatusView, requestId: Int, parts: MediaStatusParts, idleReason: IdleReason? = nil,
                            loadingItemId: Int? = nil, now: SimTime) -> JSONPayload {
        var parts = parts
        for dropped in [MediaStatusParts.items, .loading, .media] {
            let payload = JSONPayload(mediaStatusMessage(requestId: requestId, entries: [
                mediaStatusEntry(view, parts: parts, idleReason: idleReason, loadingItemId: loadingItemId, now: now),
            ]))
            if payload.byteCount <= CastFraming.maxPayloadBytes { return payload }
            parts.remove(dropped)
        }
        return JSONPayload(mediaStatusMessage(requestId: requestId, entries: [
            mediaStatusEntry(view, parts: parts, idleReason: idleReason, loadingItemId: loadingItemId, now: now),
        ]))
    }

    /// Broadcasts a MEDIA_STATUS of the session as it stands to every sender connected to
    /// the app, answering `requester` (its requestId; 0 when unsolicited).
    mutating func broadcastStatus(answering requester: Requester?, parts: MediaStatusParts = [], context: inout AppContext) {
        guard let view = statusView(at: context.now) else { return }
        broadcastStatus(view, answering: requester, parts: parts, context: &context)
    }

    /// Broadcasts a MEDIA_STATUS of `view` (a session that just ended, or one as it stands).
    func broadcastStatus(_ view: StatusView, answering requester: Requester?, parts: MediaStatusParts = [],
                         idleReason: IdleReason? = nil, loadingItemId: Int? = nil, context: inout AppContext) {
        let payload = fittingMediaStatus(view, requestId: requester?.requestId ?? 0, parts: parts, idleReason: idleReason,
                                         loadingItemId: loadingItemId, now: context.now)
        context.broadcast(payload, namespace: CastNamespace.media, answering: requester)
    }

    func queueChangeMessage(_ session: MediaSession, _ changeType: String, itemIds: [Int], requestId: Int = 0,
                            insertBefore: Int? = nil, reorderItemIds: [Int]? = nil) -> JSONValue {
        var fields: [String: JSONValue] = [
            "type": "QUEUE_CHANGE", "requestId": .number(Double(requestId)), "changeType": .string(changeType),
            "itemIds": .array(itemIds.map { .number(Double($0)) }),
            "sequenceNumber": .number(Double(session.queue.sequenceNumber)),
        ]
        if let insertBefore { fields["insertBefore"] = .number(Double(insertBefore)) }
        if let reorderItemIds { fields["reorderItemIds"] = .array(reorderItemIds.map { .number(Double($0)) }) }
        return .object(fields)
    }

    /// Tells every sender how the queue changed (media.md §3 QUEUE_CHANGE), unsolicited: the
    /// request that caused it completes on its MEDIA_STATUS.
    func broadcastQueueChange(_ session: MediaSession, _ changeType: String, itemIds: [Int], insertBefore: Int? = nil,
                              reorderItemIds: [Int]? = nil, context: inout AppContext) {
        context.broadcast(JSONPayload(queueChangeMessage(session, changeType, itemIds: itemIds, insertBefore: insertBefore,
                                                         reorderItemIds: reorderItemIds)),
                          namespace: CastNamespace.media, answering: nil)
    }
}
