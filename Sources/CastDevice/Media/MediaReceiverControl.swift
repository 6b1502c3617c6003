import CastWire

// What an app wrapping a media receiver does to the player on its own,
// outside the media namespace: switch tracks, move the playhead, change what the media
// says of itself. Each goes through the same state changes, events and MEDIA_STATUS
// broadcasts (requestId 0) as the media requests do, so the two views never disagree.

extension MediaReceiver {
    /// The current media session's id; nil without one.
    package var mediaSessionId: Int? { phase.session?.mediaSessionId }

    /// The media of the current item.
    var currentMedia: MediaInformation? { phase.session?.currentItem?.media }

    /// Where a SEEK would put the playhead, before clamping: `relativeTime` from the
    /// current position takes precedence over `currentTime`.
    func seekTarget(_ seek: SeekRequest, at now: SimTime) -> Double {
        let current = phase.currentTime(at: now)
        return seek.relativeTime.map { current + $0 } ?? seek.currentTime ?? current
    }

    /// Sets the active tracks of the current session to what `choose` makes of the media's
    /// tracks and the active ids; MEDIA_STATUS tells every sender. Returns false when there
    /// is no session or nothing changed.
    @discardableResult
    mutating func changeActiveTracks(context: inout AppContext, _ choose: ([Track], [Int]) -> [Int]) -> Bool {
        guard var session = phase.session, let media = session.currentItem?.media else { return false }
        let active = choose(media.tracks, session.activeTrackIds)
        guard active != session.activeTrackIds else { return false }
        setActiveTracks(active, in: &session, context: &context)
        phase.replaceSession(session)
        broadcastStatus(answering: nil, context: &context)
        return true
    }

    /// Moves the playhead as the receiver itself decides (go to live, the next program),
    /// keeping the player state; false when nothing can be moved.
    @discardableResult
    mutating func movePlayhead(to target: Double, context: inout AppContext) -> Bool {
        guard phase.load == nil, var session = phase.session else { return false }
        let now = context.now
        let position = session.clampedPosition(target, at: now)
        session.preloadedItemId = nil
        switch phase {
        case .playing: enter(.playing(session, .init(position: position, since: now)), context: &context)
        case .paused: enter(.paused(session, position: position), context: &context)
        case .buffering(_, let stall): enter(.buffering(session, .init(position: position, until: stall.until)), context: &context)
        case .idle, .loading: return false
        }
        broadcastStatus(answering: nil, context: &context)
        return true
    }

    /// Loads another item of the queue, as QUEUE_UPDATE with `currentItemId` would.
    mutating func playItem(_ itemId: Int, context: inout AppContext) {
        guard let session = phase.session else { return }
        finishQueueCommand(nil, session: session, jumpTo: itemId, position: nil, context: &context)
    }

    /// Changes the current item's media (a new program on a channel, a text track style);
    /// MEDIA_STATUS with `media` tells every sender.
    mutating func changeCurrentMedia(answering requester: Requester? = nil, context: inout AppContext,
                                     _ change: (inout MediaInformation) -> Void) {
        guard var session = phase.session, var item = session.currentItem else { return }
        let before = item.media.textTrackStyle
        change(&item.media)
        session.queue.replaceItem(item)
        phase.replaceSession(session)
        if item.media.textTrackStyle != before {
            context.raise(.textTrackStyleChanged(mediaSessionId: session.mediaSessionId, style: item.media.textTrackStyle))
        }
        broadcastStatus(answering: requester, parts: [.media], context: &context)
    }

    /// Commands the session does not offer (an entitlement without seeking): left out of
    /// `supportedMediaCommands`.
    mutating func withholdCommands(_ commands: MediaCommands, context: inout AppContext) {
        guard var session = phase.session, session.withheldCommands != commands else { return }
        session.withheldCommands = commands
        phase.replaceSession(session)
        broadcastStatus(answering: nil, context: &context)
    }
}
