import CastWire

/// The device at one instant, as a value: what ``SimulatedDevice/snapshot`` and the
/// runtime's `inspect` hand out, so no caller holds the device itself.
public struct DeviceSnapshot: Sendable, Equatable {
    public var time: SimTime
    public var identity: DeviceIdentity
    public var volume: Volume
    public var isStandBy: Bool
    public var runningApp: RunningAppSnapshot?
    /// Open transport connections, in order.
    public var connections: [ConnectionID]
    /// Virtual connections (sender endpoints to `receiver-0` or an app), in order.
    public var senders: [SenderSnapshot]
    /// In senders' device pickers (not withdrawn).
    public var isAdvertised: Bool
    /// How device-auth challenges are answered now.
    public var deviceAuth: DeviceAuthMode

    /// The running app's media session, if it has one.
    public var media: MediaSnapshot? { runningApp?.state.media }
}

public struct RunningAppSnapshot: Sendable, Equatable {
    public var appId: String
    public var displayName: String
    public var sessionId: String
    public var transportId: String
    public var namespaces: [String]
    /// What runs it: the key of its app in the registry.
    public var behaviour: AppBehaviour
    public var isIdleScreen: Bool
    public var state: AppStateSnapshot

    /// The app's panel in the control API's state and on the dashboard, if it has one.
    package var panel: AppPanel? { AppRegistry.builtIn.plugin(for: behaviour)?.panel }

    public var media: MediaSnapshot? { state.media }
}

/// A sender endpoint connected to one of the device's endpoints.
public struct SenderSnapshot: Sendable, Equatable {
    public var link: VirtualConnection
    public var type: VirtualConnectionType
    public var userAgent: String?
}

extension SimulatedDevice {
    /// The device as it stands now.
    package var snapshot: DeviceSnapshot { snapshot(at: now) }

    /// The device at `time` (not before its own `now`): positions of a playing player
    /// move on, nothing else changes until the device is next advanced.
    package func snapshot(at time: SimTime) -> DeviceSnapshot {
        let now = max(time, self.now)
        return DeviceSnapshot(
            time: now, identity: configuration.identity, volume: volume, isStandBy: isStandBy,
            runningApp: runningApp.map { running in
                RunningAppSnapshot(
                    appId: running.definition.appId, displayName: running.definition.displayName,
                    sessionId: running.sessionId, transportId: running.transportId,
                    namespaces: running.definition.namespaces, behaviour: running.definition.behaviour,
                    isIdleScreen: running.app.isIdleScreen,
                    state: running.app.snapshot(at: now))
            },
            connections: openConnections,
            senders: virtualConnections.entries.sorted { $0.key < $1.key }.map {
                SenderSnapshot(link: $0.key, type: $0.value.type, userAgent: $0.value.userAgent)
            },
            isAdvertised: isAdvertised, deviceAuth: deviceAuthMode)
    }
}
