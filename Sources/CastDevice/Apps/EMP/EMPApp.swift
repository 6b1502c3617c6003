import CastWire

extension AppBehaviour {
    /// The EMP (Red Bee / Ericsson Exposure) ChromeCast receiver: a media receiver plus the
    /// custom namespace `urn:x-cast:com.ericsson.cast.receiver` (docs/protocol/emp.md).
    public static let emp = AppBehaviour(rawValue: "emp")
}

extension CastAppDefinition {
    /// The EMP receiver as Red Bee hosts it, `F40E2D17` (emp.md §7).
    public static let emp = CastAppDefinition(
        appId: "F40E2D17", displayName: "EMP Receiver", namespaces: [CastNamespace.media, CastNamespace.emp],
        behaviour: .emp)
}

extension CastNamespace {
    /// The EMP (Red Bee / Ericsson Exposure) receiver's own channel: `{"type", "data"}` JSON.
    public static let emp = "urn:x-cast:com.ericsson.cast.receiver"
}

/// The EMP ChromeCast receiver: a ``MediaReceiver`` for the media namespace, which EMP
/// LOADs reach through the Exposure world (token, asset or channel, entitlement), and the
/// custom namespace beside it. Its events are the media receiver's and the platform's typed
/// events said in EMP terms (``observe(_:context:)``), plus the EPG's program boundaries.
/// Every EMP message is broadcast to every sender connected to the app, as receiver 2.79 does.
package struct EMPApp: CastApp {
    package static let behaviour = AppBehaviour.emp
    package static let plugin = AppPlugin(
        definitions: [.emp],
        // The receiver answers both namespaces whatever a scenario lists, and senders look
        // for them in RECEIVER_STATUS before they open the EMP channel.
        requiredNamespaces: CastAppDefinition.emp.namespaces,
        namespaceAliases: ["emp": CastNamespace.emp],
        sections: [AppScenarioSection(key: EMPScenarioKeys.section) { section, checker, device in
            _ = ExposureParser(reader: checker).exposure(section, defaultMediaDuration: device.defaultMediaDuration)
        }],
        actions: [AppTimelineAction(key: EMPScenarioKeys.action) { action, checker in
            _ = ExposureParser(reader: checker).empAction(action)
        }],
        schema: schema,
        panel: AppPanel(key: "emp", title: "EMP session", eventsNamespace: CastNamespace.emp),
        exampleSections: [EMPScenarioKeys.section: [
            "businessUnits": [["customer": "C", "businessUnit": "B", "sessionTokens": ["t": "valid", "old": "expired"]]],
            "assets": [
                "a1": ["duration": "2m", "textLanguages": ["en", "sv"], "audioLanguages": ["en", "de"],
                       "gaps": [["from": "30s", "to": "40s"]], "bookmark": "50s"],
                "geo": ["entitlement": ["refuse": "GEO_BLOCKED"]],
            ],
            "channels": ["ch": ["textLanguages": ["en"], "programs": [
                ["programId": "p1", "assetId": "x1", "start": "0s", "end": "1m"],
                ["programId": "p2", "assetId": "x2", "start": "1m", "end": "5m"],
            ]]],
        ]])
    let definition: CastAppDefinition
    var media: MediaReceiver
    /// This launch's copy of the Exposure world: scenario steps change it as it plays.
    var world: ExposureWorld
    let clock: ExposureClock
    let defaultMediaDuration: Double
    var playback: EMPPlayback?

    package init(launch: AppLaunch) {
        definition = launch.definition
        media = MediaReceiver(MediaSettings(launch))
        world = ExposureParser.world(of: launch.configuration)
        clock = ExposureClock(epochMilliseconds: world.epochMilliseconds)
        defaultMediaDuration = launch.configuration.defaultMediaDuration
    }

    package var observesDeviceEvents: Bool { true }

    package mutating func receive(_ message: AppMessage, context: inout AppContext) {
        switch message.envelope.namespace {
        case CastNamespace.media: receiveMedia(message, context: &context)
        case CastNamespace.emp: receiveCommand(message, context: &context)
        default: context.acceptWithoutAnswer(message, app: definition)
        }
        followProgramGuide(context: &context)
    }

    package func nextDeadline(now: SimTime) -> SimTime? {
        let player = media.nextDeadline(now: now)
        guard let boundary = nextProgramBoundary(now: now) else { return player }
        return player.map { min($0, boundary) } ?? boundary
    }

    package mutating func advance(context: inout AppContext) {
        media.advance(context: &context)
        followProgramGuide(context: &context)
    }

    package mutating func apply(_ input: AppInput, context: inout AppContext) {
        switch input {
        case .action(let action):
            guard let input = ExposureParser.input(action) else {
                context.log(.warning, nil, "EMP action not understood: \(action)")
                return
            }
            apply(input, context: &context)
        case .playerError(let detailedErrorCode) where playback != nil:
            // The player's error reaches the senders as the EMP error (receiver 2.79
            // `onEmpError`) before the media session ends.
            let detail = detailedErrorCode.map { ", detailedErrorCode \($0)" } ?? ""
            broadcast(EMPEvent.error(code: EMPErrorCode.chromecastTech, message: "CHROMECAST_TECH\(detail)"), context: &context)
            media.apply(input, context: &context)
        default:
            media.apply(input, context: &context)
        }
        followProgramGuide(context: &context)
    }

    package mutating func stop(context: inout AppContext) {
        media.stop(context: &context)
        playback = nil
    }

    /// What the receiver plays now, typed (the panel says the same as JSON).
    package var state: EMPSnapshot? { playback?.snapshot }

    package func snapshot(at now: SimTime) -> AppStateSnapshot {
        AppStateSnapshot(media: media.snapshot(at: now), panel: playback?.snapshot.panel)
    }

    // MARK: Events

    /// The device's typed events, said in EMP terms (emp.md §4.10, "without a pull").
    package mutating func observe(_ event: DeviceEvent.Kind, context: inout AppContext) {
        switch event {
        case .volumeChanged(let volume):
            broadcast(EMPEvent.volumeChange(volume), context: &context)
        case .streamVolumeChanged(let id, let volume) where id == playback?.mediaSessionId:
            broadcast(EMPEvent.volumeChange(volume), context: &context)
        case .playerStateChanged(let id, _, .idle) where id == playback?.mediaSessionId:
            // The session is over (stopped, failed, replaced), whether or not it ever played.
            playback = nil
        case .playerStateChanged(let id, let from, let to) where id == playback?.mediaSessionId:
            if from == .loading, playback?.announcedReady == false {
                // The first `canplay`.
                playback?.announcedReady = true
                announceReady(context: &context)
            }
            if to == .playing, playback?.announcedPlaying == false {
                playback?.announcedPlaying = true
                playback?.loadTracksUnannounced = false
                broadcastTracks(context: &context)
            }
        case .activeTracksChanged(let id, let trackIds) where id == playback?.mediaSessionId:
            // The tracks the load chose go out with the first playing; a change after
            // that, or one made before it (a paused start), goes out as it happens.
            let chosenByLoad = playback?.loadTracksUnannounced == true && trackIds == playback?.loadTrackIds
            playback?.loadTracksUnannounced = false
            if !chosenByLoad { broadcastTracks(context: &context) }
        case .mediaSessionEnded(let id, _) where id == playback?.mediaSessionId:
            playback = nil
        default:
            break
        }
    }

    private mutating func announceReady(context: inout AppContext) {
        guard let playback else { return }
        broadcast(EMPEvent.message("timeShiftEnabled", .bool(playback.timeshiftEnabled)), context: &context)
        if playback.isLive {
            // The player finds the program at its playhead once it can play.
            followProgramGuide(context: &context, announcing: true)
        } else if world.realReceiverExtras {
            broadcast(EMPEvent.assetChanged(assetId: playback.content.id, title: playback.asset?.title), context: &context)
        }
    }

    func broadcast(_ payload: JSONPayload, context: inout AppContext) {
        context.broadcast(payload, namespace: CastNamespace.emp, answering: nil)
    }

    func broadcastTracks(context: inout AppContext) {
        let snapshot = media.snapshot(at: context.now)
        broadcast(EMPEvent.tracksUpdated(tracks: snapshot?.currentItem?.media.tracks ?? [],
                                         activeTrackIds: snapshot?.activeTrackIds ?? []),
                  context: &context)
    }

    /// emp.md §4.4, §4.5: `startTimeLive` (the program's start) then `programchanged`.
    func announce(_ program: ExposureWorld.Program, channelId: String, context: inout AppContext) {
        broadcast(EMPEvent.message("startTimeLive", .number(Double(clock.milliseconds(program.start)))), context: &context)
        broadcast(EMPEvent.programChanged(program, channelId: channelId, clock: clock, withDates: true), context: &context)
    }
}
