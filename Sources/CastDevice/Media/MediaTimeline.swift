import CastWire

// What happens to a media session as time passes: loads finish, stalls come and go, the
// next item preloads, items end and the queue moves on per its repeat mode.

extension MediaReceiver {
    /// Something the player will do at a given time.
    enum Due {
        case loadCompletes, bufferingEnds, stallStarts(MediaLoadBehaviour.BufferingPhase), preload, itemEnds
        case breakStarts(AdBreaks.Break), breakClipEnds
    }

    /// The player's next event and when it is due. Only a playing player has a playhead
    /// moving towards something; a loading or stalled one waits for its end.
    func nextEvent(now: SimTime) -> (time: SimTime, due: Due)? {
        switch phase {
        case .idle, .paused:
            return nil
        case .loading(_, let load):
            return load.readyAt.map { ($0, .loadCompletes) }
        case .buffering(_, let stall):
            return (stall.until, .bufferingEnds)
        case .playing(let session, let playhead):
            if let playback = session.inBreak {
                // Only the clip moves while a break plays.
                guard let clip = session.adBreaks?.clip(of: playback), let since = playback.since else { return nil }
                return (since + max(0, clip.duration - playback.clipTime), .breakClipEnds)
            }
            var candidates: [(time: SimTime, due: Due)] = []
            let position = phase.currentTime(at: now)
            let rate = session.playbackRate
            if let next = session.adBreaks?.next(after: position) {
                candidates.append((playhead.time(reaching: next.position, rate: rate), .breakStarts(next)))
            }
            if let stall = session.stallsAhead.first(where: { $0.position >= position }) {
                candidates.append((playhead.time(reaching: stall.position, rate: rate), .stallStarts(stall)))
            }
            if session.preloadedItemId == nil, !session.isLive, let next = nextItem(in: session),
               let preload = next.preloadTime, let end = session.currentItem?.endPosition {
                // `preloadTime` seconds before the current item ends.
                candidates.append((playhead.time(reaching: max(0, end - preload), rate: rate), .preload))
            }
            if !session.isLive, let end = session.currentItem?.endPosition {
                // A post-roll plays before the item ends.
                candidates.append((playhead.time(reaching: end, rate: rate), session.adBreaks?.postRoll.map { .breakStarts($0) } ?? .itemEnds))
            }
            // On a tie a break comes first, then the stall, then the preload, then the end (list order).
            return candidates.enumerated().min { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }?.element
        }
    }

    /// The item that follows the current one when it ends, per the repeat mode.
    func nextItem(in session: MediaSession) -> QueueItem? {
        switch session.queue.repeatMode {
        case .single: session.currentItem
        case .off, .all: session.queue.item(from: session.currentItemId, offset: 1)
        case .allAndShuffle:
            // At the end of the queue it is reshuffled; which item comes first is not known yet.
            session.queue.index(of: session.currentItemId) == session.queue.items.count - 1
                ? nil : session.queue.item(from: session.currentItemId, offset: 1)
        }
    }

    /// Handles everything due at `context.now`, in order.
    package mutating func advance(context: inout AppContext) {
        // A bound, in case handling an event ever failed to move the next one.
        for _ in 0..<64 {
            guard let (time, due) = nextEvent(now: context.now), time <= context.now else { return }
            switch due {
            case .loadCompletes:
                completeDueLoad(context: &context)
            case .bufferingEnds:
                guard case .buffering(let session, let stall) = phase else { return }
                // The stall is over: play on from where it stopped.
                enter(.playing(session, .init(position: stall.position, since: context.now)), context: &context)
                broadcastStatus(answering: nil, context: &context)
            case .stallStarts(let stall):
                _ = try? phase.updateSession { session throws(RequestRejection) in session.stallsAhead.removeAll { $0 == stall } }
                startBuffering(for: stall.duration, context: &context)
            case .preload:
                guard let session = phase.session, let next = nextItem(in: session) else { return }
                _ = try? phase.updateSession { session throws(RequestRejection) in session.preloadedItemId = next.itemId }
                broadcastStatus(answering: nil, context: &context)
            case .itemEnds:
                currentItemEnded(context: &context)
            case .breakStarts(let item):
                let position = phase.currentTime(at: context.now)
                beginBreak(item, resumeAt: item.isPostRoll ? position : max(position, item.position), context: &context)
                broadcastStatus(answering: nil, parts: [.media], context: &context)
            case .breakClipEnds:
                finishBreakClip(answering: nil, context: &context)
            }
        }
    }

    /// The player stalls: BUFFERING for `duration` seconds, then PLAYING again.
    mutating func startBuffering(for duration: Double, context: inout AppContext) {
        guard let session = phase.session, phase.load == nil else { return }
        let stall = PlayerPhase.Stall(position: phase.currentTime(at: context.now), until: context.now + max(0, duration))
        enter(.buffering(session, stall), context: &context)
        broadcastStatus(answering: nil, context: &context)
    }

    /// The current item reached its end: the next one loads, or the session finishes.
    private mutating func currentItemEnded(context: inout AppContext) {
        guard case .playing(var session, _) = phase else { return }
        let end = phase.currentTime(at: context.now)
        var next = nextItem(in: session)
        if next == nil, session.queue.repeatMode == .allAndShuffle, !session.queue.items.isEmpty {
            session.queue.shuffle(using: &context.ids)
            next = session.queue.items.first
            broadcastQueueChange(session, "UPDATE", itemIds: session.queue.itemIds, context: &context)
        }
        let ended = StatusView(session: session, playerState: .idle, currentTime: end, load: nil)
        guard let next else {
            // End of the queue: IDLE/FINISHED with no loadingItemId (go-chromecast waits for that).
            enter(.idle, context: &context)
            context.raise(.mediaSessionEnded(mediaSessionId: session.mediaSessionId, reason: .finished))
            broadcastStatus(ended, answering: nil, idleReason: .finished, context: &context)
            return
        }
        // IDLE/FINISHED for the item that ended, naming the one that loads next.
        broadcastStatus(ended, answering: nil, idleReason: .finished, loadingItemId: next.itemId, context: &context)
        beginLoad(of: next, in: session, requester: nil, autoplay: next.autoplay, position: nil, initial: false, context: &context)
        completeDueLoad(context: &context)
    }
}
