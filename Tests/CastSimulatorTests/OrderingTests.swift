import CastDevice
import CastSimulator
import CastSimulatorTesting
import CastWire
import NIOCore
import NIOPosix
import Testing

/// However the runtime spreads its work, each sender's messages reach the device in the
/// order the sender wrote them, and its answers come back in that order: senders pipeline
/// requests and match answers by requestId, but a PING, a LOAD and its PLAY are not
/// reordered by any Cast device.
@Suite("Each sender's order under load, over real TLS")
struct OrderingTests {
    @Test("10 senders write 600 GET_STATUS each, in bursts of 40 with a PING after every other one, all at once: the device takes each sender's messages in its order, and each gets its answers in that order")
    func everySendersOrderKept() async throws {
        let senders = 10, requests = 600, burst = 40
        try await withCastSimulator(configure: { $0.journalLimit = 1_000_000; $0.journalByteLimit = .max }) { simulator in
            // The senders' own two client threads: they write at once, as separate processes would.
            let clients = MultiThreadedEventLoopGroup(numberOfThreads: 2)
            var connected: [CastTestSender] = []
            for index in 0..<senders {
                let sender = try await CastTestSender.connect(to: simulator.castAddress, group: clients)
                try await sender.send(from: Self.source(index), to: CastEndpoint.platformReceiver, CastNamespace.connection, ["type": "CONNECT"])
                connected.append(sender)
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, sender) in connected.enumerated() {
                    group.addTask {
                        for start in stride(from: 1, through: requests, by: burst) {
                            var bytes = ByteBuffer()
                            for requestId in start..<(start + burst) {
                                bytes.writeImmutableBuffer(try Self.frame(from: index, CastNamespace.receiver,
                                                                          #"{"type":"GET_STATUS","requestId":\#(requestId)}"#))
                                if requestId % 2 == 1 {
                                    bytes.writeImmutableBuffer(try Self.frame(from: index, CastNamespace.heartbeat, #"{"type":"PING"}"#))
                                }
                            }
                            try await sender.sendRaw(bytes)
                        }
                    }
                }
                try await group.waitForAll()
            }

            // What each sender got: its answers in the order of its requests, a PONG after each odd one.
            for (index, sender) in connected.enumerated() {
                var answers: [Int] = []
                while answers.count < requests + requests / 2, case .message(let envelope)? = await sender.next(timeout: .seconds(30)) {
                    let payload = envelope.utf8.flatMap { try? JSONValue.parse($0) }
                    // The device's own PING (its heartbeat, due when a loaded machine makes
                    // the run last past its interval) answers nothing: a CI run counted one
                    // as a PONG out of place.
                    if envelope.namespace == CastNamespace.heartbeat, payload?["type"] == "PING" { continue }
                    answers.append(envelope.namespace == CastNamespace.heartbeat ? 0 : payload?["requestId"]?.intValue ?? -1)
                }
                #expect(answers == Self.expected(requests), "\(Self.source(index)): answers out of order")
            }

            // What the device took, sender by sender: the order each wrote.
            let received = try await simulator.receivedMessages()
            for index in 0..<senders {
                let mine = received.filter { $0.envelope.sourceId == Self.source(index) }
                #expect(Set(mine.map(\.connection)).count == 1)
                let seen = mine.dropFirst().map { $0.envelope.namespace == CastNamespace.heartbeat ? 0 : $0.payload?["requestId"]?.intValue ?? -1 }
                #expect(mine.first?.payload?["type"] == "CONNECT" && seen == Self.expected(requests),
                        "\(Self.source(index)): the device took its messages out of order")
            }
            // Under load, not one after the other: the device went from sender to sender
            // many times (one sender after another would switch 9 times; some 300 is usual).
            let order = received.map(\.envelope.sourceId)
            let switches = zip(order, order.dropFirst()).filter { $0 != $1 }.count
            #expect(switches >= senders * 3, "the senders' messages were taken in \(switches + 1) runs")

            for sender in connected { await sender.close() }
            try await clients.shutdownGracefully()
        }
    }

    static func source(_ index: Int) -> String { "sender-\(index)" }

    static func frame(from index: Int, _ namespace: String, _ json: String) throws -> ByteBuffer {
        try CastFraming.frame(CastEnvelope(sourceId: source(index), destinationId: CastEndpoint.platformReceiver,
                                           namespace: namespace, payload: .string(json)))
    }

    /// Request ids 1...requests, a PING (0) after each odd one.
    static func expected(_ requests: Int) -> [Int] {
        (1...requests).flatMap { $0 % 2 == 1 ? [$0, 0] : [$0] }
    }
}
