import CastWire

// urn:x-cast:com.google.cast.media (§6) on a media receiver app's transport.

/// A media request that cannot be carried out, with the reply the protocol gives for it.
enum MediaRequestError: Error {
    /// INVALID_REQUEST with a `reason` (INVALID_PARAMS, INVALID_COMMAND, INVALID_MEDIA_SESSION_ID ...).
    case invalidRequest(reason: String, detail: String)
    /// INVALID_PLAYER_STATE: impossible in the current state (no session, still loading ...).
    case invalidPlayerState(detail: String)

    static func invalidParams(_ error: InvalidParams) -> MediaRequestError {
        .invalidRequest(reason: "INVALID_PARAMS", detail: error.description)
    }

    static func invalidParams(_ detail: String) -> MediaRequestError {
        .invalidRequest(reason: "INVALID_PARAMS", detail: detail)
    }
}

/// Runs a decoding step, turning a field error into INVALID_PARAMS.
func params<T>(_ body: () throws(InvalidParams) -> T) throws(MediaRequestError) -> T {
    do { return try body() } catch { throw .invalidParams(error) }
}

extension SimulatedDevice {
    /// The running app's media session, if any.
    var mediaSession: MediaSession? {
        get { runningApp?.media?.session }
        set { runningApp?.media?.session = newValue }
    }

    mutating func handleMediaNamespace(_ decoded: Result<Request, Request.Malformed>, _ envelope: CastEnvelope,
                                 on connection: ConnectionID) {
        let request: Request
        switch decoded {
        case .success(let decoded):
            request = decoded
        case .failure(let malformed):
            log(.info, connection, "media: \(malformed) → INVALID_REQUEST")
            reply(to: envelope, on: connection, ["type": "INVALID_REQUEST", "requestId": 0, "reason": "INVALID_COMMAND"])
            return
        }
        do {
            try dispatchMediaRequest(request)
        } catch {
            replyMediaError(error, to: request)
        }
    }

    private mutating func dispatchMediaRequest(_ request: Request) throws(MediaRequestError) {
        switch request.type {
        case "GET_STATUS": try handleMediaGetStatus(request)
        case "LOAD": try handleLoad(request)
        case "QUEUE_LOAD": try handleQueueLoad(request)
        case "PLAY": try handlePlay(request)
        case "PAUSE": try handlePause(request)
        case "SEEK": try handleSeek(request)
        case "STOP": try handleMediaStop(request)
        case "SET_VOLUME": try handleStreamVolume(request)
        case "SET_PLAYBACK_RATE": try handleSetPlaybackRate(request)
        case "EDIT_TRACKS_INFO": try handleEditTracksInfo(request)
        case "EDIT_AUDIO_TRACKS": try handleEditAudioTracks(request)
        case "QUEUE_INSERT": try handleQueueInsert(request)
        case "QUEUE_UPDATE": try handleQueueUpdate(request)
        case "QUEUE_REMOVE": try handleQueueRemove(request)
        case "QUEUE_REORDER": try handleQueueReorder(request)
        case "QUEUE_NEXT": try handleQueueJump(request, by: 1)
        case "QUEUE_PREV": try handleQueueJump(request, by: -1)
        case "QUEUE_SHUFFLE": try handleQueueShuffle(request)
        case "QUEUE_GET_ITEM_IDS": try handleQueueGetItemIds(request)
        case "QUEUE_GET_ITEMS": try handleQueueGetItems(request)
        case "QUEUE_GET_ITEM_RANGE": try handleQueueGetItemRange(request)
        default:
            throw .invalidRequest(reason: "INVALID_COMMAND", detail: "unsupported media request type \"\(request.type)\"")
        }
    }

    mutating func replyMediaError(_ error: MediaRequestError, to request: Request) {
        let requestId = JSONValue.number(Double(request.requestId))
        switch error {
        case .invalidRequest(let reason, let detail):
            log(.info, request.connection, "media \(request.type): \(detail) → INVALID_REQUEST \(reason)")
            reply(to: request.envelope, on: request.connection,
                  ["type": "INVALID_REQUEST", "requestId": requestId, "reason": .string(reason)])
        case .invalidPlayerState(let detail):
            log(.info, request.connection, "media \(request.type): \(detail) → INVALID_PLAYER_STATE")
            reply(to: request.envelope, on: request.connection, ["type": "INVALID_PLAYER_STATE", "requestId": requestId])
        }
    }

    /// The session a command addresses: the current one, when `mediaSessionId` is absent
    /// or names it.
    func addressedSession(_ request: Request) throws(MediaRequestError) -> MediaSession {
        let requested = try params { () throws(InvalidParams) in try request.int("mediaSessionId") }
        guard let session = mediaSession else {
            throw .invalidPlayerState(detail: "no media session")
        }
        if let requested, requested != session.mediaSessionId {
            throw .invalidRequest(reason: "INVALID_MEDIA_SESSION_ID",
                                  detail: "mediaSessionId \(requested) is not the current session \(session.mediaSessionId)")
        }
        return session
    }

    /// A session that is playing or paused, not still loading its item.
    func controllableSession(_ request: Request) throws(MediaRequestError) -> MediaSession {
        let session = try addressedSession(request)
        if session.pendingLoad != nil {
            throw .invalidPlayerState(detail: "item \(session.currentItemId) is still loading")
        }
        return session
    }

    // MARK: Status

    private mutating func handleMediaGetStatus(_ request: Request) throws(MediaRequestError) {
        guard mediaSession != nil else {
            // `status: []` when there is no session, unicast.
            reply(to: request.envelope, on: request.connection, mediaStatusMessage(requestId: request.requestId, entries: []))
            return
        }
        let session = try addressedSession(request)
        // options: 1 = NO_METADATA, 2 = NO_QUEUE_ITEMS.
        let options = try params { () throws(InvalidParams) in try request.int("options") } ?? 0
        var parts: MediaStatusParts = [.media, .items, .loading]
        if options & 1 != 0 { parts.insert(.noMetadata) }
        if options & 2 != 0 { parts.remove(.items) }
        // Unicast, with the live position and everything that fits.
        reply(to: request.envelope, on: request.connection,
              fittingMediaStatusMessage(session, requestId: request.requestId, parts: parts, idleReason: nil))
    }

    // MARK: Playback

    private mutating func handlePlay(_ request: Request) throws(MediaRequestError) {
        var session = try controllableSession(request)
        // A live stream paused behind its window resumes at the window's start.
        let position = session.clampedPosition(session.currentTime(at: now), at: now)
        session.clock.seek(to: position, at: now)
        session = settingPlaying(true, session)
        mediaSession = session
        broadcastMediaStatus(session, requestId: request.requestId)
    }

    private mutating func handlePause(_ request: Request) throws(MediaRequestError) {
        let session = settingPlaying(false, try controllableSession(request))
        mediaSession = session
        broadcastMediaStatus(session, requestId: request.requestId)
    }

    private mutating func handleSeek(_ request: Request) throws(MediaRequestError) {
        var session = try controllableSession(request)
        let (absolute, relative, resumeState) = try params { () throws(InvalidParams) in
            (try request.double("currentTime"), try request.double("relativeTime"), try request.string("resumeState"))
        }
        let current = session.currentTime(at: now)
        // relativeTime takes precedence when present.
        guard let target = relative.map({ current + $0 }) ?? absolute else {
            throw .invalidParams("SEEK needs currentTime or relativeTime")
        }
        let running: Bool
        switch resumeState {
        case "PLAYBACK_START": running = true
        case "PLAYBACK_PAUSE": running = false
        case nil, "": running = session.playerState != .paused  // go-chromecast sends "": keep the state
        case let other?:
            throw .invalidParams("resumeState: expected PLAYBACK_START or PLAYBACK_PAUSE, got \"\(other)\"")
        }
        // Clamped to the item (or the live window): Android seeks to 4294967296 for "live edge".
        session.clock.seek(to: session.clampedPosition(target, at: now), at: now)
        session = settingPlaying(running, session)
        session.preloadedItemId = nil
        mediaSession = session
        broadcastMediaStatus(session, requestId: request.requestId)
    }

    private mutating func handleMediaStop(_ request: Request) throws(MediaRequestError) {
        _ = try addressedSession(request)
        endCurrentSession(reason: .cancelled, requestId: request.requestId)
    }

    private mutating func handleStreamVolume(_ request: Request) throws(MediaRequestError) {
        var session = try addressedSession(request)
        session.streamVolume = try params { () throws(InvalidParams) in try volumeChange(from: request, current: session.streamVolume) }
        mediaSession = session
        broadcastMediaStatus(session, requestId: request.requestId)
    }

    private mutating func handleSetPlaybackRate(_ request: Request) throws(MediaRequestError) {
        var session = try addressedSession(request)
        let (absolute, relative) = try params { () throws(InvalidParams) in
            (try request.double("playbackRate"), try request.double("relativePlaybackRate"))
        }
        guard let rate = absolute ?? relative.map({ session.clock.rate * $0 }) else {
            throw .invalidParams("SET_PLAYBACK_RATE needs playbackRate or relativePlaybackRate")
        }
        let range = configuration.playbackRateRange
        guard range.contains(rate) else {
            throw .invalidParams("playbackRate \(rate) outside \(range.lowerBound)...\(range.upperBound)")
        }
        session.clock.setRate(rate, at: now, limit: session.endPosition(at: now))
        mediaSession = session
        broadcastMediaStatus(session, requestId: request.requestId)
    }

    /// The app is going away: its session ends without a status (senders get CLOSE).
    mutating func endMediaSessionForAppStop() {
        if let session = mediaSession { cancelPendingLoad(of: session) }
        mediaSession = nil
    }
}
