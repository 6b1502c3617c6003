import CastWire

/// The simulated Cast device as a deterministic state machine.
///
/// Inputs are connection events, messages and the passage of time, each with `now`;
/// outputs are ``DeviceOutput``s. It never touches a socket or a clock, so a test of
/// "the item ends after its duration" is a call to ``advance(to:)``, not a sleep.
public struct SimulatedDevice: Sendable {
    public let configuration: DeviceConfiguration
    let authority: (any DeviceAuthority)?

    var virtualConnections = VirtualConnectionTable()
    var liveness: [ConnectionID: ConnectionLiveness] = [:]
    var ids: IdentifierGenerator
    var pending: [DeviceOutput] = []
    var now: SimTime
    /// The request being answered, for ``DeviceConfiguration/isolateRequestIds``.
    var activeRequester: Requester?

    /// Device volume (receiver namespace), distinct from each media session's stream volume.
    public internal(set) var volume: Volume
    public internal(set) var runningApp: RunningApp?
    /// The TV is in standby (video devices): `isStandBy` true, `isActiveInput` false.
    public internal(set) var isStandBy = false
    /// Last `mediaSessionId` handed out; they increase for the life of the device.
    var lastMediaSessionId = 0

    public init(configuration: DeviceConfiguration, authority: (any DeviceAuthority)? = nil, now: SimTime = .zero) {
        self.configuration = configuration
        self.authority = authority
        self.now = now
        self.volume = Volume(level: configuration.initialVolume.clamped(to: 0...1), muted: configuration.initiallyMuted)
        var seed: UInt64 = 0xC457_5117
        for byte in configuration.identity.uuid.utf8 { seed = (seed &* 31) &+ UInt64(byte) }
        self.ids = IdentifierGenerator(seed: seed)
        if let idleApp = configuration.idleScreenAppId.flatMap(configuration.app(withId:)) {
            runningApp = makeRunningApp(idleApp)
        }
    }

    // MARK: Inputs

    /// A sender opened a transport connection (after TLS).
    public mutating func connectionOpened(_ connection: ConnectionID, now: SimTime) -> [DeviceOutput] {
        self.now = max(self.now, now)
        liveness[connection] = ConnectionLiveness(openedAt: now, heartbeatInterval: configuration.heartbeatInterval)
        return drain()
    }

    /// A transport connection is gone: its virtual connections go with it.
    public mutating func connectionClosed(_ connection: ConnectionID, now: SimTime) -> [DeviceOutput] {
        self.now = max(self.now, now)
        liveness.removeValue(forKey: connection)
        virtualConnections.removeAll(on: connection)
        return drain()
    }

    /// One message from a sender.
    public mutating func receive(_ envelope: CastEnvelope, on connection: ConnectionID, now: SimTime) -> [DeviceOutput] {
        receive(envelope, payload: envelope.utf8.flatMap { try? JSONValue.parse($0) }, on: connection, now: now)
    }

    /// One message from a sender whose JSON payload the caller has already parsed (nil when
    /// it is not JSON), so it is parsed once however many layers look at it.
    public mutating func receive(_ envelope: CastEnvelope, payload: JSONValue?, on connection: ConnectionID,
                                 now: SimTime) -> [DeviceOutput] {
        self.now = max(self.now, now)
        guard liveness[connection] != nil else {
            log(.warning, connection, "message on unknown connection dropped")
            return drain()
        }
        // Any inbound message counts as liveness: castv2-client never answers our PINGs.
        liveness[connection]?.lastHeard = now
        route(envelope, payload: payload, on: connection)
        return drain()
    }

    /// Time passed: heartbeats, idle connections, playback reaching the end.
    ///
    /// Deadlines that fall before `target` are handled at their own time, in order, so an
    /// hour of manual-clock time plays out exactly as an hour of real time would.
    public mutating func advance(to target: SimTime) -> [DeviceOutput] {
        var steps = 0
        var previous: SimTime?
        while let deadline = nextDeadline, deadline <= target, steps < Self.maxStepsPerAdvance {
            // A deadline that handling did not move would spin here forever: a bug, logged.
            if deadline == previous, deadline <= now {
                log(.warning, nil, "deadline \(deadline) did not pass; skipping to \(target)")
                break
            }
            previous = deadline
            now = max(now, deadline)
            runHeartbeats()
            advanceMedia()
            steps += 1
        }
        if steps == Self.maxStepsPerAdvance {
            log(.warning, nil, "advance to \(target) stopped after \(steps) steps at \(now)")
        }
        now = max(now, target)
        runHeartbeats()
        advanceMedia()
        return drain()
    }

    /// The largest JSON payload the device sends: a frame body is at most 64 KiB, and the
    /// envelope's ids and namespace need some of it.
    static let maxPayloadBytes = 65536 - 1024

    /// A bound on the work one ``advance(to:)`` does, so no input can spin the device forever.
    static let maxStepsPerAdvance = 1_000_000

    /// The next time at which ``advance(to:)`` has something to do, if any.
    public var nextDeadline: SimTime? {
        [heartbeatDeadline, mediaDeadline].compactMap { $0 }.min()
    }

    /// The transport connections the device knows, in order.
    public var openConnections: [ConnectionID] { liveness.keys.sorted() }

    /// The virtual connections, sorted (for inspection).
    public var virtualConnectionList: [VirtualConnection] {
        virtualConnections.entries.keys.sorted { ($0.connection, $0.localId, $0.peerId) < ($1.connection, $1.localId, $1.peerId) }
    }

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
                log(.info, connection,
                    "dropped \(envelope.namespace) message from \(envelope.sourceId) to \(envelope.destinationId): no CONNECT to that endpoint")
                return
            }
            routeToEndpoint(envelope, payload: payload, on: connection)
        }
    }

    private mutating func routeToEndpoint(_ envelope: CastEnvelope, payload: JSONValue?, on connection: ConnectionID) {
        if envelope.destinationId == CastEndpoint.platformReceiver {
            guard envelope.namespace == CastNamespace.receiver else {
                log(.info, connection, "dropped \(envelope.namespace) message to receiver-0: not a platform namespace")
                return
            }
            withRequest(envelope, payload: payload, on: connection) { $0.handleReceiverNamespace($1, envelope, on: connection) }
            return
        }
        guard let app = runningApp, app.transportId == envelope.destinationId else {
            log(.info, connection, "dropped message to \(envelope.destinationId): no running app has that transport id")
            return
        }
        guard app.definition.namespaces.contains(envelope.namespace) else {
            log(.info, connection, "dropped \(envelope.namespace) message: \(app.definition.displayName) does not declare it")
            return
        }
        if envelope.namespace == CastNamespace.media, app.definition.behaviour == .mediaReceiver {
            withRequest(envelope, payload: payload, on: connection) { $0.handleMediaNamespace($1, envelope, on: connection) }
        } else {
            log(.debug, connection, "\(envelope.namespace) message to \(app.definition.displayName) accepted, no handler")
        }
    }

    /// Decodes a JSON request once and runs its handler with the request's sender
    /// recorded as the one being answered.
    private mutating func withRequest(_ envelope: CastEnvelope, payload: JSONValue?, on connection: ConnectionID,
                                      _ body: (inout SimulatedDevice, Result<Request, Request.Malformed>) -> Void) {
        let decoded = Request.decode(envelope, payload: payload, on: connection)
        if case .success(let request) = decoded { activeRequester = Requester(request) }
        body(&self, decoded)
        activeRequester = nil
    }

    // MARK: Output helpers

    mutating func drain() -> [DeviceOutput] {
        defer { pending.removeAll(keepingCapacity: true) }
        return pending
    }

    mutating func log(_ level: DeviceLogEvent.Level, _ connection: ConnectionID?, _ message: String) {
        pending.append(.log(DeviceLogEvent(level, connection, message)))
    }

    /// Sends a JSON payload back to the endpoint that sent `request`, on its socket,
    /// with source and destination swapped.
    mutating func reply(to request: CastEnvelope, on connection: ConnectionID, _ payload: JSONValue) {
        pending.append(.send(request.reply(.string(payload.jsonText())), to: [connection]))
    }

    /// Sends a JSON payload from `localId` to every socket connected to it, destination `*`.
    /// `text` is the payload already encoded, when the caller has it.
    mutating func broadcast(from localId: String, namespace: String, _ payload: JSONValue, text: String? = nil) {
        var recipients = virtualConnections.subscribers(of: localId)
        if configuration.isolateRequestIds, let requester = activeRequester, let requestId = payload["requestId"]?.intValue,
           requestId != 0, requestId == requester.requestId {
            // The requester alone gets its id back; the others a copy with requestId 0.
            send(from: localId, to: requester.senderId, on: requester.connection, namespace: namespace, payload)
            recipients.removeAll { $0 == requester.connection }
            guard !recipients.isEmpty else { return }
            let copy = CastEnvelope(
                sourceId: localId, destinationId: CastEndpoint.broadcast, namespace: namespace,
                payload: .string(payload.replacing("requestId", with: 0).jsonText()))
            pending.append(.send(copy, to: recipients))
            return
        }
        guard !recipients.isEmpty else { return }
        let envelope = CastEnvelope(
            sourceId: localId, destinationId: CastEndpoint.broadcast,
            namespace: namespace, payload: .string(text ?? payload.jsonText()))
        pending.append(.send(envelope, to: recipients))
    }

    /// Sends a JSON payload to one named sender endpoint on one socket.
    mutating func send(from localId: String, to peerId: String, on connection: ConnectionID, namespace: String, _ payload: JSONValue) {
        let envelope = CastEnvelope(
            sourceId: localId, destinationId: peerId, namespace: namespace, payload: .string(payload.jsonText()))
        pending.append(.send(envelope, to: [connection]))
    }
}

/// A level in 0...1 and a mute flag, for the device and for media streams.
public struct Volume: Sendable, Equatable {
    public var level: Double
    public var muted: Bool

    public init(level: Double, muted: Bool) {
        self.level = level
        self.muted = muted
    }
}

extension Comparable {
    func clamped(to range: ClosedRange<Self>) -> Self { min(max(self, range.lowerBound), range.upperBound) }
}
