import CastWire

/// Things that happen to the device from outside the Cast protocol: the remote control,
/// the TV itself, the player failing. Scenario steps, the control surface and tests drive
/// these; every change is broadcast to the senders as a real device would (requestId 0).
public enum OperatorInput: Sendable, Equatable {
    /// The volume buttons of the remote (device volume).
    case setDeviceVolume(level: Double?, muted: Bool?)
    /// The player stalls for a while (BUFFERING), then plays on.
    case buffer(seconds: Double)
    /// The player fails: IDLE/ERROR, the session ends.
    case playerError(detailedErrorCode: Int?)
    /// An ad break starts now, or the break clip playing fails to load (docs/protocol/media.md §11).
    case adBreak(AdBreakInput)
    /// The running app quits (back to the idle screen).
    case stopApp
    /// The TV goes into or out of standby.
    case setStandby(Bool)
    /// The TV shows the device's HDMI input, or another one (`isActiveInput` false while the
    /// TV is on): over HDMI-CEC real TVs report this wrongly now and then.
    case setActiveInput(Bool)
    /// Launches an app as if from the TV's own menu.
    case launchApp(appId: String)
    /// Stream transfer (docs/protocol/media.md §7): the session moves to `peer`; the app
    /// stops here, as the source stops once its session is elsewhere.
    case sessionMovedAway(to: String)
    /// A session stored on `peer` (its `sessionState`) goes on here in `appId`, launched if
    /// it does not run.
    case resumeSession(appId: String, sessionState: JSONValue, from: String)
    /// Pause, play or stop from the remote.
    case remote(RemoteKey)
    /// Sends any message: from `source` (nil: the running app's transport, else receiver-0
    /// when nothing runs), to every subscriber of that endpoint (`connection` nil) or to
    /// one connection's senders; with a `destination`, to that one sender endpoint alone
    /// (on `connection`, or on every connection it has a virtual connection on).
    case sendMessage(namespace: String, source: String?, connection: ConnectionID?, destination: String? = nil, payload: JSONValue)
    /// One of an app's own timeline actions (``AppPlugin/actions``), for the running app
    /// when it is that app (ignored otherwise).
    case app(AppAction)
    /// Device-auth challenges are answered this way from now on.
    case setDeviceAuth(DeviceAuthMode)
    /// The device vanishes from discovery, or comes back (maybe at another address or port).
    case advertise(AdvertisementChange)
    /// The media plane of a Cast Streaming session reports to the app that negotiated it
    /// (ignored when that app no longer runs).
    case streaming(StreamingReport)

    /// The remote's media keys; next and previous move through the queue as QUEUE_NEXT and
    /// QUEUE_PREV do (an app that handles them itself, Music Assistant's, tells its senders).
    public enum RemoteKey: String, Sendable, Equatable, CaseIterable { case play, pause, stop, next, previous }
}

extension SimulatedDevice {
    /// Whether `input` would leave the device as it is, tried on a copy: no message sent, no
    /// event, no connection closed (logs aside), the same state and the same next deadline.
    /// The control API refuses such an input rather than answer it done. Asked of the
    /// device, not decided for it: an app may act on an input with no media loaded (Music
    /// Assistant's tells its senders of next and previous), or change only its timers.
    package func wouldIgnore(_ input: OperatorInput) -> Bool {
        var trial = self
        let outputs = trial.apply(input, now: now)
        guard outputs.allSatisfy({ if case .log = $0 { true } else { false } }) else { return false }
        return trial.snapshot == snapshot && trial.nextDeadline == nextDeadline
    }

    /// Applies an operator input at `now`.
    package mutating func apply(_ input: OperatorInput, now: SimTime) -> [DeviceOutput] {
        self.now = max(self.now, now)
        switch input {
        case .setDeviceVolume(let level, let muted):
            changeVolume(VolumeChange(level: level, muted: muted), answering: nil)
        case .buffer(let seconds):
            withRunningApp { app, context in app.apply(.buffer(seconds: seconds), context: &context) }
        case .playerError(let code):
            withRunningApp { app, context in app.apply(.playerError(detailedErrorCode: code), context: &context) }
        case .adBreak(let input):
            withRunningApp { app, context in app.apply(.adBreak(input), context: &context) }
        case .remote(let key):
            withRunningApp { app, context in app.apply(.remote(key), context: &context) }
        case .streaming(let report):
            withRunningApp { app, context in app.apply(.streaming(report), context: &context) }
        case .app(let action):
            guard let running = runningApp, registry.behaviour(ofAction: action.key) == running.definition.behaviour else {
                log(.info, nil, "\(action.key) action ignored: \(runningApp?.definition.displayName ?? "no app") runs, not the app it is for")
                break
            }
            withRunningApp { app, context in app.apply(.action(action), context: &context) }
        case .stopApp:
            if runningApp?.app.isIdleScreen != true {
                stopRunningApp()
                returnToIdleScreen()
                broadcastReceiverStatus(answering: nil)
            }
        case .advertise(let change):
            changeAdvertisement(change)
        case .setDeviceAuth(let mode):
            log(.info, nil, "device auth mode \(mode.rawValue)")
            deviceAuthMode = mode
        case .setActiveInput(let active):
            setActiveInput(active)
            broadcastReceiverStatus(answering: nil)
        case .setStandby(let standby):
            setStandby(standby)
            broadcastReceiverStatus(answering: nil)
        case .launchApp(let appId):
            if let definition = availableApp(appId), runningApp?.definition.appId != appId {
                launch(definition)
                broadcastReceiverStatus(answering: nil)
            }
        case .sessionMovedAway(let peer):
            log(.info, nil, "the session moves to \(peer)")
            raise(.sessionTransferred(peer: peer, outgoing: true))
            if runningApp?.app.isIdleScreen == false {
                stopRunningApp()
                returnToIdleScreen()
                broadcastReceiverStatus(answering: nil)
            }
        case .resumeSession(let appId, let state, let peer):
            guard let definition = availableApp(appId) else {
                log(.warning, nil, "the session from \(peer) cannot go on here: app \(appId) is not available")
                break
            }
            if runningApp?.definition.appId != appId {
                launch(definition)
                broadcastReceiverStatus(answering: nil)
            }
            log(.info, nil, "the session from \(peer) goes on here")
            raise(.sessionTransferred(peer: peer, outgoing: false))
            withRunningApp { app, context in app.apply(.resumeSession(state), context: &context) }
        case .sendMessage(let namespace, let source, let connection, let destination, let payload):
            let from = source ?? runningApp?.transportId ?? CastEndpoint.platformReceiver
            let encoded = JSONPayload(payload)
            if let destination {
                for socket in connection.map({ [$0] }) ?? virtualConnections.sockets(ofPeer: destination) {
                    send(encoded, from: from, to: destination, on: socket, namespace: namespace)
                }
            } else if let connection {
                // To the sender endpoints of that socket connected to `from` (or sender-0).
                let peers = virtualConnections.peers(on: connection, to: from)
                for peer in peers.isEmpty ? [CastEndpoint.platformSender] : peers {
                    send(encoded, from: from, to: peer, on: connection, namespace: namespace)
                }
            } else {
                broadcast(from: from, namespace: namespace, encoded, answering: nil)
            }
        }
        return drain()
    }
}
