import CastWire

// Ad breaks on the simulated player (docs/protocol/media.md §11): a break starts when the
// content reaches it (or a seek passes it, or the item starts after a pre-roll), its
// clips play one after the other while the content waits, SKIP_AD skips a clip once it
// may be skipped, and the content goes on where it was to go on.

extension MediaReceiver {
    /// The break starts at the content's place: it is watched from now on (its
    /// `isWatched` tells senders so). The status is the caller's to send.
    mutating func beginBreak(_ item: AdBreaks.Break, resumeAt: Double, context: inout AppContext) {
        guard let session = phase.session, session.inBreak == nil else { return }
        let now = context.now
        let playing = phase.name == .playing
        let position = item.isPostRoll ? phase.currentTime(at: now) : min(item.position, phase.currentTime(at: now))
        _ = try? phase.updateSession { session throws(RequestRejection) in
            session.adBreaks?.watched.insert(item.id)
            session.inBreak = BreakPlayback(breakId: item.id, clipIndex: 0, breakTimeBeforeClip: 0, clipTime: 0,
                                            since: playing ? now : nil, position: position, resumeAt: resumeAt)
            guard var current = session.currentItem else { return }
            current.media.passthrough["breaks"] = current.media.passthrough["breaks"].map { breaks in
                .array((breaks.arrayValue ?? []).map { $0["id"]?.stringValue == item.id ? $0.replacing("isWatched", with: true) : $0 })
            }
            session.queue.replaceItem(current)
        }
        context.log(.info, nil, "ad break \(item.id) starts (\(item.clipIds.count) clip(s)); the content goes on at \(NumberText.format(resumeAt)) s")
        context.raise(.adBreakChanged(mediaSessionId: session.mediaSessionId, breakId: item.id, clipId: item.clipIds.first))
        if item.clipIds.isEmpty { endBreak(answering: nil, broadcast: false, context: &context) }
    }

    /// The clip playing ends (its time is up, SKIP_AD, or it failed to load): the break's
    /// next clip plays, or the break is over. Every sender is told.
    mutating func finishBreakClip(answering requester: Requester?, context: inout AppContext) {
        guard let session = phase.session, var playback = session.inBreak, let breaks = session.adBreaks,
              let item = breaks.item(playback.breakId) else { return }
        guard playback.clipIndex + 1 < item.clipIds.count else {
            endBreak(answering: requester, broadcast: true, context: &context)
            return
        }
        let now = context.now
        playback.breakTimeBeforeClip += playback.clipTime(at: now)
        playback.clipIndex += 1
        playback.clipTime = 0
        playback.since = phase.name == .playing ? now : nil
        _ = try? phase.updateSession { session throws(RequestRejection) in session.inBreak = playback }
        context.raise(.adBreakChanged(mediaSessionId: session.mediaSessionId, breakId: item.id, clipId: item.clipIds[playback.clipIndex]))
        broadcastStatus(answering: requester, context: &context)
    }

    /// The break is over: the content goes on from where it was to, in the player's state.
    mutating func endBreak(answering requester: Requester?, broadcast: Bool, context: inout AppContext) {
        guard var session = phase.session, let playback = session.inBreak else { return }
        let now = context.now
        session.inBreak = nil
        let position = session.clampedPosition(playback.resumeAt, at: now)
        switch phase {
        case .playing: phase = .playing(session, .init(position: position, since: now))
        case .paused: phase = .paused(session, position: position)
        case .buffering(_, let stall): phase = .buffering(session, .init(position: position, until: stall.until))
        case .idle, .loading: phase.replaceSession(session)
        }
        context.log(.info, nil, "ad break \(playback.breakId) over; the content goes on at \(NumberText.format(position)) s")
        context.raise(.adBreakChanged(mediaSessionId: session.mediaSessionId, breakId: nil, clipId: nil))
        if broadcast { broadcastStatus(answering: requester, context: &context) }
    }

    /// SKIP_AD: the clip ends if it may be skipped by now; otherwise (or with no break
    /// playing) INVALID_PLAYER_STATE, and it plays on.
    mutating func skipAd(_ command: MediaCommand, from requester: Requester, context: inout AppContext) throws(RequestRejection) {
        let session = try addressedSession(command)
        guard let playback = session.inBreak, let clip = session.adBreaks?.clip(of: playback) else {
            throw .invalidPlayerState("no ad break is playing")
        }
        let played = playback.clipTime(at: context.now)
        guard let skippable = clip.whenSkippable else { throw .invalidPlayerState("break clip \(clip.id) cannot be skipped") }
        guard played >= skippable else {
            throw .invalidPlayerState("break clip \(clip.id) can be skipped after \(NumberText.format(skippable)) s; \(NumberText.format(played)) s played")
        }
        context.log(.info, requester.connection, "SKIP_AD: break clip \(clip.id) skipped after \(NumberText.format(played)) s")
        finishBreakClip(answering: requester, context: &context)
    }

    /// An operator's doing: a break starts now (the next unwatched one, at the content's
    /// place), or the clip playing fails to load and is skipped (CAF's 901,
    /// BREAK_CLIP_LOADING_ERROR: the content carries on).
    mutating func applyBreakInput(_ input: AdBreakInput, context: inout AppContext) {
        guard let session = phase.session, phase.load == nil else { return }
        switch input {
        case .start:
            guard session.inBreak == nil else { return }
            let position = phase.currentTime(at: context.now)
            guard let next = session.adBreaks?.next(after: 0) ?? session.adBreaks?.postRoll else {
                context.log(.info, nil, "adBreak start: the item has no unwatched break")
                return
            }
            beginBreak(next, resumeAt: position, context: &context)
            broadcastStatus(answering: nil, parts: [.media], context: &context)
        case .failClip:
            guard let playback = session.inBreak, let clip = session.adBreaks?.clip(of: playback) else { return }
            context.log(.info, nil, "break clip \(clip.id) failed to load (901 BREAK_CLIP_LOADING_ERROR); skipped")
            finishBreakClip(answering: nil, context: &context)
        }
    }

    /// `breakStatus` while a break plays (media.md §11): whole seconds are what the
    /// Android SDK reads, so the times are sent as they are and `whenSkippable` as given.
    func breakStatus(_ session: MediaSession, at now: SimTime) -> JSONValue? {
        guard let playback = session.inBreak, let item = session.adBreaks?.item(playback.breakId),
              item.clipIds.indices.contains(playback.clipIndex) else { return nil }
        let clipTime = playback.clipTime(at: now)
        var status: [String: JSONValue] = [
            "breakId": .string(item.id), "breakClipId": .string(item.clipIds[playback.clipIndex]),
            "currentBreakTime": .number(playback.breakTimeBeforeClip + clipTime), "currentBreakClipTime": .number(clipTime),
        ]
        if let skippable = session.adBreaks?.clip(of: playback)?.whenSkippable { status["whenSkippable"] = .number(skippable) }
        return .object(status)
    }
}

/// What an operator does to ad breaks (a scenario's `adBreak` step, the control API).
public enum AdBreakInput: String, Sendable, Equatable, CaseIterable {
    /// The next unwatched break plays now.
    case start
    /// The clip playing fails to load: it is skipped.
    case failClip = "fail"
}
