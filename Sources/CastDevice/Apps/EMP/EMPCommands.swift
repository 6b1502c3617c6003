import CastWire

// The EMP namespace from the senders (docs/protocol/emp.md §3): JSON `{"type", "data"}`,
// case-sensitive types, every spelling a released sender uses. Nothing is acknowledged;
// what changes is told to every sender (`tracksupdated`, MEDIA_STATUS). Unknown types and
// malformed payloads are logged and ignored, as the real receiver does.

extension EMPApp {
    mutating func receiveCommand(_ message: AppMessage, context: inout AppContext) {
        guard let payload = message.payload, case .object = payload, let type = payload["type"]?.stringValue else {
            context.log(.info, message.connection, "EMP message ignored: \(message.payload == nil ? "not JSON" : "no string type")")
            return
        }
        let data = payload["data"]
        switch type {
        case "pull", "refreshcontrols":
            sendControls(context: &context)
        case "showtexttrack":
            showTextTrack(language: data?["language"]?.stringValue, kind: data?["kind"]?.stringValue, context: &context)
        case "hidetexttrack":
            if !media.changeActiveTracks(context: &context, { tracks, active in active.filter { id in !tracks.isText(id) } }) {
                broadcastTracks(context: &context)
            }
        case "selectaudiotrack", "showaudiotrack", "enableaudiotrack":
            selectAudioTrack(language: data?["language"]?.stringValue, context: &context)
        case "playheadtime", "playheadTime", "setabsolutetime":
            // The docs and Android send `data: <unix ms>`; receiver 2.79 reads `data.datetime`.
            guard let milliseconds = data?.doubleValue ?? data?["datetime"]?.doubleValue ?? data?["time"]?.doubleValue else {
                context.log(.info, message.connection, "EMP \(type) ignored: no time in data")
                return
            }
            seek(toWallClock: milliseconds, context: &context)
        case "gotolive":
            guard let range = media.snapshot(at: context.now)?.liveSeekableRange, playback?.isLive == true else {
                context.log(.info, message.connection, "EMP gotolive ignored: nothing live plays")
                return
            }
            media.movePlayhead(to: range.upperBound, context: &context)
        case "playnextprogram", "playpreviousprogram":
            jumpProgram(by: type == "playnextprogram" ? 1 : -1, context: &context)
        case "texttrackstyle":
            guard let style = data.flatMap(EMPTextTrackStyle.castStyle) else {
                context.log(.info, message.connection, "EMP texttrackstyle ignored: no setting castsim knows")
                return
            }
            media.changeCurrentMedia(context: &context) { $0.textTrackStyle = style }
        case "loadnextsource":
            // Receiver 2.79 plays the next source of a lineup; the queue's next item is that here.
            guard let snapshot = media.snapshot(at: context.now),
                  let next = snapshot.queue.item(from: snapshot.currentItemId, offset: 1) else {
                context.log(.info, message.connection, "EMP loadnextsource ignored: no next source")
                return
            }
            media.playItem(next.itemId, context: &context)
        default:
            context.log(.info, message.connection, "EMP message of unknown type \(JSONValue.string(type).jsonText()) ignored")
        }
    }

    /// emp.md §4.10: what a sender that just (re)connected needs, in the receiver's order.
    mutating func sendControls(context: inout AppContext) {
        let snapshot = media.snapshot(at: context.now)
        let current = playback.flatMap { $0.mediaSessionId == snapshot?.mediaSessionId ? $0 : nil }
        broadcast(EMPEvent.volumeChange(snapshot?.streamVolume ?? context.deviceVolume), context: &context)
        broadcast(EMPEvent.message("timeShiftEnabled", .bool(current?.timeshiftEnabled ?? false)), context: &context)
        broadcast(EMPEvent.message("autoplay", .bool(current?.autoplay ?? true)), context: &context)
        broadcast(EMPEvent.message("isLive", .bool(current?.isLive ?? false)), context: &context)
        if world.realReceiverExtras, current?.isLive == true {
            broadcast(EMPEvent.message("liveDelay", .number(world.liveDelay)), context: &context)
        }
        broadcast(EMPEvent.message("startTimeLive", .number(Double(startTimeLive(current, now: context.now)))), context: &context)
        if let current, let program = current.program {
            broadcast(EMPEvent.programChanged(program, channelId: current.content.id, clock: clock, withDates: false),
                      context: &context)
        }
        if world.realReceiverExtras, let current, !current.isLive {
            broadcast(EMPEvent.assetChanged(assetId: current.content.id, title: current.asset?.title), context: &context)
        }
        if let current {
            broadcast(EMPEvent.entitlementChange(current.content.grant, contentId: current.content.id, isLive: current.isLive),
                      context: &context)
        }
        broadcastTracks(context: &context)
    }

    /// emp.md §4.4: the program's start, else the start of the stream's window; 0 for VOD.
    private func startTimeLive(_ playback: EMPPlayback?, now: SimTime) -> Int64 {
        guard let playback, playback.isLive else { return 0 }
        if let program = playback.program { return clock.milliseconds(program.start) }
        guard let range = media.snapshot(at: now)?.liveSeekableRange else { return 0 }
        return clock.milliseconds(now.seconds - (range.upperBound - range.lowerBound))
    }

    private mutating func showTextTrack(language: String?, kind: String?, context: inout AppContext) {
        guard let language else {
            context.log(.info, nil, "EMP showtexttrack ignored: no data.language")
            return
        }
        let tracks = media.snapshot(at: context.now)?.currentItem?.media.tracks ?? []
        guard let track = tracks.first(where: { track in
            track.kind == .text && track.matches(language: language) && (kind.map { track.subtype?.lowercased() == $0.lowercased() } ?? true)
        }) else {
            context.log(.info, nil, "EMP showtexttrack ignored: no text track in \(JSONValue.string(language).jsonText())")
            return
        }
        // The player fires TRACK_CHANGE, so the senders hear back even when it was already showing.
        if !media.changeActiveTracks(context: &context, { tracks, active in active.filter { !tracks.isText($0) } + [track.trackId] }) {
            broadcastTracks(context: &context)
        }
    }

    private mutating func selectAudioTrack(language: String?, context: inout AppContext) {
        let tracks = media.snapshot(at: context.now)?.currentItem?.media.tracks ?? []
        guard let language, let track = tracks.first(where: { $0.kind == .audio && $0.matches(language: language) }) else {
            context.log(.info, nil, "EMP audio track change ignored: no audio track in \(JSONValue.string(language ?? "").jsonText())")
            return
        }
        if !media.changeActiveTracks(context: &context, { tracks, active in
            active.filter { id in tracks.first { $0.trackId == id }?.kind != .audio } + [track.trackId]
        }) {
            broadcastTracks(context: &context)
        }
    }

    /// `playheadtime`: a wall-clock time on a channel (its position in the window), or
    /// milliseconds into a VOD asset.
    private mutating func seek(toWallClock milliseconds: Double, context: inout AppContext) {
        guard let playback, let snapshot = media.snapshot(at: context.now) else { return }
        let target: Double
        if playback.isLive, let range = snapshot.liveSeekableRange {
            target = range.upperBound - (context.now.seconds - clock.seconds(atMilliseconds: milliseconds))
        } else {
            target = milliseconds / 1000
        }
        move(to: target, from: snapshot.currentTime, context: &context)
    }

    /// The next or previous program of the channel, from its start.
    private mutating func jumpProgram(by offset: Int, context: inout AppContext) {
        guard let playback, let programs = playback.channel?.programs, let index = playback.programIndex,
              programs.indices.contains(index + offset), let range = media.snapshot(at: context.now)?.liveSeekableRange,
              let time = playheadTime(now: context.now), let position = media.snapshot(at: context.now)?.currentTime else {
            context.log(.info, nil, "EMP \(offset > 0 ? "playnextprogram" : "playpreviousprogram") ignored: no such program")
            return
        }
        // Not past the live edge: the next program may not have started.
        let target = min(position + (programs[index + offset].start - time), range.upperBound)
        move(to: target, from: position, context: &context)
    }

    /// A move the sender asked for on the EMP namespace: as the entitlement allows, and
    /// cancelled with `segmentmissing` when it lands in missing segments.
    private mutating func move(to target: Double, from position: Double, context: inout AppContext) {
        guard let playback else { return }
        guard target.isFinite else {
            context.log(.info, nil, "EMP move ignored: the time asked for is out of range")
            return
        }
        do {
            try checkSeek(to: target, from: position, playback: playback)
        } catch {
            context.log(.info, nil, "EMP move to \(NumberText.format(target)) s refused: \(error.detail)")
            return
        }
        if playback.isMissing(target) {
            broadcast(EMPEvent.segmentMissing(target, fractional: world.realReceiverExtras), context: &context)
            return
        }
        media.movePlayhead(to: target, context: &context)
    }
}

extension [Track] {
    func isText(_ trackId: Int) -> Bool { first { $0.trackId == trackId }?.kind == .text }
}
