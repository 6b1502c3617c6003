import CastWire

// What scenario steps and the operator do to the EMP receiver's world while it plays.

extension EMPApp {
    mutating func apply(_ input: EMPInput, context: inout AppContext) {
        switch input {
        case .sendEvent(let type, let data?):
            broadcast(EMPEvent.message(type, data), context: &context)
        case .sendEvent(let type, nil):
            sendCurrent(type, context: &context)
        case .setEntitlement(let entitlement):
            setEntitlement(entitlement, context: &context)
        case .endProgram:
            endProgram(context: &context)
        case .segmentMissing(let from, let to):
            guard playback != nil else {
                context.log(.info, nil, "EMP segmentMissing ignored: nothing plays")
                return
            }
            playback?.gaps.append(ExposureWorld.Gap(from: from, to: to))
            context.log(.info, nil, "EMP segments \(NumberText.format(from))–\(NumberText.format(to)) s are missing now")
        }
    }

    /// An event with the value the receiver would send now.
    private mutating func sendCurrent(_ type: String, context: inout AppContext) {
        let snapshot = media.snapshot(at: context.now)
        let current = playback
        switch type {
        case "tracksupdated": broadcastTracks(context: &context)
        case "volumechange": broadcast(EMPEvent.volumeChange(snapshot?.streamVolume ?? context.deviceVolume), context: &context)
        case "timeShiftEnabled": broadcast(EMPEvent.message(type, .bool(current?.timeshiftEnabled ?? false)), context: &context)
        case "autoplay": broadcast(EMPEvent.message(type, .bool(current?.autoplay ?? true)), context: &context)
        case "isLive": broadcast(EMPEvent.message(type, .bool(current?.isLive ?? false)), context: &context)
        case "liveDelay": broadcast(EMPEvent.message(type, .number(world.liveDelay)), context: &context)
        case "startTimeLive", "programchanged":
            guard let current, let program = current.program else {
                context.log(.info, nil, "EMP \(type) not sent: no program plays")
                return
            }
            if type == "startTimeLive" {
                broadcast(EMPEvent.message(type, .number(Double(clock.milliseconds(program.start)))), context: &context)
            } else {
                broadcast(EMPEvent.programChanged(program, channelId: current.content.id, clock: clock, withDates: true),
                          context: &context)
            }
        case "entitlementchange":
            guard let current else {
                context.log(.info, nil, "EMP entitlementchange not sent: nothing plays")
                return
            }
            broadcast(EMPEvent.entitlementChange(current.content.grant, contentId: current.content.id, isLive: current.isLive),
                      context: &context)
        case "assetchanged":
            guard let assetId = current?.assetId else {
                context.log(.info, nil, "EMP assetchanged not sent: nothing plays")
                return
            }
            broadcast(EMPEvent.assetChanged(assetId: assetId, title: current?.asset?.title ?? current?.program?.title),
                      context: &context)
        case "segmentmissing":
            broadcast(EMPEvent.segmentMissing(-1, fractional: false), context: &context)
        case "error":
            broadcast(EMPEvent.error(code: EMPErrorCode.unknown, message: "UNKNOWN_ERROR"), context: &context)
        default:
            broadcast(EMPEvent.message(type, nil), context: &context)
        }
    }

    /// Exposure changes its answer for what plays: `entitlementchange`, and the commands
    /// the new restrictions take away; a refusal stops playback with `error`.
    private mutating func setEntitlement(_ entitlement: ExposureWorld.Entitlement, context: inout AppContext) {
        guard let current = playback else {
            context.log(.info, nil, "EMP entitlement change ignored: nothing plays")
            return
        }
        let id = current.content.id
        if world.channels[id] != nil { world.channels[id]?.entitlement = entitlement } else { world.assets[id]?.entitlement = entitlement }
        switch entitlement {
        case .granted(var grant):
            if grant.live == nil { grant.live = current.isLive }
            playback?.content.grant = grant
            broadcast(EMPEvent.entitlementChange(grant, contentId: id, isLive: current.isLive), context: &context)
            if let withheld = playback?.withheldCommands { media.withholdCommands(withheld, context: &context) }
        case .refused(let refusal):
            context.log(.info, nil, "EMP entitlement to \(id) withdrawn: \(refusal.message)")
            broadcast(EMPEvent.error(code: refusal.code, message: refusal.message), context: &context)
            playback = nil
            media.apply(.playerError(detailedErrorCode: nil), context: &context)
        }
    }

    /// The program at the playhead ends now; the next one starts at once.
    private mutating func endProgram(context: inout AppContext) {
        guard let current = playback, let index = current.programIndex, var channel = current.channel,
              let time = playheadTime(now: context.now) else {
            context.log(.info, nil, "EMP endProgram ignored: no program plays")
            return
        }
        channel.programs[index].end = time
        if channel.programs.indices.contains(index + 1), channel.programs[index + 1].start > time {
            channel.programs[index + 1].start = time
        }
        playback?.content.kind = .channel(channel)
        world.channels[current.content.id] = channel
        followProgramGuide(context: &context)
    }
}
