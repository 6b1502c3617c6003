import CastWire

// urn:x-cast:com.google.cast.media (§6) on a media receiver app's transport.

/// A media request that cannot be carried out, with the reply the protocol gives for it.
enum MediaRequestError: Error {
    /// INVALID_REQUEST with a `reason` (INVALID_PARAMS, INVALID_COMMAND, INVALID_MEDIA_SESSION_ID ...).
    case invalidRequest(reason: String, detail: String)
    /// INVALID_PLAYER_STATE: impossible in the current state (no session, idle ...).
    case invalidPlayerState(detail: String)

    static func invalidParams(_ error: InvalidParams) -> MediaRequestError {
        .invalidRequest(reason: "INVALID_PARAMS", detail: error.description)
    }
}

extension SimulatedDevice {
    /// The running app's media session, if any.
    var mediaSession: MediaSession? {
        get { runningApp?.media?.session }
        set { runningApp?.media?.session = newValue }
    }

    mutating func handleMediaNamespace(_ envelope: CastEnvelope, on connection: ConnectionID) {
        let request: Request
        switch Request.decode(envelope, on: connection) {
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
        case "PLAY": try handlePlay(request)
        case "PAUSE": try handlePause(request)
        case "SEEK": try handleSeek(request)
        case "STOP": try handleMediaStop(request)
        case "SET_VOLUME": try handleStreamVolume(request)
        case "SET_PLAYBACK_RATE": try handleSetPlaybackRate(request)
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
        let requested: Int?
        do { requested = try request.int("mediaSessionId") } catch { throw .invalidParams(error) }
        guard let session = mediaSession else {
            throw .invalidPlayerState(detail: "no media session")
        }
        if let requested, requested != session.mediaSessionId {
            throw .invalidRequest(reason: "INVALID_MEDIA_SESSION_ID",
                                  detail: "mediaSessionId \(requested) is not the current session \(session.mediaSessionId)")
        }
        return session
    }

    // MARK: Requests

    private mutating func handleMediaGetStatus(_ request: Request) throws(MediaRequestError) {
        let entries: [JSONValue] = []
        if let session = mediaSession {
            if let requested = try? request.int("mediaSessionId"), requested != session.mediaSessionId {
                throw .invalidRequest(reason: "INVALID_MEDIA_SESSION_ID",
                                      detail: "mediaSessionId \(requested) is not the current session \(session.mediaSessionId)")
            }
            // Unicast, with the live position and everything that fits.
            reply(to: request.envelope, on: request.connection,
                  fittingMediaStatusMessage(session, requestId: request.requestId, parts: [.media, .items], idleReason: nil))
            return
        }
        // `status: []` when there is no session.
        reply(to: request.envelope, on: request.connection, mediaStatusMessage(requestId: request.requestId, entries: entries))
    }

    private mutating func handleLoad(_ request: Request) throws(MediaRequestError) {
        guard let mediaJSON = request["media"] else {
            throw .invalidRequest(reason: "INVALID_PARAMS", detail: "LOAD without media")
        }
        let media: MediaInformation
        let startTime: Double?
        let activeTrackIds: [Int]?
        let rate: Double?
        do {
            media = try MediaInformation(json: mediaJSON, path: "media")
            startTime = try request.double("currentTime")
            activeTrackIds = try request.intArray("activeTrackIds")
            rate = try request.double("playbackRate")
        } catch {
            throw .invalidParams(error)
        }
        if let rate, !configuration.playbackRateRange.contains(rate) {
            throw .invalidRequest(reason: "INVALID_PARAMS", detail: "playbackRate \(rate) outside \(configuration.playbackRateRange)")
        }
        // VLC sends "autoplay":"false" as a string and expects playback to start anyway:
        // only the JSON boolean false holds the player paused.
        let autoplay = request["autoplay"] != .bool(false)

        var loaded = media
        if loaded.duration == nil, loaded.streamType != .live {
            // A real player learns the duration from the stream and reports it.
            loaded.duration = configuration.defaultMediaDuration
        }
        let item = QueueItem(itemId: 1, media: loaded, autoplay: autoplay, startTime: startTime ?? 0,
                             activeTrackIds: activeTrackIds, customData: nil)
        interruptCurrentSession()

        lastMediaSessionId += 1
        let start = (startTime ?? 0).clamped(to: 0...(loaded.duration ?? .greatestFiniteMagnitude))
        var session = MediaSession(
            mediaSessionId: lastMediaSessionId, items: [item], currentItemId: item.itemId, playerState: .idle,
            clock: PlayerClock(position: start, at: now, rate: rate ?? 1, running: false),
            streamVolume: Volume(level: 1, muted: false), activeTrackIds: activeTrackIds ?? [],
            customData: request["customData"],
            credentials: request["credentials"]?.stringValue, credentialsType: request["credentialsType"]?.stringValue)

        // §6.6: first IDLE with extendedStatus LOADING (requestId 0), then the status that
        // answers the LOAD, now PLAYING or PAUSED.
        broadcastMediaStatus(session, requestId: 0, parts: [.media, .loading])
        session.playerState = autoplay ? .playing : .paused
        session.clock.setRunning(autoplay, at: now, limit: session.effectiveDuration)
        mediaSession = session
        broadcastMediaStatus(session, requestId: request.requestId, parts: [.media, .items])
        log(.info, request.connection, "LOAD \(loaded.contentId) → session \(session.mediaSessionId) \(session.playerState.rawValue)")
    }

    /// A newer LOAD ends the current session with IDLE/INTERRUPTED.
    private mutating func interruptCurrentSession() {
        guard var old = mediaSession else { return }
        old.clock.setRunning(false, at: now, limit: old.effectiveDuration)
        old.playerState = .idle
        broadcastMediaStatus(old, requestId: 0, idleReason: .interrupted)
        mediaSession = nil
    }

    private mutating func handlePlay(_ request: Request) throws(MediaRequestError) {
        var session = try addressedSession(request)
        session.playerState = .playing
        session.clock.setRunning(true, at: now, limit: session.effectiveDuration)
        mediaSession = session
        broadcastMediaStatus(session, requestId: request.requestId)
    }

    private mutating func handlePause(_ request: Request) throws(MediaRequestError) {
        var session = try addressedSession(request)
        session.playerState = .paused
        session.clock.setRunning(false, at: now, limit: session.effectiveDuration)
        mediaSession = session
        broadcastMediaStatus(session, requestId: request.requestId)
    }

    private mutating func handleSeek(_ request: Request) throws(MediaRequestError) {
        var session = try addressedSession(request)
        let absolute: Double?
        let relative: Double?
        let resumeState: String?
        do {
            absolute = try request.double("currentTime")
            relative = try request.double("relativeTime")
            resumeState = try request.string("resumeState")
        } catch {
            throw .invalidParams(error)
        }
        let current = session.currentTime(at: now)
        // relativeTime takes precedence when present.
        guard let target = relative.map({ current + $0 }) ?? absolute else {
            throw .invalidRequest(reason: "INVALID_PARAMS", detail: "SEEK needs currentTime or relativeTime")
        }
        let clamped = target.clamped(to: 0...(session.effectiveDuration ?? .greatestFiniteMagnitude))
        session.clock.seek(to: clamped, at: now)
        switch resumeState {
        case "PLAYBACK_START":
            session.playerState = .playing
            session.clock.setRunning(true, at: now, limit: session.effectiveDuration)
        case "PLAYBACK_PAUSE":
            session.playerState = .paused
            session.clock.setRunning(false, at: now, limit: session.effectiveDuration)
        case nil, "":
            break  // go-chromecast sends "" meaning "keep the current state"
        case let other?:
            throw .invalidRequest(reason: "INVALID_PARAMS",
                                  detail: "resumeState: expected PLAYBACK_START or PLAYBACK_PAUSE, got \"\(other)\"")
        }
        mediaSession = session
        broadcastMediaStatus(session, requestId: request.requestId)
    }

    private mutating func handleMediaStop(_ request: Request) throws(MediaRequestError) {
        var session = try addressedSession(request)
        session.clock.setRunning(false, at: now, limit: session.effectiveDuration)
        session.playerState = .idle
        mediaSession = nil
        broadcastMediaStatus(session, requestId: request.requestId, idleReason: .cancelled)
    }

    private mutating func handleStreamVolume(_ request: Request) throws(MediaRequestError) {
        var session = try addressedSession(request)
        do {
            session.streamVolume = try volumeChange(from: request, current: session.streamVolume)
        } catch {
            throw .invalidParams(error)
        }
        mediaSession = session
        broadcastMediaStatus(session, requestId: request.requestId)
    }

    private mutating func handleSetPlaybackRate(_ request: Request) throws(MediaRequestError) {
        var session = try addressedSession(request)
        let absolute: Double?
        let relative: Double?
        do {
            absolute = try request.double("playbackRate")
            relative = try request.double("relativePlaybackRate")
        } catch {
            throw .invalidParams(error)
        }
        guard let rate = absolute ?? relative.map({ session.clock.rate * $0 }) else {
            throw .invalidRequest(reason: "INVALID_PARAMS", detail: "SET_PLAYBACK_RATE needs playbackRate or relativePlaybackRate")
        }
        guard configuration.playbackRateRange.contains(rate) else {
            throw .invalidRequest(reason: "INVALID_PARAMS",
                                  detail: "playbackRate \(rate) outside \(configuration.playbackRateRange.lowerBound)...\(configuration.playbackRateRange.upperBound)")
        }
        session.clock.setRate(rate, at: now, limit: session.effectiveDuration)
        mediaSession = session
        broadcastMediaStatus(session, requestId: request.requestId)
    }

    // MARK: Time

    /// When the current item reaches its end, if it is playing towards one.
    var mediaDeadline: SimTime? {
        guard let session = mediaSession, session.playerState == .playing, let duration = session.effectiveDuration else {
            return nil
        }
        return session.clock.time(reaching: duration)
    }

    /// Ends the item that reached its duration with IDLE/FINISHED.
    mutating func advanceMedia() {
        guard let deadline = mediaDeadline, deadline <= now, var session = mediaSession else { return }
        session.clock.setRunning(false, at: now, limit: session.effectiveDuration)
        session.playerState = .idle
        mediaSession = nil
        broadcastMediaStatus(session, requestId: 0, idleReason: .finished)
    }

    /// The app is going away: its session ends without a status (senders get CLOSE).
    mutating func endMediaSessionForAppStop() {
        mediaSession = nil
    }
}
