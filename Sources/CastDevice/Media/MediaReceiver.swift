import CastWire

/// Settings of a media receiver, fixed when its app launches.
package struct MediaSettings: Sendable {
    let catalog: MediaCatalog
    let defaultMediaDuration: Double
    let liveWindow: Double
    let playbackRateRange: ClosedRange<Double>
    /// What the app allows at most (`supportedMediaCommands` is within it).
    let allowedCommands: MediaCommands
    /// What the device decodes (its profile's); nil: anything.
    let mediaSupport: MediaSupport?
    /// Whether the device shows pictures (a speaker reports no `videoInfo`).
    let supportsVideo: Bool

    package init(_ launch: AppLaunch) {
        catalog = launch.configuration.mediaCatalog
        defaultMediaDuration = launch.configuration.defaultMediaDuration
        liveWindow = launch.configuration.liveWindow
        playbackRateRange = launch.configuration.playbackRateRange
        allowedCommands = launch.definition.allowedMediaCommands
        mediaSupport = launch.configuration.mediaSupport
        supportsVideo = launch.configuration.identity.supportsVideo
    }

    /// MediaStatus `videoInfo` of a video item on a device with a picture (media.md §4.1):
    /// its size and HDR type as the media catalog's `video` facts say, else the largest
    /// picture the device shows up to 1080p, SDR. The Android SDK needs all three keys and
    /// integer sizes. Nil for audio, or on a speaker.
    func videoInfo(contentType: String?, facts: MediaSupport.Facts?) -> JSONValue? {
        guard supportsVideo, facts?.width != nil || contentType?.lowercased().hasPrefix("video/") == true else { return nil }
        let width = facts?.width ?? min(1920, mediaSupport?.maxWidth ?? 1920)
        let height = facts?.height ?? min(1080, mediaSupport?.maxHeight ?? 1080)
        let hdrType = switch facts?.hdr {
        case "dolby-vision"?: "dv"
        case nil: "sdr"
        default: "hdr"
        }
        return ["width": .number(Double(width)), "height": .number(Double(height)), "hdrType": .string(hdrType)]
    }

    /// The one check of a playback rate, for LOAD's `playbackRate` and SET_PLAYBACK_RATE.
    func checkRate(_ rate: Double) throws(RequestRejection) {
        guard playbackRateRange.contains(rate) else {
            throw .invalidParams("playbackRate \(NumberText.format(rate)) outside \(NumberText.format(playbackRateRange.lowerBound))...\(NumberText.format(playbackRateRange.upperBound))")
        }
    }
}

/// The media receiver of a media app: urn:x-cast:com.google.cast.media (docs/protocol/media.md)
/// on the app's transport id, and the simulated player behind it. The Default Media Receiver is
/// one; an app with a namespace of its own beside the media one wraps one.
package struct MediaReceiver: Sendable {
    let settings: MediaSettings
    /// What the player is doing; `.idle` is "no media session".
    var phase: PlayerPhase = .idle

    package init(_ settings: MediaSettings) { self.settings = settings }

    /// A message on the media namespace: decoded once into a ``MediaCommand``, then handled;
    /// a refusal gets the protocol's error reply, with the request's id.
    package mutating func receive(_ message: AppMessage, context: inout AppContext) {
        let header: RequestHeader
        switch RequestHeader.read(message.payload, of: message.envelope) {
        case .success(let read):
            header = read.withStandardMediaType
        case .failure(let malformed):
            context.reject(malformed.rejection, type: nil, namespace: CastNamespace.media, label: "media",
                           to: message.requester(requestId: malformed.requestId ?? 0))
            return
        }
        let requester = message.requester(requestId: header.answerId)
        do {
            try handle(try MediaCommand(header), from: requester, context: &context)
        } catch {
            context.reject(error, type: header.type, namespace: CastNamespace.media, label: "media", to: requester)
        }
    }

    private mutating func handle(_ command: MediaCommand, from requester: Requester, context: inout AppContext)
        throws(RequestRejection)
    {
        switch command.sessionNeed {
        case .none: break
        case .addressedIfAny: if phase.session != nil { _ = try addressedSession(command) }
        case .addressed: _ = try addressedSession(command)
        case .controllable: _ = try controllableSession(command)
        }
        switch try command.request.get() {
        case .getStatus(let options): try getStatus(command, options: options, from: requester, context: &context)
        case .load(let load): try startSession(load.start, command, from: requester, context: &context)
        case .queueLoad(let load): try startSession(load.start, command, from: requester, context: &context)
        case .play: try play(command, from: requester, context: &context)
        case .pause: try pause(command, from: requester, context: &context)
        case .stop:
            _ = try addressedSession(command)
            endSession(reason: .cancelled, answering: requester, context: &context)
        case .seek(let request): try seek(request, command, from: requester, context: &context)
        case .setVolume(let change): try setStreamVolume(change, command, from: requester, context: &context)
        case .setPlaybackRate(let absolute, let relative):
            try setPlaybackRate(absolute: absolute, relative: relative, command, from: requester, context: &context)
        case .editTracksInfo(let edit): try editTracksInfo(edit, command, from: requester, context: &context)
        case .editAudioTracks(let language): try editAudioTracks(language: language, command, from: requester, context: &context)
        case .queueInsert(let insert): try queueInsert(insert, command, from: requester, context: &context)
        case .queueUpdate(let update): try queueUpdate(update, command, from: requester, context: &context)
        case .queueRemove(let itemIds, let currentItemId, let currentTime):
            try queueRemove(itemIds, currentItemId: currentItemId, currentTime: currentTime, command, from: requester,
                            context: &context)
        case .queueReorder(let reorder): try queueReorder(reorder, command, from: requester, context: &context)
        case .queueJump(let offset): try queueJump(by: offset, command, from: requester, context: &context)
        case .queueShuffle: try queueShuffle(command, from: requester, context: &context)
        case .queueGetItemIds: try queueGetItemIds(command, from: requester, context: &context)
        case .queueGetItems(let itemIds): try queueGetItems(itemIds, command, from: requester, context: &context)
        case .queueGetItemRange(let itemId, let nextCount, let prevCount):
            try queueGetItemRange(itemId: itemId, nextCount: nextCount, prevCount: prevCount, command, from: requester,
                                  context: &context)
        case .storeSession: try storeSession(command, from: requester, context: &context)
        case .skipAd: try skipAd(command, from: requester, context: &context)
        case .resumeSession(let load): try startSession(load.start, command, from: requester, context: &context)
        case .userAction(let action): try userAction(action, command, from: requester, context: &context)
        case .setCredentials(let credentials): try setCredentials(credentials, command, from: requester, context: &context)
        case .displayStatus: try getStatus(command, options: 0, from: requester, context: &context)
        case .focusState(let inFocus):
            // No reply (media.md §2.3); the player keeps playing.
            context.log(.info, requester.connection, "FOCUS_STATE \(inFocus ? "IN_FOCUS" : "NOT_IN_FOCUS")")
        case .precache:
            // No reply: the Android SDK registers no response for it.
            context.log(.info, requester.connection, "PRECACHE: nothing to fetch ahead on a simulated player")
        case .preload(let itemId): try preload(itemId, command, from: requester, context: &context)
        case .customCommand:
            // An app's own: a scenario rule answers it as the app would.
            throw RequestRejection(reply: .error(.notSupported), detail: "CUSTOM_COMMAND: no app command here (a scenario rule can answer it)")
        case .loadByEntity:
            throw RequestRejection(reply: .error(.notSupported), detail: "LOAD_BY_ENTITY: castsim resolves no entities")
        }
    }

    // MARK: Sessions and phases

    /// The session a command addresses: the current one, when `mediaSessionId` is absent
    /// or names it.
    func addressedSession(_ command: MediaCommand) throws(RequestRejection) -> MediaSession {
        guard let session = phase.session else { throw .invalidPlayerState("no media session") }
        if let requested = command.mediaSessionId, requested != session.mediaSessionId {
            throw .invalidRequest(.invalidMediaSessionId,
                                  "mediaSessionId \(requested) is not the current session \(session.mediaSessionId)")
        }
        return session
    }

    /// A session that is playing, paused or buffering, not still loading its item.
    func controllableSession(_ command: MediaCommand) throws(RequestRejection) -> MediaSession {
        let session = try addressedSession(command)
        if let load = phase.load { throw .invalidPlayerState("item \(load.itemId) is still loading") }
        return session
    }

    /// Moves the player to `next`, raising playerStateChanged when the phase changes.
    mutating func enter(_ next: PlayerPhase, context: inout AppContext) {
        let from = phase.name
        let mediaSessionId = next.session?.mediaSessionId ?? phase.session?.mediaSessionId
        phase = next
        // A break's clip moves only while the player plays.
        if phase.isInBreak {
            let playing = phase.name == .playing, now = context.now
            _ = try? phase.updateSession { session throws(RequestRejection) in session.inBreak?.follow(playing: playing, at: now) }
        }
        if from != next.name, let mediaSessionId {
            context.raise(.playerStateChanged(mediaSessionId: mediaSessionId, from: from, to: next.name))
        }
    }

    /// Sets the active tracks, raising the event when they change.
    func setActiveTracks(_ trackIds: [Int], in session: inout MediaSession, context: inout AppContext) {
        guard trackIds != session.activeTrackIds else { return }
        session.activeTrackIds = trackIds
        context.raise(.activeTracksChanged(mediaSessionId: session.mediaSessionId, trackIds: trackIds))
    }

    // MARK: Time

    package func nextDeadline(now: SimTime) -> SimTime? { nextEvent(now: now)?.time }

    // MARK: Operator inputs

    package mutating func apply(_ input: AppInput, context: inout AppContext) {
        switch input {
        case .buffer(let seconds):
            startBuffering(for: seconds, context: &context)
        case .adBreak(let input):
            applyBreakInput(input, context: &context)
        case .resumeSession(let state):
            resumeSession(state, context: &context)
        case .playerError(let code):
            guard let session = phase.session else { return }
            context.log(.info, nil, "player error\(code.map { " \($0)" } ?? "") ends media session \(session.mediaSessionId)")
            if case .loading(let session, let load) = phase {
                // The load it interrupts failed: its sender hears LOAD_FAILED, not LOAD_CANCELLED
                // (which says a newer load took its place); 905 is CAF's generic load failure.
                failLoad(load, of: session, detailedErrorCode: code ?? 905, reason: nil, context: &context)
            } else {
                endSession(reason: .error, answering: nil, context: &context)
            }
        case .remote(let key):
            guard let session = phase.session, phase.load == nil else { return }
            switch key {
            case .play:
                enter(.playing(session, .init(position: phase.currentTime(at: context.now), since: context.now)), context: &context)
                broadcastStatus(answering: nil, context: &context)
            case .pause:
                enter(.paused(session, position: phase.currentTime(at: context.now)), context: &context)
                broadcastStatus(answering: nil, context: &context)
            case .stop:
                endSession(reason: .cancelled, answering: nil, context: &context)
            case .next, .previous:
                // Past either end the key does nothing, as a device's remote.
                guard let item = session.queue.item(from: session.currentItemId, offset: key == .next ? 1 : -1) else { return }
                finishQueueCommand(nil, session: session, jumpTo: item.itemId, position: nil, context: &context)
            }
        case .action, .streaming:
            // An app's own actions are the app's: a plain media receiver has none, and streams nothing.
            break
        }
    }

    /// The app is going away: its session ends without a status (senders get CLOSE), and
    /// a pending load's requester gets LOAD_CANCELLED.
    package mutating func stop(context: inout AppContext) {
        guard let session = phase.session else { return }
        if let load = phase.load { cancel(load, context: &context) }
        enter(.idle, context: &context)
        if session.hasStarted {
            context.raise(.mediaSessionEnded(mediaSessionId: session.mediaSessionId, reason: .interrupted))
        }
    }
}
