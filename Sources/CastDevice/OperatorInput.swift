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
    /// The running app quits (back to the idle screen).
    case stopApp
    /// The TV goes into or out of standby.
    case setStandby(Bool)
    /// Launches an app as if from the TV's own menu.
    case launchApp(appId: String)
    /// Pause, play or stop from the remote.
    case remote(RemoteKey)
    /// Sends any message: from `source` (nil: the running app's transport, else receiver-0
    /// when nothing runs), to every subscriber of that endpoint (`connection` nil) or to
    /// one connection's sender.
    case sendMessage(namespace: String, source: String?, connection: ConnectionID?, payload: JSONValue)

    public enum RemoteKey: String, Sendable, Equatable { case play, pause, stop }
}

extension SimulatedDevice {
    /// Applies an operator input at `now`.
    public mutating func apply(_ input: OperatorInput, now: SimTime) -> [DeviceOutput] {
        self.now = max(self.now, now)
        switch input {
        case .setDeviceVolume(let level, let muted):
            if let level { volume.level = level.clamped(to: 0...1) }
            if let muted { volume.muted = muted }
            broadcastReceiverStatus(requestId: 0)
        case .buffer(let seconds):
            startBuffering(for: seconds)
        case .playerError(let code):
            if let session = mediaSession {
                log(.info, nil, "player error\(code.map { " \($0)" } ?? "") ends media session \(session.mediaSessionId)")
                endCurrentSession(reason: .error)
            }
        case .stopApp:
            if runningApp?.definition.behaviour != .idleScreen {
                stopRunningApp()
                returnToIdleScreen()
                broadcastReceiverStatus(requestId: 0)
            }
        case .setStandby(let standby):
            isStandBy = standby
            broadcastReceiverStatus(requestId: 0)
        case .launchApp(let appId):
            if let definition = configuration.app(withId: appId), runningApp?.definition.appId != appId {
                launch(definition)
                broadcastReceiverStatus(requestId: 0)
            }
        case .remote(let key):
            remoteKey(key)
        case .sendMessage(let namespace, let source, let connection, let payload):
            let from = source ?? runningApp?.transportId ?? CastEndpoint.platformReceiver
            if let connection {
                // To the sender endpoints of that socket connected to `from` (or sender-0).
                let peers = virtualConnectionList.filter { $0.connection == connection && $0.localId == from }.map(\.peerId)
                for peer in peers.isEmpty ? [CastEndpoint.platformSender] : peers {
                    send(from: from, to: peer, on: connection, namespace: namespace, payload)
                }
            } else {
                broadcast(from: from, namespace: namespace, payload)
            }
        }
        return drain()
    }

    private mutating func remoteKey(_ key: OperatorInput.RemoteKey) {
        guard let session = mediaSession, session.pendingLoad == nil else { return }
        switch key {
        case .play, .pause:
            let updated = settingPlaying(key == .play, session)
            mediaSession = updated
            broadcastMediaStatus(updated, requestId: 0)
        case .stop:
            endCurrentSession(reason: .cancelled)
        }
    }
}
