import CastWire

// LOAD and QUEUE_LOAD (§6.2), and the life of a load: IDLE + LOADING, then PLAYING or
// PAUSED with the request's id; or LOAD_FAILED, or LOAD_CANCELLED when superseded (§6.6).

extension SimulatedDevice {
    mutating func handleLoad(_ request: Request) throws(MediaRequestError) {
        guard let mediaJSON = request["media"] else { throw .invalidParams("LOAD without media") }
        // A LOAD is one item: its media, with the request's own autoplay and tracks.
        var first = QueueItem(itemId: 0, media: try params { () throws(InvalidParams) in
            try MediaInformation(json: mediaJSON, path: "media")
        })
        let (startTime, activeTrackIds, rate, queueData) = try params { () throws(InvalidParams) in
            (try request.double("currentTime"), try request.intArray("activeTrackIds"), try request.double("playbackRate"),
             try request.object("queueData"))
        }
        try params { () throws(InvalidParams) in
            if let activeTrackIds { try validateActiveTracks(activeTrackIds, against: first.media.tracks, path: "activeTrackIds") }
        }
        first.autoplay = request["autoplay"].map(isAutoplay) ?? true
        first.activeTrackIds = activeTrackIds

        // LOAD with queueData.items loads that queue (the LOAD's media describes its start item).
        var items = [first]
        var startIndex = 0
        var repeatMode = RepeatMode.off
        var queueStartTime: Double?
        if let queueData {
            let parsed = try decodeQueueData(queueData)
            if !parsed.items.isEmpty {
                items = parsed.items
                items[parsed.startIndex].autoplay = first.autoplay
                if let activeTrackIds { items[parsed.startIndex].activeTrackIds = activeTrackIds }
            }
            startIndex = parsed.items.isEmpty ? 0 : parsed.startIndex
            repeatMode = parsed.repeatMode ?? .off
            queueStartTime = parsed.startTime
        }
        try startSession(request, items: items, startIndex: startIndex, repeatMode: repeatMode,
                         startTime: startTime ?? queueStartTime, rate: rate, queueData: queueData.map(queueDataEcho))
    }

    mutating func handleQueueLoad(_ request: Request) throws(MediaRequestError) {
        guard let itemsJSON = request["items"] else { throw .invalidParams("QUEUE_LOAD without items") }
        let items = try params { () throws(InvalidParams) in
            try decodeItems(itemsJSON, path: "items", allowItemId: true)
        }
        guard !items.isEmpty else { throw .invalidParams("items: a queue needs at least one item") }
        let (startIndex, startTime, repeatJSON) = try params { () throws(InvalidParams) in
            (try request.int("startIndex") ?? 0, try request.double("currentTime"), request["repeatMode"])
        }
        guard items.indices.contains(startIndex) else {
            throw .invalidParams("startIndex: \(startIndex) is outside the \(items.count) items")
        }
        let repeatMode = try params { () throws(InvalidParams) in
            try repeatJSON.map { json throws(InvalidParams) in try RepeatMode(json: json, path: "repeatMode") } ?? .off
        }
        try startSession(request, items: items, startIndex: startIndex, repeatMode: repeatMode, startTime: startTime,
                         rate: nil, queueData: request["queueData"].map(queueDataEcho))
    }

    /// Replaces whatever plays with a new session over `items`, starting the load of the
    /// item at `startIndex`.
    private mutating func startSession(_ request: Request, items: [QueueItem], startIndex: Int, repeatMode: RepeatMode,
                                       startTime: Double?, rate: Double?, queueData: JSONValue?) throws(MediaRequestError) {
        if let rate, !configuration.playbackRateRange.contains(rate) {
            throw .invalidParams("playbackRate \(rate) outside \(configuration.playbackRateRange.lowerBound)...\(configuration.playbackRateRange.upperBound)")
        }
        endCurrentSession(reason: .interrupted)

        let queue = MediaQueue(items: items, repeatMode: repeatMode, queueData: queueData)
        lastMediaSessionId += 1
        let start = queue.items[startIndex]
        var session = MediaSession(
            mediaSessionId: lastMediaSessionId, queue: queue, currentItemId: start.itemId, playerState: .idle,
            clock: PlayerClock(position: 0, at: now, rate: rate ?? 1, running: false),
            streamVolume: Volume(level: 1, muted: false), activeTrackIds: start.activeTrackIds ?? [],
            customData: request["customData"], credentials: request["credentials"]?.stringValue,
            credentialsType: request["credentialsType"]?.stringValue)
        session.liveWindow = configuration.liveWindow
        beginLoad(of: start, in: &session, requester: Requester(request), autoplay: start.autoplay,
                  position: startTime, initial: true)
        mediaSession = session
        log(.info, request.connection, "\(request.type) \(start.media.contentId) → media session \(session.mediaSessionId), \(items.count) item(s)")
        // §6.6: first IDLE with extendedStatus LOADING (requestId 0) ...
        broadcastMediaStatus(session, requestId: 0, parts: [.media, .loading])
        // ... then, once loaded, the status that answers the request.
        completeDueLoad()
    }

    /// Starts loading `item` as the current item of `session`.
    mutating func beginLoad(of item: QueueItem, in session: inout MediaSession, requester: Requester?, autoplay: Bool,
                            position: Double?, initial: Bool) {
        let behaviour = configuration.mediaLoadPolicy.behaviour(for: item.media)
        var item = item
        applyCatalogFacts(behaviour, to: &item.media)
        if item.media.streamType != .live, item.media.duration == nil {
            // A real player learns the length from the stream and reports it.
            item.media.duration = configuration.defaultMediaDuration
        }
        session.queue.replaceItem(item)
        session.bufferingPhases = behaviour.bufferingPhases.sorted { $0.position < $1.position }
        session.bufferingUntil = nil
        session.currentItemId = item.itemId
        session.playerState = .idle
        session.preloadedItemId = nil
        session.activeTrackIds = item.activeTrackIds ?? (initial ? session.activeTrackIds : [])
        session.liveOrigin = item.media.streamType == .live ? now : nil
        session.clock.setRunning(false, at: now, limit: nil)
        let readyAt: SimTime? = behaviour.outcome == .neverAnswer ? nil : now + max(0, behaviour.loadDelay)
        // Live media starts at the live edge unless the sender asked for a position.
        let start = position ?? (item.media.streamType == .live ? configuration.liveWindow : item.startTime)
        session.pendingLoad = PendingLoad(
            itemId: item.itemId, readyAt: readyAt, outcome: behaviour.outcome, requester: requester,
            autoplay: autoplay, startPosition: start, isInitial: initial)
    }

    /// What the simulated media really is wins over the sender's claims (length, live or
    /// not); what the sender left out (type, tracks, metadata) comes from the catalog.
    private func applyCatalogFacts(_ behaviour: MediaLoadBehaviour, to media: inout MediaInformation) {
        if let streamType = behaviour.streamType { media.streamType = streamType }
        if media.streamType == .live {
            media.duration = nil
        } else if let duration = behaviour.duration {
            media.duration = duration
        }
        if let contentType = behaviour.contentType, media.passthrough["contentType"] == nil {
            media.passthrough["contentType"] = .string(contentType)
        }
        if let metadata = behaviour.metadata, media.passthrough["metadata"] == nil || media.passthrough["metadata"] == [:] {
            media.passthrough["metadata"] = metadata
        }
        if let tracks = behaviour.tracks, media.tracks.isEmpty,
           let decoded = try? decodeTracks(tracks, path: "catalog.tracks") {
            media.tracks = decoded ?? []
        }
    }

    /// Finishes the current session's load if its time has come.
    mutating func completeDueLoad() {
        guard var session = mediaSession, let pending = session.pendingLoad,
              let readyAt = pending.readyAt, readyAt <= now else { return }
        session.pendingLoad = nil
        switch pending.outcome {
        case .play, .neverAnswer:
            session.clock.seek(to: session.clampedPosition(pending.startPosition, at: now), at: now)
            session.playerState = pending.autoplay ? .playing : .paused
            session.clock.setRunning(pending.autoplay, at: now, limit: session.endPosition(at: now))
            mediaSession = session
            let previous = activeRequester
            activeRequester = pending.requester ?? previous
            broadcastMediaStatus(session, requestId: pending.requester?.requestId ?? 0, parts: [.media, .items])
            activeRequester = previous
        case .fail(let code, let reason):
            if let requester = pending.requester {
                var failure: [String: JSONValue] = [
                    "type": "LOAD_FAILED", "requestId": .number(Double(requester.requestId)),
                    "itemId": .number(Double(pending.itemId)), "detailedErrorCode": .number(Double(code)),
                ]
                if let reason { failure["reason"] = .string(reason) }
                send(from: requester.localId, to: requester.senderId, on: requester.connection,
                     namespace: CastNamespace.media, .object(failure))
            }
            log(.info, pending.requester?.connection, "load of item \(pending.itemId) failed with detailedErrorCode \(code)")
            session.playerState = .idle
            mediaSession = nil
            broadcastMediaStatus(session, requestId: 0, idleReason: .error)
        }
    }

    /// Ends the current session (STOP, a newer load, an error, the last item removed): a
    /// pending load's requester gets LOAD_CANCELLED, every sender the final IDLE status,
    /// carrying `requestId` when a request caused it.
    mutating func endCurrentSession(reason: IdleReason, requestId: Int = 0) {
        guard var old = mediaSession else { return }
        cancelPendingLoad(of: old)
        old.pendingLoad = nil
        old.clock.setRunning(false, at: now, limit: old.endPosition(at: now))
        old.playerState = .idle
        mediaSession = nil
        broadcastMediaStatus(old, requestId: requestId, idleReason: reason)
    }

    /// Plays or pauses the current item from where it is; a stall ends.
    func settingPlaying(_ playing: Bool, _ session: MediaSession) -> MediaSession {
        var session = session
        session.playerState = playing ? .playing : .paused
        session.bufferingUntil = nil
        session.clock.setRunning(playing, at: now, limit: session.endPosition(at: now))
        return session
    }

    /// Tells the sender of a load that never finished that it was superseded.
    mutating func cancelPendingLoad(of session: MediaSession) {
        guard let pending = session.pendingLoad, let requester = pending.requester else { return }
        send(from: requester.localId, to: requester.senderId, on: requester.connection, namespace: CastNamespace.media,
             ["type": "LOAD_CANCELLED", "requestId": .number(Double(requester.requestId)), "itemId": .number(Double(pending.itemId))])
    }

    // MARK: Decoding

    struct DecodedQueueData {
        var items: [QueueItem]
        var startIndex: Int
        var repeatMode: RepeatMode?
        var startTime: Double?
    }

    private func decodeQueueData(_ data: [String: JSONValue]) throws(MediaRequestError) -> DecodedQueueData {
        try params { () throws(InvalidParams) in
            let items = try data["items"].map { json throws(InvalidParams) in
                try decodeItems(json, path: "queueData.items", allowItemId: true)
            } ?? []
            let startIndex = try optionalInt(data["startIndex"], path: "queueData.startIndex") ?? 0
            if !items.isEmpty, !items.indices.contains(startIndex) {
                throw InvalidParams("queueData.startIndex: \(startIndex) is outside the \(items.count) items")
            }
            let repeatMode = try data["repeatMode"].flatMap { $0.isNull ? nil : $0 }.map { json throws(InvalidParams) in
                try RepeatMode(json: json, path: "queueData.repeatMode")
            }
            var startTime: Double?
            if let value = data["startTime"], !value.isNull {
                guard let number = value.doubleValue, number >= 0 else {
                    throw InvalidParams("queueData.startTime: expected seconds >= 0, got \(value.jsonText())")
                }
                startTime = number
            }
            return DecodedQueueData(items: items, startIndex: startIndex, repeatMode: repeatMode, startTime: startTime)
        }
    }

    /// `queueData` as echoed in MEDIA_STATUS: what the sender sent, without the items
    /// (they are in `items`).
    private func queueDataEcho(_ data: [String: JSONValue]) -> JSONValue {
        var echo = data
        echo.removeValue(forKey: "items")
        return .object(echo)
    }

    private func queueDataEcho(_ data: JSONValue) -> JSONValue {
        data.objectValue.map(queueDataEcho) ?? data
    }
}

func decodeItems(_ json: JSONValue, path: String, allowItemId: Bool) throws(InvalidParams) -> [QueueItem] {
    guard let array = json.arrayValue else { throw InvalidParams("\(path): expected an array of queue items, got \(json.typeName)") }
    var items: [QueueItem] = []
    for (index, element) in array.enumerated() {
        items.append(try QueueItem(json: element, path: "\(path)[\(index)]", allowItemId: allowItemId))
    }
    return items
}

func optionalInt(_ value: JSONValue?, path: String) throws(InvalidParams) -> Int? {
    guard let value, !value.isNull else { return nil }
    guard let number = value.intValue else { throw InvalidParams("\(path): expected an integer, got \(value.typeName)") }
    return number
}
