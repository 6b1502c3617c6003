import CastWire

// GET_STATUS, PLAY, PAUSE, SEEK, SET_VOLUME and SET_PLAYBACK_RATE (docs/protocol/media.md §2.1).

extension MediaReceiver {
    mutating func getStatus(_ command: MediaCommand, options: Int, from requester: Requester, context: inout AppContext)
        throws(RequestRejection)
    {
        guard phase.session != nil else {
            // `status: []` when there is no session, unicast.
            context.send(JSONPayload(mediaStatusMessage(requestId: requester.requestId, entries: [])),
                         namespace: CastNamespace.media, to: requester)
            return
        }
        _ = try addressedSession(command)
        // options: 1 = NO_METADATA, 2 = NO_QUEUE_ITEMS.
        var parts: MediaStatusParts = [.media, .items, .loading]
        if options & 1 != 0 { parts.insert(.noMetadata) }
        if options & 2 != 0 { parts.remove(.items) }
        // Unicast, with the live position and everything that fits.
        guard let view = statusView(at: context.now) else { return }
        context.send(fittingMediaStatus(view, requestId: requester.requestId, parts: parts, now: context.now),
                     namespace: CastNamespace.media, to: requester)
    }

    mutating func play(_ command: MediaCommand, from requester: Requester, context: inout AppContext) throws(RequestRejection) {
        let session = try controllableSession(command)
        // A live stream paused behind its window resumes at the window's start.
        let position = session.clampedPosition(phase.currentTime(at: context.now), at: context.now)
        enter(.playing(session, .init(position: position, since: context.now)), context: &context)
        broadcastStatus(answering: requester, context: &context)
    }

    mutating func pause(_ command: MediaCommand, from requester: Requester, context: inout AppContext) throws(RequestRejection) {
        let session = try controllableSession(command)
        enter(.paused(session, position: phase.currentTime(at: context.now)), context: &context)
        broadcastStatus(answering: requester, context: &context)
    }

    mutating func seek(_ seek: SeekRequest, _ command: MediaCommand, from requester: Requester, context: inout AppContext)
        throws(RequestRejection)
    {
        var session = try controllableSession(command)
        if session.inBreak != nil { throw .invalidPlayerState("an ad break is playing; the content seeks after it") }
        let now = context.now
        let from = phase.currentTime(at: now)
        let target = seekTarget(seek, at: now)
        // No resumeState keeps the state: a stalled player plays on from the new place.
        let running = seek.resumePlaying ?? (phase.name != .paused)
        // Clamped to the item (or the live window): Android seeks to 4294967296 for "live edge".
        let position = session.clampedPosition(target, at: now)
        session.preloadedItemId = nil
        enter(running ? .playing(session, .init(position: position, since: now)) : .paused(session, position: position),
              context: &context)
        // Past an unwatched break, that break plays first (the last one on the way), then
        // the content goes on from where the seek asked (CAF's default break seek).
        if position > from, let due = session.adBreaks?.due(from: from, to: position) {
            beginBreak(due, resumeAt: position, context: &context)
            broadcastStatus(answering: requester, parts: [.media], context: &context)
            return
        }
        broadcastStatus(answering: requester, context: &context)
    }

    mutating func setStreamVolume(_ change: VolumeChange, _ command: MediaCommand, from requester: Requester,
                                  context: inout AppContext) throws(RequestRejection) {
        let session = try addressedSession(command)
        let volume = change.applied(to: session.streamVolume)
        if volume != session.streamVolume {
            _ = try phase.updateSession { session throws(RequestRejection) in session.streamVolume = volume }
            context.raise(.streamVolumeChanged(mediaSessionId: session.mediaSessionId, volume))
        }
        broadcastStatus(answering: requester, context: &context)
    }

    mutating func setPlaybackRate(absolute: Double?, relative: Double?, _ command: MediaCommand, from requester: Requester,
                                  context: inout AppContext) throws(RequestRejection) {
        var session = try addressedSession(command)
        let rate = absolute ?? session.playbackRate * (relative ?? 1)
        try settings.checkRate(rate)
        if rate != session.playbackRate {
            let now = context.now
            session.playbackRate = rate
            if case .playing = phase {
                // The playhead keeps its place; only its speed changes from now on.
                phase = .playing(session, .init(position: phase.currentTime(at: now), since: now))
            } else {
                phase.replaceSession(session)
            }
            context.raise(.playbackRateChanged(mediaSessionId: session.mediaSessionId, rate: rate))
        }
        broadcastStatus(answering: requester, context: &context)
    }
}
