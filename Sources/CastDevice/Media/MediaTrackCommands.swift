import CastWire

// EDIT_TRACKS_INFO and EDIT_AUDIO_TRACKS (docs/protocol/media.md §2.1): which tracks are
// active, and how text tracks look.

extension MediaReceiver {
    mutating func editTracksInfo(_ edit: EditTracksRequest, _ command: MediaCommand, from requester: Requester,
                                 context: inout AppContext) throws(RequestRejection) {
        var session = try addressedSession(command)
        guard var item = session.currentItem else { throw .invalidPlayerState("no current item") }
        let tracks = item.media.tracks
        if let ids = edit.activeTrackIds, let reader = edit.activeTrackIdsReader {
            try params { () throws(JSONReadError) in try validateActiveTracks(ids, against: tracks, at: reader) }
        }
        let isText = { (id: Int) in tracks.first { $0.trackId == id }?.kind == .text }
        // `language` takes precedence over activeTrackIds: the current audio/video tracks
        // stay, and the text track in that language replaces the active text track.
        var active = edit.language == nil ? edit.activeTrackIds ?? session.activeTrackIds : session.activeTrackIds
        if let language = edit.language {
            guard let track = tracks.first(where: { $0.kind == .text && $0.matches(language: language) }) else {
                throw .invalidRequest(.languageNotSupported, "no TEXT track in language \"\(language)\"")
            }
            active = active.filter { !isText($0) } + [track.trackId]
        }
        switch edit.enableTextTracks {
        case false?:
            active.removeAll(where: isText)
        case true? where !active.contains(where: isText):
            if let first = tracks.first(where: { $0.kind == .text }) { active.append(first.trackId) }
        default:
            break
        }
        setActiveTracks(active, in: &session, context: &context)
        if let style = edit.textTrackStyle {
            if item.media.textTrackStyle != style {
                context.raise(.textTrackStyleChanged(mediaSessionId: session.mediaSessionId, style: style))
            }
            item.media.textTrackStyle = style
            session.queue.replaceItem(item)
        }
        phase.replaceSession(session)
        // A style change notifies with `media` (senders re-read it), even when unchanged;
        // a change of active tracks alone comes without.
        broadcastStatus(answering: requester, parts: edit.textTrackStyle != nil ? [.media] : [], context: &context)
    }

    mutating func editAudioTracks(language: String?, _ command: MediaCommand, from requester: Requester,
                                  context: inout AppContext) throws(RequestRejection) {
        var session = try addressedSession(command)
        guard let item = session.currentItem else { throw .invalidPlayerState("no current item") }
        let audioTracks = item.media.tracks.filter { $0.kind == .audio }
        guard !audioTracks.isEmpty else { throw .invalidParams("the media has no AUDIO tracks") }
        guard let language else { throw .invalidParams("EDIT_AUDIO_TRACKS needs language") }
        guard let track = audioTracks.first(where: { $0.matches(language: language) }) else {
            throw .invalidRequest(.languageNotSupported, "no AUDIO track in language \"\(language)\"")
        }
        // At most one audio track is active: the new one replaces the old.
        let audioIds = Set(audioTracks.map(\.trackId))
        setActiveTracks(session.activeTrackIds.filter { !audioIds.contains($0) } + [track.trackId], in: &session,
                        context: &context)
        phase.replaceSession(session)
        broadcastStatus(answering: requester, context: &context)
    }
}
