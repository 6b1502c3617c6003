import CastWire

// LOAD and QUEUE_LOAD (docs/protocol/media.md §2.1), and the life of a load: IDLE + LOADING,
// then PLAYING or PAUSED with the request's id; or LOAD_FAILED, or LOAD_CANCELLED when
// superseded (media.md §6).

extension MediaReceiver {
    /// Replaces whatever plays with a new session over the load's items, and starts the
    /// load of its start item.
    mutating func startSession(_ start: SessionStart, _ command: MediaCommand, from requester: Requester,
                               context: inout AppContext) throws(RequestRejection) {
        try startSession(start, label: command.type, from: requester, context: &context)
    }

    /// The same, for a load no sender asked for (a session moved here): `label` names it in the log.
    mutating func startSession(_ start: SessionStart, label: String, from requester: Requester?,
                               context: inout AppContext) throws(RequestRejection) {
        if let rate = start.playbackRate { try settings.checkRate(rate) }
        endSession(reason: .interrupted, answering: nil, context: &context)

        let queue = MediaQueue(items: start.items, repeatMode: start.repeatMode, queueData: start.queueData)
        let first = queue.items[start.startIndex]
        let session = MediaSession(
            mediaSessionId: context.nextMediaSessionId(), queue: queue, currentItemId: first.itemId,
            playbackRate: start.playbackRate ?? 1, streamVolume: Volume(level: 1, muted: false),
            activeTrackIds: first.activeTrackIds ?? [], customData: start.customData, credentials: start.credentials,
            credentialsType: start.credentialsType, liveWindow: settings.liveWindow, withheldCommands: start.withheldCommands)
        beginLoad(of: first, in: session, requester: requester, autoplay: first.autoplay, position: start.startTime,
                  initial: true, outcome: start.outcome, context: &context)
        context.log(.info, requester?.connection,
                    "\(label) \(first.media.contentId) → media session \(session.mediaSessionId), \(start.items.count) item(s)")
        // media.md §6.1: first IDLE with extendedStatus LOADING (requestId 0) ...
        broadcastStatus(answering: nil, parts: [.media, .loading], context: &context)
        // ... then, once loaded, the status that answers the request.
        completeDueLoad(context: &context)
    }

    /// Starts loading `item` as the current item of `session`: the player enters `loading`.
    mutating func beginLoad(of item: QueueItem, in session: MediaSession, requester: Requester?, autoplay: Bool,
                            position: Double?, initial: Bool, outcome: MediaLoadBehaviour.Outcome? = nil,
                            context: inout AppContext) {
        let now = context.now
        var session = session
        var item = item
        let behaviour = settings.catalog.behaviour(for: item.media.contentId)
        applyCatalogFacts(behaviour, to: &item.media)
        if item.media.streamType != .live, item.media.duration == nil {
            // A real player learns the length from the stream and reports it.
            item.media.duration = settings.defaultMediaDuration
        }
        session.queue.replaceItem(item)
        session.userActions = behaviour.userActions
        session.adBreaks = AdBreaks(item.media)
        session.videoInfo = settings.videoInfo(contentType: behaviour.contentType ?? item.media.passthrough["contentType"]?.stringValue,
                                               facts: behaviour.video)
        session.inBreak = nil
        session.stallsAhead = behaviour.bufferingPhases.sorted { $0.position < $1.position }
        session.currentItemId = item.itemId
        session.preloadedItemId = nil
        setActiveTracks(item.activeTrackIds ?? (initial ? session.activeTrackIds : []), in: &session, context: &context)
        session.liveOrigin = item.media.streamType == .live ? now : nil
        var outcome = outcome ?? behaviour.outcome
        // Media the device cannot decode fails as it does there (profiles.md, media).
        if outcome == .play, let support = settings.mediaSupport,
           let refusal = support.refusal(contentType: behaviour.contentType ?? item.media.passthrough["contentType"]?.stringValue,
                                         facts: behaviour.video) {
            context.log(.info, requester?.connection, "\(item.media.contentId) cannot play here: \(refusal)")
            outcome = .fail(detailedErrorCode: 104, reason: nil)
        }
        let readyAt: SimTime? = outcome == .neverAnswer ? nil : now + max(0, behaviour.loadDelay)
        // Live media starts at the live edge unless the sender asked for a position.
        let start = position ?? (item.media.streamType == .live ? settings.liveWindow : item.startTime)
        let load = PlayerPhase.Load(
            itemId: item.itemId, readyAt: readyAt, outcome: outcome, requester: requester, autoplay: autoplay,
            startPosition: start, isInitial: initial, heldPosition: initial ? 0 : phase.currentTime(at: now))
        enter(.loading(session, load), context: &context)
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
        // Breaks the receiver inserts (server-side ad decisions), unless the sender sent its own.
        if let breaks = behaviour.breaks, media.passthrough["breaks"] == nil {
            media.passthrough["breaks"] = breaks
            media.passthrough["breakClips"] = behaviour.breakClips ?? []
        }
        // Checked when the catalog was made.
        if let tracks = behaviour.tracks, media.tracks.isEmpty,
           let decoded = try? Track.decodeList(JSONReader(tracks, nullIsAbsent: true)) {
            media.tracks = decoded
        }
    }

    /// Finishes the load in progress if its time has come: the item plays (or waits
    /// paused) and the status answers whoever asked; or the load fails.
    mutating func completeDueLoad(context: inout AppContext) {
        guard case .loading(var session, let load) = phase, let readyAt = load.readyAt, readyAt <= context.now else { return }
        let now = context.now
        switch load.outcome {
        case .play, .neverAnswer:
            let position = session.clampedPosition(load.startPosition, at: now)
            let previous = session.loadedItemId
            session.loadedItemId = load.itemId
            enter(load.autoplay ? .playing(session, .init(position: position, since: now)) : .paused(session, position: position),
                  context: &context)
            // A pre-roll (or the last break before a start position) plays first.
            if let due = session.adBreaks?.due(from: nil, to: position) { beginBreak(due, resumeAt: position, context: &context) }
            if previous == nil {
                context.raise(.mediaSessionStarted(mediaSessionId: session.mediaSessionId, itemId: load.itemId))
            } else if previous != load.itemId {
                context.raise(.itemChanged(mediaSessionId: session.mediaSessionId, itemId: load.itemId))
            }
            broadcastStatus(answering: load.requester, parts: [.media, .items], context: &context)
        case .fail(let code, let reason):
            failLoad(load, of: session, detailedErrorCode: code, reason: reason, context: &context)
        }
    }

    /// The load in progress fails (its outcome, or a player error before it finished):
    /// LOAD_FAILED to whoever asked, then the final IDLE/ERROR to every sender.
    mutating func failLoad(_ load: PlayerPhase.Load, of session: MediaSession, detailedErrorCode code: Int, reason: String?,
                           context: inout AppContext) {
        if let requester = load.requester {
            var failure: [String: JSONValue] = [
                "type": "LOAD_FAILED", "requestId": .number(Double(requester.requestId)),
                "itemId": .number(Double(load.itemId)), "detailedErrorCode": .number(Double(code)),
            ]
            if let reason { failure["reason"] = .string(reason) }
            context.send(JSONPayload(.object(failure)), namespace: CastNamespace.media, to: requester)
        }
        context.log(.info, load.requester?.connection, "load of item \(load.itemId) failed with detailedErrorCode \(code)")
        let final = StatusView(session: session, playerState: .idle, currentTime: phase.currentTime(at: context.now), load: nil)
        enter(.idle, context: &context)
        if session.hasStarted {
            context.raise(.mediaSessionEnded(mediaSessionId: session.mediaSessionId, reason: .error))
        }
        broadcastStatus(final, answering: nil, idleReason: .error, context: &context)
    }

    /// Ends the current session (STOP, a newer load, an error, the last item removed): a
    /// pending load's requester gets LOAD_CANCELLED, every sender the final IDLE status,
    /// answering `requester` when a request caused it.
    mutating func endSession(reason: IdleReason, answering requester: Requester?, context: inout AppContext) {
        guard let session = phase.session else { return }
        if let load = phase.load { cancel(load, context: &context) }
        let final = StatusView(session: session, playerState: .idle, currentTime: phase.currentTime(at: context.now), load: nil)
        enter(.idle, context: &context)
        if session.hasStarted {
            context.raise(.mediaSessionEnded(mediaSessionId: session.mediaSessionId, reason: reason))
        }
        broadcastStatus(final, answering: requester, idleReason: reason, context: &context)
    }

    /// Tells the sender of a load that never finished that it was superseded.
    func cancel(_ load: PlayerPhase.Load, context: inout AppContext) {
        guard let requester = load.requester else { return }
        context.send(JSONPayload(["type": "LOAD_CANCELLED", "requestId": .number(Double(requester.requestId)),
                                  "itemId": .number(Double(load.itemId))]),
                     namespace: CastNamespace.media, to: requester)
    }
}
