import CastWire

// A live channel's EPG against the playhead: the program on air at the playhead's
// wall-clock time, and the boundaries at which it changes. At the live edge that is
// scenario time; timeshifted, it is earlier by as much as the player is behind.

extension EMPApp {
    /// The scenario time the playhead of the channel shows: the live edge is now, and a
    /// position `d` seconds behind the edge shows `now - d`.
    func playheadTime(now: SimTime) -> Double? {
        guard let playback, playback.isLive, let snapshot = media.snapshot(at: now),
              snapshot.mediaSessionId == playback.mediaSessionId, let range = snapshot.liveSeekableRange else { return nil }
        return now.seconds - (range.upperBound - snapshot.currentTime)
    }

    /// When the playing playhead reaches the next program boundary. Behind the edge it
    /// shows time moving at the playback rate; faster than 1× it catches up with the edge
    /// and from then on moves with it, at 1×.
    func nextProgramBoundary(now: SimTime) -> SimTime? {
        guard let playback, playback.isLive, playback.announcedReady, let snapshot = media.snapshot(at: now), snapshot.phase == .playing,
              let time = playheadTime(now: now), let boundary = playback.nextBoundary(after: time) else { return nil }
        let rate = snapshot.playbackRate
        let behindEdge = now.seconds - time
        let atRate = (boundary - time) / rate
        if rate > 1, atRate * (rate - 1) > behindEdge {
            return SimTime(seconds: boundary)
        }
        return now + atRate
    }

    /// Moves to the program at the playhead when it changed: `startTimeLive` and
    /// `programchanged` to the senders, then the media's ids and title
    /// (docs/protocol/emp.md §5.6) in a MEDIA_STATUS. `announcing` sends the events even when
    /// the program is the same (the first ready).
    mutating func followProgramGuide(context: inout AppContext, announcing: Bool = false) {
        guard let current = playback, current.announcedReady, let time = playheadTime(now: context.now) else { return }
        let index = current.programIndex(at: time)
        guard index != current.programIndex || announcing else { return }
        let changed = index != current.programIndex
        playback?.programIndex = index
        guard let playback else { return }
        // In a gap of the EPG, or past its end, there is no program to announce; the
        // media says the channel alone.
        if let program = playback.program {
            announce(program, channelId: playback.content.id, context: &context)
        }
        guard changed else { return }
        let payload = playback.empPayload
        media.changeCurrentMedia(context: &context) { media in
            media.contentId = playback.program?.assetId ?? playback.content.id
            media.passthrough["customData"] = payload
            media.passthrough["empPayload"] = payload
            media.passthrough["metadata"] = EMPApp.metadata(title: playback.program?.title ?? playback.channel?.title)
        }
    }

    /// `media.metadata` of what plays: GENERIC with a title.
    static func metadata(title: String?) -> JSONValue {
        var metadata: [String: JSONValue] = ["metadataType": 0]
        if let title { metadata["title"] = .string(title) }
        return .object(metadata)
    }
}
