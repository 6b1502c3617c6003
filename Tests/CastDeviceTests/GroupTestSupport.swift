import CastDevice
import CastSimulatorTesting
import CastWire
import Testing

/// A message one endpoint of a ``Fleet`` sent.
struct FleetMessage {
    let endpoint: HouseholdEndpoint
    let message: SentMessage

    var type: String? { message.type }
    var json: JSONValue { message.json }
    var namespace: String { message.envelope.namespace }
}

extension Array where Element == FleetMessage {
    func from(_ endpoint: HouseholdEndpoint) -> [FleetMessage] { filter { $0.endpoint == endpoint } }
    func ofType(_ type: String) -> [FleetMessage] { filter { $0.type == type } }
    /// The RECEIVER_STATUS messages' first application id, in order (nil: none runs).
    var appIds: [String?] {
        ofType("RECEIVER_STATUS").map { $0.json["status"]?["applications"]?.arrayValue?.first?["appId"]?.stringValue }
    }
}

/// A household of speakers and one group, each endpoint a real ``SimulatedDevice``, run
/// the way the runtime will: every event goes through the ``Household``, every action it
/// returns is carried out at once, until nothing is left. Manual clock, no sockets.
struct Fleet {
    static let kitchen = "1a2b3c4d000011112222333344445555"
    static let bedroom = "9f8e7d6c555544443333222211110000"
    static let den = "0d0e0f00aaaabbbbccccddddeeeeffff"
    static let upstairs = "6f1c0e2a9b3d4c5e8f7a1b2c3d4e5f60"
    static let port = 32162

    var household = Household()
    private(set) var endpoints: [HouseholdEndpoint: SimulatedDevice] = [:]
    var now = SimTime.zero
    /// Every message sent, in order.
    private(set) var wire: [FleetMessage] = []
    /// Every event raised, with its endpoint.
    private(set) var events: [(HouseholdEndpoint, DeviceEvent.Kind)] = []
    /// The runtime directives the household gave (start, stop, move).
    private(set) var directives: [HouseholdAction] = []
    /// Where each group endpoint is hosted now.
    private(set) var hosts: [String: String] = [:]

    /// Kitchen (0.8, leader), Bedroom (0.4) and Den (0): speakers in the group Upstairs.
    init(levels: [Double] = [0.8, 0.4, 0], createGroup: Bool = true) throws {
        for (uuid, name, level) in zip3([Self.kitchen, Self.bedroom, Self.den], ["Kitchen", "Bedroom", "Den"], levels) {
            var configuration = DeviceConfiguration(identity: try DeviceIdentity(
                uuid: uuid, friendlyName: name, modelName: "Google Home", supportsVideo: false))
            configuration.initialVolume = level
            configuration.heartbeatInterval = nil
            configuration.idleTimeout = nil
            household.addDevice(configuration)
            endpoints[.device(uuid)] = SimulatedDevice(configuration: configuration)
        }
        if createGroup {
            run(try household.createGroup(uuid: Self.upstairs, name: "Upstairs", members: [Self.kitchen, Self.bedroom, Self.den],
                                          leader: Self.kitchen, port: Self.port))
        }
    }

    static let group = HouseholdEndpoint.group(upstairs)
    static func device(_ uuid: String) -> HouseholdEndpoint { .device(uuid) }

    func device(_ endpoint: HouseholdEndpoint) -> SimulatedDevice? { endpoints[endpoint] }

    // MARK: The household loop

    /// Carries out `actions` and all they cause; returns the messages sent meanwhile.
    @discardableResult
    mutating func run(_ actions: [HouseholdAction]) -> [FleetMessage] {
        let start = wire.count
        var queue = actions
        var steps = 0
        while !queue.isEmpty {
            steps += 1
            guard steps < 500 else {
                Issue.record("the household loop does not settle")
                break
            }
            let action = queue.removeFirst()
            switch action {
            case .multizone(let input, let endpoint):
                guard var device = endpoints[endpoint] else { Issue.record("no endpoint \(endpoint)"); continue }
                let outputs = device.apply(input, now: now)
                endpoints[endpoint] = device
                queue += take(outputs, from: endpoint)
            case .operatorInput(let input, let endpoint):
                guard var device = endpoints[endpoint] else { Issue.record("no endpoint \(endpoint)"); continue }
                let outputs = device.apply(input, now: now)
                endpoints[endpoint] = device
                queue += take(outputs, from: endpoint)
            case .startGroupEndpoint(let groupId, let leaderId, _, let configuration):
                directives.append(action)
                hosts[groupId] = leaderId
                var device = SimulatedDevice(configuration: configuration, now: now)
                queue += take(device.advance(to: now), from: .group(groupId))
                endpoints[.group(groupId)] = device
            case .stopGroupEndpoint(let groupId):
                directives.append(action)
                hosts[groupId] = nil
                endpoints[.group(groupId)] = nil
            case .moveGroupEndpoint(let groupId, let leaderId, _):
                directives.append(action)
                hosts[groupId] = leaderId
                // The old host stops listening: its connections go, the device stays.
                guard var device = endpoints[.group(groupId)] else { continue }
                for connection in device.openConnections {
                    queue += take(device.connectionClosed(connection, now: now), from: .group(groupId))
                }
                endpoints[.group(groupId)] = device
            }
        }
        return Array(wire[start...])
    }

    private mutating func take(_ outputs: [DeviceOutput], from endpoint: HouseholdEndpoint) -> [HouseholdAction] {
        var actions: [HouseholdAction] = []
        for output in outputs {
            if let message = SentMessage(output) { wire.append(FleetMessage(endpoint: endpoint, message: message)) }
            if let event = output.event {
                events.append((endpoint, event.kind))
                actions += household.handle(event, from: endpoint)
            }
        }
        return actions
    }

    /// A household change (offline, online, leader move ...), carried out.
    @discardableResult
    mutating func change(_ body: (inout Household) throws -> [HouseholdAction]) throws -> [FleetMessage] {
        run(try body(&household))
    }

    // MARK: Senders

    /// Opens connection `id` to `endpoint` and CONNECTs `sender-0` to `receiver-0`.
    @discardableResult
    mutating func connect(_ endpoint: HouseholdEndpoint, _ id: UInt64) -> ConnectionID {
        let connection = ConnectionID(id)
        guard var device = endpoints[endpoint] else { preconditionFailure("no endpoint \(endpoint)") }
        let outputs = device.connectionOpened(connection, now: now)
        endpoints[endpoint] = device
        run(take(outputs, from: endpoint))
        send(endpoint, connection, CastNamespace.connection, ["type": "CONNECT"])
        return connection
    }

    /// Sends a payload from `sender-0` and carries out everything it causes.
    @discardableResult
    mutating func send(_ endpoint: HouseholdEndpoint, _ connection: ConnectionID, _ namespace: String, _ payload: JSONValue,
                       to destination: String = CastEndpoint.platformReceiver) -> [FleetMessage] {
        let start = wire.count
        guard var device = endpoints[endpoint] else { preconditionFailure("no endpoint \(endpoint)") }
        let envelope = CastEnvelope(sourceId: CastEndpoint.platformSender, destinationId: destination, namespace: namespace,
                                    payload: .string(payload.jsonText()))
        let outputs = device.receive(envelope, on: connection, now: now)
        endpoints[endpoint] = device
        run(take(outputs, from: endpoint))
        return Array(wire[start...])
    }

    /// An operator input (the remote) on one endpoint, carried out with all it causes.
    @discardableResult
    mutating func operate(_ endpoint: HouseholdEndpoint, _ input: OperatorInput) -> [FleetMessage] {
        run([.operatorInput(input, to: endpoint)])
    }

    /// LAUNCHes `appId` on `endpoint` over `connection` and CONNECTs to it; its transport id.
    mutating func launch(_ endpoint: HouseholdEndpoint, _ connection: ConnectionID, _ appId: String = "CC1AD845") -> String? {
        let sent = send(endpoint, connection, CastNamespace.receiver, ["type": "LAUNCH", "appId": .string(appId), "requestId": 1])
        let transportId = sent.from(endpoint).ofType("RECEIVER_STATUS").last?
            .json["status"]?["applications"]?.arrayValue?.first?["transportId"]?.stringValue
        if let transportId { send(endpoint, connection, CastNamespace.connection, ["type": "CONNECT"], to: transportId) }
        return transportId
    }

    /// MULTIZONE_STATUS of `endpoint`, asked over `connection`.
    mutating func multizoneStatus(_ endpoint: HouseholdEndpoint, _ connection: ConnectionID, requestId: Int = 9) -> JSONValue? {
        send(endpoint, connection, CastNamespace.multizone, ["type": "GET_STATUS", "requestId": .number(Double(requestId))])
            .ofType("MULTIZONE_STATUS").first?.json
    }

    /// The one application `endpoint` runs now, as RECEIVER_STATUS lists it.
    mutating func application(_ endpoint: HouseholdEndpoint, _ connection: ConnectionID) -> JSONValue? {
        send(endpoint, connection, CastNamespace.receiver, ["type": "GET_STATUS", "requestId": 77])
            .ofType("RECEIVER_STATUS").first?.json["status"]?["applications"]?.arrayValue?.first
    }

    func volume(_ uuid: String) -> Volume? { endpoints[.device(uuid)]?.volume }
}

private func zip3<A, B, C>(_ a: [A], _ b: [B], _ c: [C]) -> [(A, B, C)] {
    zip(zip(a, b), c).map { ($0.0, $0.1, $1) }
}
