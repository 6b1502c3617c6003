import CastWire

/// An app running on the device, behind the platform (`receiver-0`).
///
/// The platform owns routing: every message to the app's transport id, on a namespace the
/// app declares, reaches ``receive(_:context:)``. The app keeps its own state, answers
/// through its ``AppContext`` (never a socket), says when it next wants time, and is told
/// when it stops. What it brings besides its behaviour (its definitions, its part of the
/// scenario grammar, its panel) is its ``plugin``. A new app is a folder under `Apps/` with
/// a type conforming to this, and one line in ``AppRegistry/builtIn``.
package protocol CastApp: Sendable {
    /// The key scenario files and ``CastAppDefinition/behaviour`` use for this app.
    static var behaviour: AppBehaviour { get }

    /// Everything else the app brings to the device, the scenario files and the control
    /// API; nothing by default.
    static var plugin: AppPlugin { get }

    init(launch: AppLaunch)

    /// RECEIVER_STATUS `isIdleScreen`: Backdrop. A STOP without a session id leaves an
    /// idle screen running.
    var isIdleScreen: Bool { get }

    /// RECEIVER_STATUS `statusText` when the app says more than its name ("Application
    /// ready"); nil: the display name. An app that changes it says so
    /// (``AppContext/statusTextChanged()``), and the platform tells every sender.
    var statusText: String? { get }

    /// A message to the app's transport id on one of its namespaces.
    mutating func receive(_ message: AppMessage, context: inout AppContext)

    /// When the app next needs ``advance(context:)``, if ever.
    func nextDeadline(now: SimTime) -> SimTime?

    /// Handles what is due at `context.now`.
    mutating func advance(context: inout AppContext)

    /// Something done to the player from outside the protocol (the remote, a stall, an error).
    mutating func apply(_ input: AppInput, context: inout AppContext)

    /// The app is going away (STOP, another launch): it ends what it has running. It sends
    /// no status: the platform CLOSEs its senders' virtual connections.
    mutating func stop(context: inout AppContext)

    /// What inspection shows of the app's state.
    func snapshot(at now: SimTime) -> AppStateSnapshot

    /// Whether the app wants ``observe(_:context:)``: most apps do not, and the platform
    /// then spends nothing on it.
    var observesDeviceEvents: Bool { get }

    /// Something happened on the device, the app's own doing included (its media
    /// receiver's state changes) or the platform's (the device volume): an app that speaks
    /// about such changes on its own namespace learns of them here,
    /// from the one typed event stream, instead of comparing states.
    mutating func observe(_ event: DeviceEvent.Kind, context: inout AppContext)
}

extension CastApp {
    package static var plugin: AppPlugin { AppPlugin() }
    package var isIdleScreen: Bool { false }
    package var statusText: String? { nil }
    package func nextDeadline(now: SimTime) -> SimTime? { nil }
    package mutating func advance(context: inout AppContext) {}
    package mutating func apply(_ input: AppInput, context: inout AppContext) {}
    package mutating func stop(context: inout AppContext) {}
    package func snapshot(at now: SimTime) -> AppStateSnapshot { AppStateSnapshot() }
    package var observesDeviceEvents: Bool { false }
    package mutating func observe(_ event: DeviceEvent.Kind, context: inout AppContext) {}
}

/// What an app is launched with.
package struct AppLaunch: Sendable {
    package let definition: CastAppDefinition
    package let sessionId: String
    package let transportId: String
    package let configuration: DeviceConfiguration
    package let now: SimTime
}

/// A message for an app: the envelope, its JSON payload parsed once (nil when not JSON),
/// and the socket it came on.
package struct AppMessage: Sendable {
    package let envelope: CastEnvelope
    package let payload: JSONValue?
    package let connection: ConnectionID

    /// The sender endpoint of this message, answering `requestId`.
    package func requester(requestId: Int) -> Requester {
        Requester(connection: connection, senderId: envelope.sourceId, requestId: requestId)
    }
}

/// Operator inputs meant for the running app's player.
package enum AppInput: Sendable, Equatable {
    case buffer(seconds: Double)
    case playerError(detailedErrorCode: Int?)
    case adBreak(AdBreakInput)
    /// A session stored on another device goes on here (its `sessionState`).
    case resumeSession(JSONValue)
    case remote(OperatorInput.RemoteKey)
    /// One of the app's own timeline actions (``AppPlugin/actions``), as checked.
    case action(AppAction)
    /// The media plane of a Cast Streaming session reports (the mirroring app's).
    case streaming(StreamingReport)
}

/// What an app may do while it handles something: answer a sender, broadcast from its
/// transport id, raise events, log. It says these into its own ``Outbox``, addressed as the
/// platform addresses its own (a broadcast reaches the app's subscribers); the platform
/// passes them on in order. The app never sees a socket.
package struct AppContext: Sendable {
    package let now: SimTime
    package let transportId: String
    /// The device (receiver) volume as it stands.
    package let deviceVolume: Volume
    /// The device's deterministic generator (queue shuffles), shared so replays repeat.
    package var ids: IdentifierGenerator
    /// The last `mediaSessionId` the device handed out: ids grow for the life of the device.
    package var lastMediaSessionId: Int
    /// Who is connected to whom, as it stands while the app handles this.
    let connections: VirtualConnectionTable
    let isolateRequestIds: Bool
    private(set) var outbox = Outbox()
    /// The app's ``CastApp/statusText`` changed while it handled this.
    private(set) var changedStatusText = false

    init(now: SimTime, transportId: String, deviceVolume: Volume, ids: IdentifierGenerator, lastMediaSessionId: Int,
         connections: VirtualConnectionTable, isolateRequestIds: Bool) {
        self.now = now
        self.transportId = transportId
        self.deviceVolume = deviceVolume
        self.ids = ids
        self.lastMediaSessionId = lastMediaSessionId
        self.connections = connections
        self.isolateRequestIds = isolateRequestIds
    }

    /// To one sender endpoint, from the app's transport id.
    package mutating func send(_ payload: JSONPayload, namespace: String, to requester: Requester) {
        outbox.reply(payload, to: requester, from: transportId, namespace: namespace)
    }

    /// To every sender connected to the app; `requester` is the request it answers, if any.
    package mutating func broadcast(_ payload: JSONPayload, namespace: String, answering requester: Requester?) {
        outbox.broadcast(payload, from: transportId, namespace: namespace, to: connections.subscribers(of: transportId),
                         answering: requester, isolatingRequestIds: isolateRequestIds)
    }

    /// The app's ``CastApp/statusText`` is not what it was: every sender is told, in an
    /// unsolicited RECEIVER_STATUS, once the app is done.
    package mutating func statusTextChanged() { changedStatusText = true }

    package mutating func raise(_ event: DeviceEvent.Kind) {
        outbox.append(.event(DeviceEvent(time: now, kind: event)))
    }

    package mutating func log(_ level: DeviceLogEvent.Level, _ connection: ConnectionID?, _ message: LogMessage) {
        outbox.log(level, connection, message)
    }

    /// Answers a refused request with the protocol's error reply, and logs why.
    package mutating func reject(_ rejection: RequestRejection, type: String?, namespace: String, label: String,
                                 to requester: Requester) {
        log(.info, requester.connection, rejection.logLine(namespace: label, type: type))
        send(rejection.payload(requestId: requester.requestId), namespace: namespace, to: requester)
    }

    package mutating func nextMediaSessionId() -> Int {
        lastMediaSessionId += 1
        return lastMediaSessionId
    }
}

extension AppContext {
    /// A message on a namespace the app declares but does not speak: taken, not answered.
    package mutating func acceptWithoutAnswer(_ message: AppMessage, app definition: CastAppDefinition) {
        let line: LogMessage = "\(message.envelope.namespace) message to \(definition.displayName) accepted, no handler"
        log(.debug, message.connection, line)
        raise(.messageUnhandled(message.connection, namespace: message.envelope.namespace, reason: line.description))
    }
}
