import CastWire

// EDIT_TRACKS_INFO and EDIT_AUDIO_TRACKS (§6.2): which tracks are active, and how text
// tracks look.

extension SimulatedDevice {
    mutating func handleEditTracksInfo(_ request: Request) throws(MediaRequestError) {
        var session = try addressedSession(request)
        guard var item = session.currentItem else { throw .invalidPlayerState(detail: "no current item") }
        let tracks = item.media.tracks
        let (requestedIds, language, enableText) = try params { () throws(InvalidParams) in
            (try request.intArray("activeTrackIds"), try request.string("language"),
             try request["enableTextTracks"].map { value throws(InvalidParams) in
                 guard let flag = value.boolValue else {
                     throw InvalidParams("enableTextTracks: expected a boolean, got \(value.typeName)")
                 }
                 return flag
             })
        }
        let style = request["textTrackStyle"]
        try params { () throws(InvalidParams) in
            if let style { try TextTrackStyle.validate(style, path: "textTrackStyle") }
            if let requestedIds { try validateActiveTracks(requestedIds, against: tracks, path: "activeTrackIds") }
        }

        let isText = { (id: Int) in tracks.first { $0.trackId == id }?.kind == .text }
        // `language` takes precedence over activeTrackIds: the current audio/video tracks
        // stay, and the text track in that language replaces the active text track.
        var active = language == nil ? requestedIds ?? session.activeTrackIds : session.activeTrackIds
        if let language {
            guard let track = tracks.first(where: { $0.kind == .text && $0.matches(language: language) }) else {
                throw .invalidRequest(reason: "LANGUAGE_NOT_SUPPORTED", detail: "no TEXT track in language \"\(language)\"")
            }
            active = active.filter { !isText($0) } + [track.trackId]
        }
        switch enableText {
        case false?:
            active.removeAll(where: isText)
        case true? where !active.contains(where: isText):
            if let first = tracks.first(where: { $0.kind == .text }) { active.append(first.trackId) }
        default:
            break
        }
        session.activeTrackIds = active
        if let style {
            item.media.textTrackStyle = style
            session.queue.replaceItem(item)
        }
        mediaSession = session
        // A style change notifies with `media` (senders re-read it), even when unchanged;
        // a change of active tracks alone comes without.
        broadcastMediaStatus(session, requestId: request.requestId, parts: style != nil ? [.media] : [])
    }

    mutating func handleEditAudioTracks(_ request: Request) throws(MediaRequestError) {
        var session = try addressedSession(request)
        guard let item = session.currentItem else { throw .invalidPlayerState(detail: "no current item") }
        let language = try params { () throws(InvalidParams) in try request.string("language") }
        let audioTracks = item.media.tracks.filter { $0.kind == .audio }
        guard !audioTracks.isEmpty else { throw .invalidParams("the media has no AUDIO tracks") }
        guard let language else { throw .invalidParams("EDIT_AUDIO_TRACKS needs language") }
        guard let track = audioTracks.first(where: { $0.matches(language: language) }) else {
            throw .invalidRequest(reason: "LANGUAGE_NOT_SUPPORTED", detail: "no AUDIO track in language \"\(language)\"")
        }
        // At most one audio track is active: the new one replaces the old.
        let audioIds = Set(audioTracks.map(\.trackId))
        session.activeTrackIds = session.activeTrackIds.filter { !audioIds.contains($0) } + [track.trackId]
        mediaSession = session
        broadcastMediaStatus(session, requestId: request.requestId)
    }
}
