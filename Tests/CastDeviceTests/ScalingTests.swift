import CastDevice
import CastWire
import Testing

/// The device must do the same work for one sender's message, open or close whether a
/// hundred senders are connected or ten thousand: nothing on those paths may look at every
/// connection. Work is counted, not timed: the heartbeat schedule, the virtual connection
/// indexes and the scenario's connection list count the entries they look at
/// (``SimulatedDevice/countVisits(_:)``).
@Suite("Per-sender work does not grow with the number of senders")
struct ScalingTests {
    @Test("A unicast request, an open, a close, a due heartbeat, an app broadcast: same work for 100 and 10,000 senders")
    func perSenderWorkIsFlat() {
        let small = SenderFleet.measure(senders: 100)
        let large = SenderFleet.measure(senders: 10_000)
        for (operation, smallCount) in small.sorted(by: { $0.key < $1.key }) {
            let largeCount = large[operation] ?? 0
            // A heap or an index grows by a level or two from 100 to 10,000 entries; a scan grows 100×.
            #expect(largeCount <= 3 * max(smallCount, 4), "\(operation): \(smallCount) visits with 100 senders, \(largeCount) with 10,000")
        }
    }

    /// Visits count only what is instrumented; time catches a scan anywhere else. Each
    /// figure is the median of 300 single operations, so a slow moment does not decide
    /// it. A scan of every sender would make the large case about 100 times slower; a
    /// hash table ten times fuller and colder in cache, two or three.
    @Test("A GET_STATUS and a close take about as long with 10,000 senders as with 100")
    func perSenderTimeIsFlat() {
        let small = SenderFleet.medianTimes(senders: 100)
        let large = SenderFleet.medianTimes(senders: 10_000)
        for (operation, smallTime) in small.sorted(by: { $0.key < $1.key }) {
            let largeTime = large[operation]!
            #expect(largeTime <= smallTime * 10, "\(operation): \(smallTime) with 100 senders, \(largeTime) with 10,000")
        }
    }
}

/// `senders` sockets, each with `sender-0` CONNECTed to `receiver-0` as every sender does
/// first, driven straight through ``SimulatedDevice`` the way the runtime drives it: every
/// input is followed by a look at ``SimulatedDevice/nextDeadline``.
private struct SenderFleet {
    var device: SimulatedDevice
    var now = SimTime.zero
    /// Their heartbeats, as the runtime keeps them (here on the one test clock).
    var heartbeats = HeartbeatSchedule(heartbeatInterval: 5, idleTimeout: 60)
    private var lastId: UInt64 = 0

    init() {
        // Backdrop runs as the idle screen (the identity is a video device): RECEIVER_STATUS
        // lists it, with `senderConnected` worked out from the virtual connections.
        let configuration = DeviceConfiguration(identity: try! DeviceIdentity(uuid: "0123456789abcdef0123456789abcdef"))
        device = SimulatedDevice(configuration: configuration)
        _ = device.advance(to: now)
    }

    /// Opens a socket and CONNECTs `sender-0` to `receiver-0` on it.
    mutating func join() -> ConnectionID {
        lastId += 1
        let connection = ConnectionID(lastId)
        heartbeats.open(connection, at: now.seconds)
        _ = device.connectionOpened(connection, now: now)
        send(connection, to: CastEndpoint.platformReceiver, CastNamespace.connection, ["type": "CONNECT"])
        return connection
    }

    @discardableResult
    mutating func send(_ connection: ConnectionID, to destination: String, _ namespace: String,
                       _ payload: JSONValue) -> [DeviceOutput] {
        let envelope = CastEnvelope(sourceId: CastEndpoint.platformSender, destinationId: destination,
                                    namespace: namespace, payload: .string(payload.jsonText()))
        return device.receive(envelope, payload: payload, on: connection, now: now)
    }

    /// The heartbeats due now, found in the schedule and told to the device.
    mutating func beat() -> (count: Int, outputs: [DeviceOutput]) {
        let counter = VisitCounter()
        let now = now
        let outputs = SimulatedDevice.$visitCounter.withValue(counter) {
            var outputs: [DeviceOutput] = []
            for (connection, due) in heartbeats.takeDue(at: now.seconds) {
                outputs += device.heartbeatDue(due, on: connection, now: now)
            }
            _ = heartbeats.earliest
            return outputs
        }
        return (counter.total, outputs)
    }

    /// Entries the device looks at in `body`, its next deadline included.
    mutating func visits(_ body: (inout SimulatedDevice, SimTime) -> [DeviceOutput]) -> (count: Int, outputs: [DeviceOutput]) {
        let counter = VisitCounter()
        let now = now
        let outputs = SimulatedDevice.$visitCounter.withValue(counter) {
            let outputs = body(&device, now)
            _ = device.nextDeadline
            return outputs
        }
        return (counter.total, outputs)
    }

    /// The visits of each measured input with `senders` senders connected.
    static func measure(senders: Int) -> [String: Int] {
        var fleet = SenderFleet()
        let connections = (0..<senders).map { _ in fleet.join() }
        // One sender launches the media receiver and CONNECTs to it: the app's broadcasts
        // go to that one socket, whatever the number of senders on receiver-0.
        let appSender = connections[0]
        fleet.send(appSender, to: CastEndpoint.platformReceiver, CastNamespace.receiver,
                   ["type": "LAUNCH", "appId": .string(CastAppDefinition.defaultMediaReceiver.appId), "requestId": 1])
        let transportId = fleet.device.runningApp!.transportId
        fleet.send(appSender, to: transportId, CastNamespace.connection, ["type": "CONNECT"])
        // Everyone was PINGed at 5 s and is next due at 10 s; the late sender at 6 s.
        fleet.now = SimTime(seconds: 1)
        let late = fleet.join()
        fleet.now = SimTime(seconds: 5.5)
        _ = fleet.beat()

        var counts: [String: Int] = [:]
        fleet.now = SimTime(seconds: 6.5)
        let beat = fleet.beat()
        #expect(beat.outputs.compactMap(\.recipients) == [[late]], "only the late sender is due for a PING")
        counts["heartbeat due for one sender"] = beat.count

        let status = fleet.visits { device, now in
            device.receive(Self.envelope(to: CastEndpoint.platformReceiver, CastNamespace.receiver,
                                         ["type": "GET_STATUS", "requestId": 2]), on: connections[1], now: now)
        }
        #expect(status.outputs.compactMap(\.recipients) == [[connections[1]]], "GET_STATUS is answered to its sender alone")
        counts["GET_STATUS to receiver-0"] = status.count

        let media = fleet.visits { device, now in
            device.receive(Self.envelope(to: transportId, CastNamespace.media,
                                         ["type": "LOAD", "requestId": 3, "media": ["contentId": "a.mp3", "duration": 60]]),
                           on: appSender, now: now)
        }
        #expect(media.outputs.compactMap(\.recipients).allSatisfy { $0 == [appSender] }, "the app's one subscriber")
        counts["LOAD broadcast to the app's one sender"] = media.count

        counts["open and CONNECT"] = fleet.visits { device, now in
            var outputs = device.connectionOpened(ConnectionID(1_000_000), now: now)
            outputs += device.receive(Self.envelope(to: CastEndpoint.platformReceiver, CastNamespace.connection, ["type": "CONNECT"]),
                                      on: ConnectionID(1_000_000), now: now)
            return outputs
        }.count

        counts["close"] = fleet.visits { device, now in device.connectionClosed(connections[senders / 2], now: now) }.count
        return counts
    }

    /// The median time of a GET_STATUS to receiver-0, and of a close, with `senders` senders.
    static func medianTimes(senders: Int) -> [String: Duration] {
        var fleet = SenderFleet()
        var connections = (0..<senders).map { _ in fleet.join() }
        let clock = ContinuousClock()
        func median(_ samples: [Duration]) -> Duration { samples.sorted()[samples.count / 2] }
        let request = Self.envelope(to: CastEndpoint.platformReceiver, CastNamespace.receiver, ["type": "GET_STATUS", "requestId": 2])
        var requests: [Duration] = []
        var closes: [Duration] = []
        for round in 0..<300 {
            let index = (round * 7919) % senders
            let connection = connections[index]
            requests.append(clock.measure { _ = fleet.device.receive(request, on: connection, now: fleet.now) })
            // That sender leaves and a new one takes its place, so the count stays put.
            closes.append(clock.measure { _ = fleet.device.connectionClosed(connection, now: fleet.now) })
            connections[index] = fleet.join()
        }
        return ["GET_STATUS to receiver-0": median(requests), "close": median(closes)]
    }

    static func envelope(to destination: String, _ namespace: String, _ payload: JSONValue) -> CastEnvelope {
        CastEnvelope(sourceId: CastEndpoint.platformSender, destinationId: destination, namespace: namespace,
                     payload: .string(payload.jsonText()))
    }
}

extension DeviceOutput {
    /// The sockets a sent message goes to; nil for what is not a message.
    fileprivate var recipients: [ConnectionID]? {
        if case .send(_, let to) = self { to } else { nil }
    }
}
