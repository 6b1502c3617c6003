import CastWire
import Foundation

/// The simulated Cast device as a deterministic state machine: the platform (`receiver-0`,
/// virtual connections, heartbeat, device auth) and the app it runs.
///
/// Inputs are connection events, messages, operator inputs and the passage of time, each
/// with `now`; outputs are ``DeviceOutput``s: messages, closes, log lines and typed events.
/// It never touches a socket or a clock, so a test of "the item ends after its duration"
/// is a call to ``advance(to:)``, not a sleep.
package struct SimulatedDevice: Sendable, DeadlineDriven {
    package let configuration: DeviceConfiguration
    let authority: (any DeviceAuthority)?
    let registry: AppRegistry

    var virtualConnections = VirtualConnectionTable()
    var heartbeats: HeartbeatSchedule
    var ids: IdentifierGenerator
    var pending: [DeviceOutput] = []
    package var now: SimTime

    /// Device volume (receiver namespace), distinct from each media session's stream volume.
    package internal(set) var volume: Volume
    package internal(set) var runningApp: RunningApp?
    /// The TV is in standby (video devices): `isStandBy` true, `isActiveInput` false.
    package internal(set) var isStandBy = false
    /// Last `mediaSessionId` handed out; they increase for the life of the device.
    var lastMediaSessionId = 0
    /// The last RECEIVER_STATUS `status` built, and its text (``receiverStatusMessage(requestId:)``).
    var receiverStatusCache: ReceiverStatusCache?
    /// Set while the running app observes an event (``raise(_:)``).
    var appIsObserving = false
    /// Whether the device is in senders' device pickers (``AdvertisementChange``).
    package internal(set) var isAdvertised = true
    /// How device-auth challenges are answered now (a scenario step may change it).
    package internal(set) var deviceAuthMode: DeviceAuthMode
    /// The TLS certificate each connection was presented, when the runtime said (it is
    /// renewed on a long-running device, so connections differ).
    var tlsCertificates: [ConnectionID: Data] = [:]
    /// The device's own entry in multizone messages, but its volume: made once, since a
    /// DEVICE_UPDATED about itself follows every volume change (normalizing and dashing
    /// the UUID each time was most of that message's cost).
    let ownMultizoneEntry: [String: JSONValue]
    /// Speaker groups: a group endpoint's members, the group session a member mirrors.
    var multizone = MultizoneState()

    package init(configuration: DeviceConfiguration, authority: (any DeviceAuthority)? = nil,
                 apps registry: AppRegistry = .builtIn, now: SimTime = .zero) {
        self.configuration = configuration
        self.authority = authority
        self.registry = registry
        self.now = now
        self.heartbeats = HeartbeatSchedule(heartbeatInterval: configuration.heartbeatInterval,
                                            idleTimeout: configuration.idleTimeout)
        self.volume = Volume(level: configuration.initialVolume.clamped(to: 0...1), muted: configuration.initiallyMuted)
        self.deviceAuthMode = configuration.deviceAuth
        ownMultizoneEntry = MultizoneMember(identity: configuration.identity, volume: Volume(level: 0, muted: false)).entryWithoutVolume
        var seed: UInt64 = 0xC457_5117
        for byte in configuration.identity.uuid.utf8 { seed = (seed &* 31) &+ UInt64(byte) }
        self.ids = IdentifierGenerator(seed: seed)
        self.multizone = MultizoneState(configuration.multizone)
        returnToIdleScreen()
    }

    // MARK: Inputs

    /// A sender opened a transport connection, presented with `tlsCertificateDER` (device
    /// auth signs over it; nil: the authority's current one).
    package mutating func connectionOpened(_ connection: ConnectionID, now: SimTime, tlsCertificateDER: Data? = nil)
        -> [DeviceOutput]
    {
        self.now = max(self.now, now)
        heartbeats.open(connection, at: self.now)
        if let tlsCertificateDER { tlsCertificates[connection] = tlsCertificateDER }
        raise(.connectionOpened(connection))
        return drain()
    }

    /// A transport connection is gone: its virtual connections go with it.
    package mutating func connectionClosed(_ connection: ConnectionID, now: SimTime) -> [DeviceOutput] {
        self.now = max(self.now, now)
        forget(connection, reason: .closed)
        return drain()
    }

    /// One message from a sender.
    package mutating func receive(_ envelope: CastEnvelope, on connection: ConnectionID, now: SimTime) -> [DeviceOutput] {
        receive(envelope, payload: envelope.utf8.flatMap { try? JSONValue.parse($0) }, on: connection, now: now)
    }

    /// One message from a sender whose JSON payload the caller has already parsed (nil when
    /// it is not JSON), so it is parsed once however many layers look at it.
    package mutating func receive(_ envelope: CastEnvelope, payload: JSONValue?, on connection: ConnectionID,
                                  now: SimTime) -> [DeviceOutput] {
        self.now = max(self.now, now)
        guard heartbeats.contains(connection) else {
            unhandled(envelope, on: connection, .warning, "message on unknown connection dropped")
            return drain()
        }
        // Any inbound message counts as liveness: castv2-client never answers our PINGs.
        heartbeats.heard(connection, at: self.now)
        route(envelope, payload: payload, on: connection)
        return drain()
    }

    /// Time passed: heartbeats, idle connections, the app's own deadlines (playback
    /// reaching the end, loads completing).
    package mutating func advance(to target: SimTime) -> [DeviceOutput] {
        runDeadlines(until: target)
        return drain()
    }

    /// The next time at which ``advance(to:)`` has something to do, if any.
    package var nextDeadline: SimTime? {
        let app = runningApp?.app.nextDeadline(now: now)
        guard let heartbeat = heartbeatDeadline else { return app }
        return app.map { min($0, heartbeat) } ?? heartbeat
    }

    package mutating func handleDue() {
        runHeartbeats()
        withRunningApp { app, context in app.advance(context: &context) }
    }

    package mutating func warn(_ message: LogMessage) {
        log(.warning, nil, message)
    }

    /// The transport connections the device knows, in order.
    package var openConnections: [ConnectionID] { heartbeats.sockets.keys.sorted() }

    // MARK: Routing

    private mutating func route(_ envelope: CastEnvelope, payload: JSONValue?, on connection: ConnectionID) {
        switch envelope.namespace {
        case CastNamespace.connection:
            handleConnectionNamespace(envelope, payload: payload, on: connection)
        case CastNamespace.heartbeat:
            handleHeartbeat(envelope, payload: payload, on: connection)
        case CastNamespace.deviceAuth:
            handleDeviceAuth(envelope, on: connection)
        default:
            let link = VirtualConnection(connection: connection, localId: envelope.destinationId, peerId: envelope.sourceId)
            guard CastNamespace.isTransport(envelope.namespace) || virtualConnections.contains(link) else {
                unhandled(envelope, on: connection, .info,
                          "dropped \(envelope.namespace) message from \(envelope.sourceId) to \(envelope.destinationId): no CONNECT to that endpoint")
                return
            }
            routeToEndpoint(envelope, payload: payload, on: connection)
        }
    }

    /// receiver-0 takes the receiver and multizone namespaces; every other endpoint is a running app's
    /// transport id, and the app takes every namespace it declares.
    private mutating func routeToEndpoint(_ envelope: CastEnvelope, payload: JSONValue?, on connection: ConnectionID) {
        if envelope.destinationId == CastEndpoint.platformReceiver {
            switch envelope.namespace {
            case CastNamespace.receiver:
                handleReceiverNamespace(envelope, payload: payload, on: connection)
            case CastNamespace.multizone:
                handleMultizoneNamespace(envelope, payload: payload, on: connection)
            default:
                unhandled(envelope, on: connection, .info, "dropped \(envelope.namespace) message to receiver-0: not a platform namespace")
            }
            return
        }
        guard let running = runningApp, running.transportId == envelope.destinationId else {
            unhandled(envelope, on: connection, .info, "dropped message to \(envelope.destinationId): no running app has that transport id")
            return
        }
        guard running.definition.namespaces.contains(envelope.namespace) else {
            unhandled(envelope, on: connection, .info,
                      "dropped \(envelope.namespace) message: \(running.definition.displayName) does not declare it")
            return
        }
        let message = AppMessage(envelope: envelope, payload: payload, connection: connection)
        withRunningApp { app, context in app.receive(message, context: &context) }
    }

    /// Runs `body` on the running app with a fresh context, then carries out what it did.
    mutating func withRunningApp(_ body: (inout any CastApp, inout AppContext) -> Void) {
        guard let transportId = runningApp?.transportId else { return }
        var context = AppContext(now: now, transportId: transportId, deviceVolume: volume, ids: ids,
                                 lastMediaSessionId: lastMediaSessionId)
        body(&runningApp!.app, &context)
        ids = context.ids
        lastMediaSessionId = context.lastMediaSessionId
        for effect in context.effects {
            switch effect {
            case .send(let payload, let namespace, let requester):
                reply(payload, to: requester, from: transportId, namespace: namespace)
            case .broadcast(let payload, let namespace, let requester):
                broadcast(from: transportId, namespace: namespace, payload, answering: requester)
            case .event(let kind):
                raise(kind)
            case .log(let level, let connection, let message):
                log(level, connection, message)
            }
        }
    }

    // MARK: Outputs

    mutating func drain() -> [DeviceOutput] {
        defer { pending.removeAll(keepingCapacity: true) }
        return pending
    }

    mutating func log(_ level: DeviceLogEvent.Level, _ connection: ConnectionID?, _ message: LogMessage) {
        pending.append(.log(DeviceLogEvent(level, connection, message)))
    }

    /// A sender's message no handler takes: logged, and raised so the journal can say so.
    mutating func unhandled(_ envelope: CastEnvelope, on connection: ConnectionID, _ level: DeviceLogEvent.Level, _ message: LogMessage) {
        let line = DeviceLogEvent(level, connection, message)
        pending.append(.log(line))
        raise(.messageUnhandled(connection, namespace: envelope.namespace, reason: line.message))
    }

    mutating func raise(_ kind: DeviceEvent.Kind) {
        pending.append(.event(DeviceEvent(time: now, kind: kind)))
        // The running app hears of it; what it raises while it listens is not fed back.
        guard !appIsObserving, runningApp?.app.observesDeviceEvents == true else { return }
        appIsObserving = true
        withRunningApp { app, context in app.observe(kind, context: &context) }
        appIsObserving = false
    }

    /// Answers the sender endpoint of a request, from `localId`. An answer too large for
    /// one frame is never dropped silently: the sender gets INVALID_REQUEST instead (the
    /// answers the protocol lets us shorten, MEDIA_STATUS and QUEUE_ITEMS, are shortened
    /// before they get here), and the log says so.
    mutating func reply(_ payload: JSONPayload, to requester: Requester, from localId: String, namespace: String) {
        var payload = payload
        if payload.byteCount > CastFraming.maxPayloadBytes {
            let rejection = RequestRejection.invalidRequest(
                .invalidRequest,
                "the \(payload.value["type"]?.stringValue ?? "answer") answer is \(payload.byteCount) bytes, over the \(CastFraming.maxPayloadBytes)-byte limit of one message")
            log(.warning, requester.connection, rejection.logLine(namespace: namespace, type: nil))
            payload = rejection.payload(requestId: requester.requestId)
        }
        send(payload, from: localId, to: requester.senderId, on: requester.connection, namespace: namespace)
    }

    /// Sends a payload to one sender endpoint on one socket.
    mutating func send(_ payload: JSONPayload, from localId: String, to peerId: String, on connection: ConnectionID,
                       namespace: String) {
        let envelope = CastEnvelope(sourceId: localId, destinationId: peerId, namespace: namespace, payload: .string(payload.text))
        pending.append(.send(envelope, to: [connection]))
    }

    /// Sends a payload from `localId` to every socket connected to it, destination `*`.
    /// `requester` is the request it answers, if any (``DeviceConfiguration/isolateRequestIds``).
    mutating func broadcast(from localId: String, namespace: String, _ payload: JSONPayload, answering requester: Requester?) {
        guard payload.byteCount <= CastFraming.maxPayloadBytes else {
            log(.warning, nil, "not sent: a \(payload.byteCount)-byte \(payload.value["type"]?.stringValue ?? namespace) broadcast is over the \(CastFraming.maxPayloadBytes)-byte limit of one message")
            return
        }
        var recipients = virtualConnections.subscribers(of: localId)
        if configuration.isolateRequestIds, let requester, requester.requestId != 0,
           payload.value["requestId"]?.intValue == requester.requestId {
            // The requester alone gets its id back; the others a copy with requestId 0.
            send(payload, from: localId, to: requester.senderId, on: requester.connection, namespace: namespace)
            recipients.removeAll { $0 == requester.connection }
            guard !recipients.isEmpty else { return }
            let copy = JSONPayload(payload.value.replacing("requestId", with: 0))
            pending.append(.send(CastEnvelope(sourceId: localId, destinationId: CastEndpoint.broadcast, namespace: namespace,
                                              payload: .string(copy.text)), to: recipients))
            return
        }
        guard !recipients.isEmpty else { return }
        pending.append(.send(CastEnvelope(sourceId: localId, destinationId: CastEndpoint.broadcast, namespace: namespace,
                                          payload: .string(payload.text)), to: recipients))
    }
}

/// A level in 0...1 and a mute flag, for the device and for media streams.
public struct Volume: Sendable, Equatable, Codable {
    public var level: Double
    public var muted: Bool

    public init(level: Double, muted: Bool) {
        self.level = level
        self.muted = muted
    }

    /// `{"level": ..., "muted": ...}`, as MEDIA_STATUS carries a stream's volume.
    public var json: JSONValue { ["level": .number(level), "muted": .bool(muted)] }
}

extension Comparable {
    func clamped(to range: ClosedRange<Self>) -> Self { min(max(self, range.lowerBound), range.upperBound) }
}
