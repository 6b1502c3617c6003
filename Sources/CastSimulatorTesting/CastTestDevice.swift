import CastDevice
import CastScenario
import CastWire
import Foundation

/// A simulated device driven by direct calls, the way the runtime drives it, with a manual
/// clock: no sockets, no threads, no sleeps. Every input returns the messages the device
/// sent because of it, and everything is recorded for later checks.
///
/// A plain device is the core alone: an input at a time is handled as it comes, and what
/// falls due is handled when ``advance(_:)`` says time passed. A scenario runs its
/// ``ScenarioSession`` as the runtime does: steps, rules, faults, expectations.
package struct CastTestDevice {
    private enum Driver {
        case device(SimulatedDevice)
        case scenario(ScenarioSession)
    }

    private var driver: Driver
    package var now: SimTime = .zero
    /// Everything put out, in order.
    package private(set) var outputs: [ScenarioOutput] = []
    /// Each connection's heartbeats, on this device's one clock (the runtime keeps them on
    /// the real clock; here both clocks are the test's).
    private var heartbeats: HeartbeatSchedule
    /// The last message number a plain device's output got (a session numbers its own).
    private var lastSequence = 0
    /// What the device said, as the runtime's journal keeps it.
    package private(set) var journal: MessageJournal

    /// A plain device (no scenario), its configuration adjusted by `configure`.
    package init(configure: (inout DeviceConfiguration) -> Void = { _ in }, authority: (any DeviceAuthority)? = nil,
                 apps: AppRegistry = .builtIn) {
        var configuration = DeviceConfiguration(identity: try! DeviceIdentity(uuid: "0123456789abcdef0123456789abcdef"))
        configure(&configuration)
        var device = SimulatedDevice(configuration: configuration, authority: authority, apps: apps)
        let started = device.advance(to: .zero)
        driver = .device(device)
        heartbeats = HeartbeatSchedule(heartbeatInterval: configuration.heartbeatInterval, idleTimeout: configuration.idleTimeout)
        journal = MessageJournal()
        record(started.map { told($0) })
    }

    /// A device running `scenario`.
    package init(scenario: Scenario, authority: (any DeviceAuthority)? = nil, apps: AppRegistry = .builtIn,
                 journalLimit: Int = MessageJournal.defaultLimit) {
        var session = ScenarioSession(scenario: scenario, authority: authority, apps: apps)
        let started = session.advance(to: .zero)
        driver = .scenario(session)
        heartbeats = HeartbeatSchedule(heartbeatInterval: scenario.device.heartbeatInterval, idleTimeout: scenario.device.idleTimeout)
        journal = MessageJournal(limit: journalLimit)
        record(started)
    }

    /// A device running the scenario in `json`.
    package init(scenarioJSON json: String) throws {
        self.init(scenario: try Scenario.parse(Data(json.utf8)))
    }

    /// The scenario session; only a device made from a scenario has one.
    package var session: ScenarioSession {
        guard case .scenario(let session) = driver else { preconditionFailure("a plain test device runs no scenario") }
        return session
    }

    package var device: SimulatedDevice {
        switch driver {
        case .device(let device): device
        case .scenario(let session): session.device
        }
    }

    /// A plain device's output as a session would tell it.
    private mutating func told(_ output: DeviceOutput) -> ScenarioOutput {
        switch output {
        case .send(let envelope, let recipients):
            lastSequence += 1
            return .message(JournalEntry(sequence: lastSequence, time: now, direction: .outbound, connections: ConnectionList(recipients),
                                         envelope: envelope, unhandled: nil, payloadIsOwnJSON: true))
        case .close(let id, let reason): return .close(id, reason: reason)
        case .log(let line): return .log(line)
        case .event(let event): return .event(event)
        }
    }

    /// Feeds one input to the device or the session, in place, and records what came out.
    @discardableResult
    private mutating func drive(_ onDevice: (inout SimulatedDevice) -> [DeviceOutput],
                                _ onSession: (inout ScenarioSession) -> [ScenarioOutput]) -> [SentMessage] {
        let new: [ScenarioOutput]
        switch driver {
        case .device(var device):
            let said = onDevice(&device)
            driver = .device(device)
            new = said.map { told($0) }
        case .scenario(var session):
            new = onSession(&session)
            driver = .scenario(session)
        }
        record(new)
        for case .close(let id, _) in new { heartbeats.remove(id) }
        return new.compactMap(SentMessage.init)
    }

    private mutating func record(_ new: [ScenarioOutput]) {
        outputs += new
        for output in new { journal.hear(output) }
    }

    // MARK: What happened

    /// When a connection's heartbeat is next due, on the connections' clock.
    package var nextHeartbeat: Double? { heartbeats.earliest }

    /// The device as it stands at ``now``.
    package var snapshot: DeviceSnapshot { device.snapshot(at: now) }

    /// The messages sent, from output `index` on.
    package func sent(since index: Int = 0) -> [SentMessage] {
        outputs[index...].compactMap(SentMessage.init)
    }

    package var closed: [(ConnectionID, String)] {
        outputs.compactMap { if case .close(let id, let reason) = $0 { (id, reason) } else { nil } }
    }

    package var logs: [DeviceLogEvent] {
        outputs.compactMap { if case .log(let event) = $0 { event } else { nil } }
    }

    package var events: [DeviceEvent] {
        outputs.compactMap { if case .event(let event) = $0 { event } else { nil } }
    }

    /// The transport id of the running app.
    package var transportId: String? { snapshot.runningApp?.transportId }

    package func expectation(_ name: String) -> ScenarioReport.ExpectationResult? {
        session.report().expectations.first { $0.name == name }
    }

    // MARK: Inputs

    /// Opens connection `id`, presented `tlsCertificateDER` in its TLS handshake (nil: the authority's).
    package mutating func open(_ id: UInt64, tlsCertificateDER: Data? = nil) -> ConnectionID {
        let connection = ConnectionID(id)
        let now = now
        heartbeats.open(connection, at: now.seconds)
        drive({ $0.connectionOpened(connection, now: now, tlsCertificateDER: tlsCertificateDER) },
              { $0.connectionOpened(connection, now: now, tlsCertificateDER: tlsCertificateDER) })
        return connection
    }

    @discardableResult
    package mutating func close(_ connection: ConnectionID) -> [SentMessage] {
        let now = now
        heartbeats.remove(connection)
        return drive({ $0.connectionClosed(connection, now: now) }, { $0.connectionClosed(connection, now: now) })
    }

    /// Sends a JSON payload and returns the messages the device sent in response.
    @discardableResult
    package mutating func send(_ connection: ConnectionID, from source: String = CastEndpoint.platformSender,
                               to destination: String = CastEndpoint.platformReceiver,
                               _ namespace: String, _ payload: JSONValue) -> [SentMessage] {
        sendRaw(connection, CastEnvelope(sourceId: source, destinationId: destination, namespace: namespace,
                                         payload: .string(payload.jsonText())))
    }

    @discardableResult
    package mutating func sendRaw(_ connection: ConnectionID, _ envelope: CastEnvelope) -> [SentMessage] {
        let now = now
        heartbeats.heard(connection, at: now.seconds)
        return drive({ $0.receive(envelope, on: connection, now: now) }, { $0.receive(envelope, on: connection, now: now) })
    }

    /// Advances time by `seconds` and returns what the device sent meanwhile: what fell due
    /// on the simulation clock, and the heartbeats due on the way, each at its time.
    @discardableResult
    package mutating func advance(_ seconds: Double) -> [SentMessage] {
        let target = now + seconds
        var sent: [SentMessage] = []
        while let due = heartbeats.earliest, due <= target.seconds {
            now = max(now, SimTime(seconds: due))
            let at = now
            sent += drive({ $0.advance(to: at) }, { $0.advance(to: at) })
            for (connection, beat) in heartbeats.takeDue(at: at.seconds) {
                sent += drive({ $0.heartbeatDue(beat, on: connection, now: at) }, { $0.heartbeatDue(beat, on: connection, now: at) })
            }
        }
        now = target
        return sent + drive({ $0.advance(to: target) }, { $0.advance(to: target) })
    }

    /// Moves the simulation clock alone, as a manual clock is moved: heartbeats are on the
    /// connections' real clock and do not follow it.
    @discardableResult
    package mutating func advanceSimulationClock(_ seconds: Double) -> [SentMessage] {
        now = now + seconds
        let now = now
        return drive({ $0.advance(to: now) }, { $0.advance(to: now) })
    }

    @discardableResult
    package mutating func apply(_ input: OperatorInput) -> [SentMessage] {
        let now = now
        return drive({ $0.apply(input, now: now) }, { $0.apply(input, now: now) })
    }

    /// CONNECTs `source` to `destination` on the connection namespace.
    package mutating func connect(_ connection: ConnectionID, from source: String = CastEndpoint.platformSender,
                                  to destination: String = CastEndpoint.platformReceiver) {
        send(connection, from: source, to: destination, CastNamespace.connection, ["type": "CONNECT"])
    }

    /// Opens a connection (unless it is open), CONNECTs to receiver-0, launches `appId` and
    /// CONNECTs to it; returns the connection and the app's transport id.
    package mutating func launch(_ appId: String = CastAppDefinition.defaultMediaReceiver.appId, on id: UInt64 = 1,
                                 source: String = CastEndpoint.platformSender) -> (ConnectionID, String) {
        let connection = ConnectionID(id)
        if !snapshot.connections.contains(connection) { _ = open(id) }
        connect(connection, from: source)
        let replies = send(connection, from: source, to: CastEndpoint.platformReceiver, CastNamespace.receiver,
                           ["type": "LAUNCH", "appId": .string(appId), "requestId": 1])
        let status = replies.last { $0.type == "RECEIVER_STATUS" }
        let transportId = status?.json["status"]?["applications"]?.arrayValue?.first?["transportId"]?.stringValue ?? ""
        connect(connection, from: source, to: transportId)
        return (connection, transportId)
    }
}

/// One message the device sent, with its JSON parsed.
package struct SentMessage {
    package let envelope: CastEnvelope
    package let to: [ConnectionID]
    package let json: JSONValue

    /// A message the core itself sent (a test that drives a ``SimulatedDevice`` directly).
    package init?(_ output: DeviceOutput) {
        guard case .send(let envelope, let to) = output else { return nil }
        self.envelope = envelope
        self.to = to
        json = envelope.utf8.flatMap { try? JSONValue.parse($0) } ?? .null
    }

    package init?(_ output: ScenarioOutput) {
        guard case .message(let entry) = output, entry.direction == .outbound else { return nil }
        envelope = entry.envelope
        to = Array(entry.connections)
        json = envelope.utf8.flatMap { try? JSONValue.parse($0) } ?? .null
    }

    package var type: String? { json["type"]?.stringValue }
    package var requestId: Int? { json["requestId"]?.intValue }
    package var isBroadcast: Bool { envelope.destinationId == CastEndpoint.broadcast }
    /// The first MediaStatus of a MEDIA_STATUS.
    package var mediaStatus: JSONValue? { json["status"]?.arrayValue?.first }
}

extension Array where Element == SentMessage {
    /// The messages of one type.
    package func ofType(_ type: String) -> [SentMessage] { filter { $0.type == type } }
    /// The MediaStatus entries of every MEDIA_STATUS, in order.
    package var statuses: [JSONValue] { ofType("MEDIA_STATUS").compactMap(\.mediaStatus) }
}

/// A test device with the Default Media Receiver running and one sender connected to it:
/// the setting of every media test.
package struct TestMediaSender {
    package var device: CastTestDevice
    package let connection: ConnectionID
    package let transportId: String
    private var nextRequestId = 100

    package init(configure: (inout DeviceConfiguration) -> Void = { _ in }) {
        device = CastTestDevice { configuration in
            configuration.heartbeatInterval = nil
            configuration.idleTimeout = nil
            configure(&configuration)
        }
        (connection, transportId) = device.launch()
    }

    /// Sends a media request (a requestId is added when missing) and returns the replies.
    @discardableResult
    package mutating func send(_ fields: [String: JSONValue]) -> [SentMessage] {
        var fields = fields
        if fields["requestId"] == nil {
            nextRequestId += 1
            fields["requestId"] = .number(Double(nextRequestId))
        }
        return device.send(connection, to: transportId, CastNamespace.media, .object(fields))
    }

    @discardableResult
    package mutating func advance(_ seconds: Double) -> [SentMessage] { device.advance(seconds) }

    /// The media session as it stands, nil when there is none.
    package var session: MediaSnapshot? { device.snapshot.media }

    /// A queue item for `name`, `duration` seconds long.
    package static func item(_ name: String, duration: Double = 60, extra: [String: JSONValue] = [:]) -> JSONValue {
        var fields: [String: JSONValue] = [
            "media": ["contentId": .string("http://example.test/\(name).mp3"), "contentType": "audio/mpeg",
                      "streamType": "BUFFERED", "duration": .number(duration),
                      "metadata": ["metadataType": 3, "title": .string(name)]],
        ]
        fields.merge(extra) { _, new in new }
        return .object(fields)
    }

    /// QUEUE_LOADs `count` items named t1...tN.
    @discardableResult
    package mutating func queueLoad(_ count: Int, duration: Double = 60, repeatMode: String = "REPEAT_OFF",
                                    startIndex: Int = 0, extra: [String: JSONValue] = [:]) -> [SentMessage] {
        var fields: [String: JSONValue] = [
            "type": "QUEUE_LOAD", "repeatMode": .string(repeatMode), "startIndex": .number(Double(startIndex)),
            "items": .array((1...count).map { Self.item("t\($0)", duration: duration) }),
        ]
        fields.merge(extra) { _, new in new }
        return send(fields)
    }

    package var itemIds: [Int] { session?.queue.itemIds ?? [] }
}
