import CastWire

// The media namespace of the EMP receiver: LOAD goes through Exposure (docs/protocol/emp.md
// §5) and becomes a media session of the asset or channel; SEEK and PAUSE answer to the
// entitlement and the missing segments; everything else is the media receiver's.

extension EMPApp {
    mutating func receiveMedia(_ message: AppMessage, context: inout AppContext) {
        guard case .success(let header) = RequestHeader.read(message.payload) else {
            media.receive(message, context: &context)
            return
        }
        let requester = message.requester(requestId: header.answerId)
        do throws(RequestRejection) {
            switch header.type {
            case "LOAD":
                try load(header, from: requester, context: &context)
                return
            case "SEEK":
                if try seekIsCancelled(header, from: requester, context: &context) { return }
            case "PAUSE":
                if let playback, playback.mediaSessionId == media.mediaSessionId, playback.isLive, !playback.timeshiftEnabled {
                    throw RequestRejection.invalidPlayerState("the channel cannot be paused: timeshift is disabled")
                }
            default:
                break
            }
        } catch {
            context.reject(error, type: header.type, namespace: CastNamespace.media, label: "media", to: requester)
            return
        }
        media.receive(message, context: &context)
    }

    /// An EMP LOAD: the Exposure play call, then a media session of what it granted; a
    /// refusal is the EMP `error` event, then LOAD_FAILED and IDLE/ERROR as a CAF receiver
    /// fails a load.
    private mutating func load(_ header: RequestHeader, from requester: Requester, context: inout AppContext)
        throws(RequestRejection)
    {
        let request = try params { () throws(JSONReadError) in try EMPLoadRequest(header.body) }
        let command = try MediaCommand(header)
        // The sender's own media, tracks and queue make way for what Exposure granted; its
        // playback rate still applies.
        var start = SessionStart(items: [], startIndex: 0, repeatMode: .off, startTime: nil,
                                 playbackRate: try params { () throws(JSONReadError) in try header.body.optionalDouble("playbackRate") })
        try params { () throws(JSONReadError) in try start.readSessionFields(header.body) }
        // The sender's session token is the sender's secret: MEDIA_STATUS does not echo it.
        start.credentials = nil
        switch world.play(request, defaultDuration: defaultMediaDuration) {
        case .failure(let refusal):
            context.log(.info, requester.connection,
                        "EMP LOAD of \(request.requestedId ?? "nothing") refused: \(refusal.code) \(refusal.message)")
            playback = nil
            broadcast(EMPEvent.error(code: refusal.code, message: refusal.message), context: &context)
            let refused = MediaInformation(contentId: request.requestedId ?? "", passthrough: ["contentType": "video/emp"])
            start.items = [QueueItem(itemId: 0, media: refused, autoplay: request.autoplay)]
            start.outcome = .fail(detailedErrorCode: 905, reason: refusal.loadFailedReason)
            try self.media.startSession(start, command, from: requester, context: &context)
        case .success(let content):
            var new = EMPPlayback(content: content, request: request)
            let position = startPosition(of: new, now: context.now)
            if new.isLive {
                new.programIndex = new.programIndex(at: position.map { playheadTime(ofStart: $0, now: context.now) } ?? context.now.seconds)
            }
            let item = item(for: new)
            new.loadTrackIds = item.activeTrackIds ?? []
            start.items = [item]
            start.startTime = position
            start.withheldCommands = new.withheldCommands
            playback = new
            // Exposure answered before the player loads: the entitlement goes out first.
            broadcast(EMPEvent.entitlementChange(content.grant, contentId: content.id, isLive: content.isLive), context: &context)
            do {
                try self.media.startSession(start, command, from: requester, context: &context)
            } catch {
                playback = nil
                throw error
            }
            playback?.mediaSessionId = self.media.mediaSessionId
        }
    }

    /// The queue item of what Exposure granted: `video/emp`, the asset's length or a LIVE
    /// stream (`duration` null), the languages as tracks (text first, then audio, ids from
    /// 0 as receiver 2.79 numbers them), and the sender's languages active.
    private func item(for playback: EMPPlayback) -> QueueItem {
        let payload = playback.empPayload
        var title = playback.asset?.title
        var media = MediaInformation(contentId: playback.content.id, streamType: playback.isLive ? .live : .buffered)
        if playback.isLive {
            media.passthrough["duration"] = .null
            title = playback.program?.title ?? playback.channel?.title
            if let program = playback.program { media.contentId = program.assetId }
        } else {
            media.duration = playback.asset?.duration ?? defaultMediaDuration
        }
        media.passthrough["contentType"] = "video/emp"
        media.passthrough["customData"] = payload
        media.passthrough["empPayload"] = payload
        media.passthrough["metadata"] = EMPApp.metadata(title: title)
        media.tracks = EMPApp.tracks(text: playback.content.textLanguages, audio: playback.content.audioLanguages)
        var item = QueueItem(itemId: 0, media: media, autoplay: playback.autoplay)
        item.activeTrackIds = EMPApp.initialTracks(media.tracks, request: playback.request)
        return item
    }

    /// Text tracks, then audio tracks: an asset in one audio language has no audio track to
    /// choose ("if only one audiotrack is available, no audiotracks are broadcasted").
    static func tracks(text: [String], audio: [String]) -> [Track] {
        var json: [JSONValue] = text.map { language in
            ["type": "TEXT", "subtype": "SUBTITLES", "language": .string(language), "name": .string(EMPLanguageNames.label(language))]
        }
        if audio.count > 1 {
            json += audio.map { language in ["type": "AUDIO", "language": .string(language), "name": .string(EMPLanguageNames.label(language))] }
        }
        let numbered = json.enumerated().map { $0.element.replacing("trackId", with: .number(Double($0.offset))) }
        return (try? Track.decodeList(JSONReader(.array(numbered)))) ?? []
    }

    /// The sender's subtitle language (none for `"None"`), and its audio language or else
    /// the first audio track: a player always plays one.
    static func initialTracks(_ tracks: [Track], request: EMPLoadRequest) -> [Int] {
        var active: [Int] = []
        if case .language(let language) = request.subtitleLanguage,
           let text = tracks.first(where: { $0.kind == .text && $0.matches(language: language) }) {
            active.append(text.trackId)
        }
        let audio = tracks.filter { $0.kind == .audio }
        if let chosen = request.audioLanguage.flatMap({ language in audio.first { $0.matches(language: language) } }) ?? audio.first {
            active.append(chosen.trackId)
        }
        return active
    }

    /// Where playback starts (emp.md §5.3 `playFrom`, §5.5): VOD at the beginning, the
    /// bookmark, or `startOffset`; a channel at the live edge (nil), the program's start (plus
    /// `startOffset`), or the wall-clock `startTime`. Positions are MEDIA_STATUS positions; a
    /// channel's edge is at the live window's length when it loads.
    func startPosition(of playback: EMPPlayback, now: SimTime) -> Double? {
        // Out of range (a start time of 1e308 ms): where the player starts by default.
        guard let asked = startPositionAsked(of: playback, now: now), asked.isFinite else { return nil }
        // A channel plays within its window: a start before it (a program that began
        // longer ago than the window) is its oldest position, one after it the edge.
        return playback.isLive ? asked.clamped(to: 0...media.settings.liveWindow) : asked
    }

    private func startPositionAsked(of playback: EMPPlayback, now: SimTime) -> Double? {
        let request = playback.request
        let offset = request.startOffsetMilliseconds.map { $0 / 1000 }
        guard playback.isLive else {
            switch request.playFrom {
            case .beginning: return 0
            case .bookmark: return playback.asset?.bookmark ?? 0
            case .startTime, .defaultBehaviour: return offset ?? 0
            }
        }
        guard playback.timeshiftEnabled else { return nil }
        let edge = media.settings.liveWindow
        let programStart = playback.programIndex(at: now.seconds).flatMap { playback.channel?.programs[$0].start }
        switch request.playFrom {
        case .beginning:
            return programStart.map { edge - (now.seconds - $0) }
        case .startTime:
            return request.startTimeMilliseconds.map { edge - (now.seconds - clock.seconds(atMilliseconds: $0)) }
        case .defaultBehaviour:
            guard let offset, let programStart else { return nil }
            return edge - (now.seconds - (programStart + offset))
        case .bookmark:
            return nil
        }
    }

    /// The scenario time a channel's start position shows, at load.
    private func playheadTime(ofStart position: Double, now: SimTime) -> Double {
        now.seconds - (media.settings.liveWindow - position)
    }

    /// A SEEK into missing segments is cancelled (`segmentmissing`, and the status as it
    /// stands answers the request); one the entitlement forbids is refused.
    private mutating func seekIsCancelled(_ header: RequestHeader, from requester: Requester, context: inout AppContext)
        throws(RequestRejection) -> Bool
    {
        guard let playback, playback.mediaSessionId == media.mediaSessionId,
              let current = media.snapshot(at: context.now), current.loadingItemId == nil else { return false }
        let target = media.seekTarget(try SeekRequest(header.body), at: context.now)
        guard target.isFinite else { return false }
        try checkSeek(to: target, from: current.currentTime, playback: playback)
        guard playback.isMissing(target) else { return false }
        context.log(.info, requester.connection, "SEEK to \(NumberText.format(target)) s lands in missing segments: cancelled")
        broadcast(EMPEvent.segmentMissing(target, fractional: world.realReceiverExtras), context: &context)
        media.broadcastStatus(answering: requester, context: &context)
        return true
    }

    /// What the entitlement allows: no seeking forward without `ffEnabled`, back without
    /// `rwEnabled`, none in a channel that cannot be timeshifted.
    func checkSeek(to target: Double, from position: Double, playback: EMPPlayback) throws(RequestRejection) {
        if playback.isLive, !playback.timeshiftEnabled {
            throw .invalidPlayerState("the channel cannot be sought: timeshift is disabled")
        }
        if target > position, !playback.content.grant.ffEnabled {
            throw .invalidPlayerState("seeking forward is not allowed: the entitlement has ffEnabled false")
        }
        if target < position, !playback.content.grant.rwEnabled {
            throw .invalidPlayerState("seeking back is not allowed: the entitlement has rwEnabled false")
        }
    }
}
