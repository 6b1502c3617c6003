import CastWire

// What happens to a media session as time passes: loads finish, the next item preloads,
// items end and the queue advances per its repeat mode.

extension SimulatedDevice {
    /// Something the media session will do at a given time.
    enum MediaEvent {
        case loadCompletes, bufferingEnds, bufferingStarts(MediaLoadBehaviour.BufferingPhase), preload, itemEnds
    }

    /// The session's next event and when it is due.
    var nextMediaEvent: (time: SimTime, event: MediaEvent)? {
        guard let session = mediaSession else { return nil }
        if let pending = session.pendingLoad { return pending.readyAt.map { ($0, .loadCompletes) } }
        if session.playerState == .buffering { return session.bufferingUntil.map { ($0, .bufferingEnds) } }
        guard session.playerState == .playing else { return nil }
        var candidates: [(time: SimTime, event: MediaEvent)] = []
        let position = session.currentTime(at: now)
        if let phase = session.bufferingPhases.first(where: { $0.position >= position }),
           let time = session.clock.time(reaching: phase.position) {
            candidates.append((time, .bufferingStarts(phase)))
        }
        if let preloadAt = preloadTime(of: session) { candidates.append((preloadAt, .preload)) }
        if !session.isLive, let end = session.currentItem?.endPosition, let time = session.clock.time(reaching: end) {
            candidates.append((time, .itemEnds))
        }
        // On a tie the stall comes first, then the preload, then the end (list order).
        return candidates.enumerated().min { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }?.element
    }

    /// The next time the media session has something to do.
    var mediaDeadline: SimTime? { nextMediaEvent?.time }

    /// When the next item should be reported preloaded: `preloadTime` seconds before the
    /// current one ends.
    private func preloadTime(of session: MediaSession) -> SimTime? {
        guard session.preloadedItemId == nil, !session.isLive,
              let next = nextItem(in: session), let preload = next.preloadTime,
              let end = session.currentItem?.endPosition else { return nil }
        return session.clock.time(reaching: max(0, end - preload))
    }

    /// The item that follows the current one when it ends, per the repeat mode.
    private func nextItem(in session: MediaSession) -> QueueItem? {
        switch session.repeatMode {
        case .single: session.currentItem
        case .off, .all: session.queue.item(from: session.currentItemId, offset: 1)
        case .allAndShuffle:
            // At the end of the queue it is reshuffled; which item comes first is not known yet.
            session.queue.index(of: session.currentItemId) == session.items.count - 1
                ? nil : session.queue.item(from: session.currentItemId, offset: 1)
        }
    }

    /// Handles everything due at `now`, in order.
    mutating func advanceMedia() {
        for _ in 0..<64 {
            guard let (time, event) = nextMediaEvent, time <= now, var session = mediaSession else { return }
            switch event {
            case .loadCompletes:
                completeDueLoad()
            case .bufferingEnds:
                // The stall is over: play on from where it stopped.
                session = settingPlaying(true, session)
                mediaSession = session
                broadcastMediaStatus(session, requestId: 0)
            case .bufferingStarts(let phase):
                session.bufferingPhases.removeAll { $0 == phase }
                mediaSession = session
                startBuffering(for: phase.duration)
            case .preload:
                if let next = nextItem(in: session) {
                    session.preloadedItemId = next.itemId
                    mediaSession = session
                    broadcastMediaStatus(session, requestId: 0)
                }
            case .itemEnds:
                currentItemEnded()
            }
        }
    }

    /// The player stalls: BUFFERING for `duration` seconds, then PLAYING again.
    mutating func startBuffering(for duration: Double) {
        guard var session = mediaSession, session.pendingLoad == nil, session.playerState != .idle else { return }
        session.clock.setRunning(false, at: now, limit: session.endPosition(at: now))
        session.playerState = .buffering
        session.bufferingUntil = now + max(0, duration)
        mediaSession = session
        broadcastMediaStatus(session, requestId: 0)
    }

    /// The current item reached its end: the next one loads, or the session finishes.
    private mutating func currentItemEnded() {
        guard var session = mediaSession else { return }
        session.clock.setRunning(false, at: now, limit: session.endPosition(at: now))
        session.playerState = .idle
        var next = nextItem(in: session)
        if next == nil, session.repeatMode == .allAndShuffle, !session.items.isEmpty {
            session.queue.shuffle(using: &ids)
            next = session.items.first
            broadcastQueueChange(session, "UPDATE", itemIds: session.queue.itemIds)
        }
        guard let next else {
            // End of the queue: IDLE/FINISHED with no loadingItemId (go-chromecast waits for that).
            mediaSession = nil
            broadcastMediaStatus(session, requestId: 0, idleReason: .finished)
            return
        }
        // IDLE/FINISHED for the item that ended, naming the one that loads next.
        broadcastMediaStatus(session, requestId: 0, idleReason: .finished, loadingItemId: next.itemId)
        beginLoad(of: next, in: &session, requester: nil, autoplay: next.autoplay, position: nil, initial: false)
        mediaSession = session
        completeDueLoad()
    }

    /// Makes `item` current on request of a queue command: it loads, and plays if it autoplays.
    mutating func jump(to item: QueueItem, in session: inout MediaSession, position: Double?) {
        beginLoad(of: item, in: &session, requester: nil, autoplay: item.autoplay, position: position, initial: false)
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

    /// Tells every sender how the queue changed (§6.3 QUEUE_CHANGE), unsolicited: the
    /// request that caused it completes on its MEDIA_STATUS.
    mutating func broadcastQueueChange(_ session: MediaSession, _ changeType: String, itemIds: [Int],
                                       insertBefore: Int? = nil, reorderItemIds: [Int]? = nil) {
        guard let transportId = runningApp?.transportId else { return }
        broadcast(from: transportId, namespace: CastNamespace.media,
                  queueChangeMessage(session, changeType, itemIds: itemIds, insertBefore: insertBefore,
                                     reorderItemIds: reorderItemIds))
    }
}
