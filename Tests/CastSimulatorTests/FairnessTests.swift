import CastDevice
import CastSimulator
import CastSimulatorTesting
import CastWire
import NIOCore
import NIOPosix
import Testing

/// One sender must never slow the others down, over real TLS on loopback.
///
/// These assert latencies, so scripts/test.sh runs this suite on its own, after the
/// others (a parallel suite hogging both cores would measure the machine, not castsim).
@Suite("Fairness between senders over real TLS", .serialized, .timeLimit(.minutes(3)))
struct FairnessTests {
    /// The round-trip bound the issue sets for another sender while one misbehaves.
    static let p99Bound: Duration = .milliseconds(50)

    @Test("A sender that floods requests and never reads is throttled, not fed; another sender's GET_STATUS stays fast")
    func flooderIsThrottled() async throws {
        try await withCastSimulator(configure: { $0.journalLimit = 1_000_000; $0.journalByteLimit = .max }) { simulator in
            let flooder = try await CastTestSender.connect(to: simulator.castAddress, receiveBuffer: 4096)
            let transportId = try await flooder.launch()
            // Every media GET_STATUS is answered with a ~50 KB MEDIA_STATUS (the title twice).
            _ = try await flooder.request(CastNamespace.media, to: transportId, [
                "type": "LOAD", "media": ["contentId": "big.mp4", "metadata": ["metadataType": 0, "title": .string(String(repeating: "t", count: 25_000))]],
            ])
            try await flooder.channel.setOption(.autoRead, value: false).get()

            let requests = 20_000
            var flood = ByteBuffer()
            for requestId in 0..<requests {
                flood.writeImmutableBuffer(try CastFraming.frame(Self.envelope(to: transportId, CastNamespace.media,
                                                                               #"{"type":"GET_STATUS","requestId":\#(1000 + requestId)}"#)))
            }
            flooder.channel.writeAndFlush(flood, promise: nil)

            let other = try await CastTestSender.connect(to: simulator)
            _ = try await other.connectToReceiver()
            let times = try await Self.roundTrips(other, count: 200)
            #expect(Self.p99(times) < Self.p99Bound, "p99 \(Self.p99(times)) with a flooder connected")

            // Throttled: the device stopped reading the flood long before its end, and the
            // flooder is still connected (it was not fed until its queue overflowed).
            let handled = try await simulator.receivedMessages().filter { $0.envelope.destinationId == transportId && $0.payload?["type"] == "GET_STATUS" }.count
            #expect(handled < requests / 10, "the device handled \(handled) of \(requests) requests from a sender that reads nothing")
            #expect(try await simulator.inspect { $0.connections.count } == 2)
            await flooder.close()
            await other.close()
        }
    }

    @Test("A sender that never reads is disconnected once it has stayed unwritable past the limit")
    func stalledReaderIsDropped() async throws {
        try await withCastSimulator(configure: { $0.stalledReaderTimeout = .milliseconds(500) }) { simulator in
            let stalled = try await CastTestSender.connect(to: simulator.castAddress, receiveBuffer: 4096)
            let transportId = try await stalled.launch()
            _ = try await stalled.request(CastNamespace.media, to: transportId, [
                "type": "LOAD", "media": ["contentId": "big.mp4", "metadata": ["metadataType": 0, "title": .string(String(repeating: "t", count: 25_000))]],
            ])
            try await stalled.channel.setOption(.autoRead, value: false).get()
            var flood = ByteBuffer()
            for requestId in 0..<2_000 {
                flood.writeImmutableBuffer(try CastFraming.frame(Self.envelope(to: transportId, CastNamespace.media,
                                                                               #"{"type":"GET_STATUS","requestId":\#(1000 + requestId)}"#)))
            }
            stalled.channel.writeAndFlush(flood, promise: nil)
            // Still there while the limit has not passed...
            try await Task.sleep(for: .milliseconds(200))
            #expect(try await simulator.inspect { $0.connections.count } == 1)
            // ... and gone after it, although its queue never reached the byte limit.
            let deadline = ContinuousClock.now + .seconds(10)
            while try await simulator.inspect({ $0.connections.count }) > 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(try await simulator.inspect { $0.connections.count } == 0)
            await stalled.close()
        }
    }

    @Test("50,000 PINGs in one write are handled in slices: another sender's GET_STATUS stays fast, and every PING is answered")
    func burstIsSliced() async throws {
        try await withCastSimulator { simulator in
            let burster = try await CastTestSender.connect(to: simulator)
            _ = try await burster.connectToReceiver()
            // Its own client thread: the burster's 50,000 PONGs must not delay it on our side.
            let otherLoop = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let other = try await CastTestSender.connect(to: simulator.castAddress, group: otherLoop)
            _ = try await other.connectToReceiver()

            let pings = 50_000
            let ping = try CastFraming.frame(Self.envelope(to: CastEndpoint.transport, CastNamespace.heartbeat, #"{"type":"PING"}"#,
                                                          from: CastEndpoint.transport))
            var burst = ByteBuffer()
            burst.reserveCapacity(ping.readableBytes * pings)
            for _ in 0..<pings { burst.writeImmutableBuffer(ping) }
            burster.channel.writeAndFlush(burst, promise: nil)

            // Round trips while the burst is being handled (the PONGs are counted after,
            // so that counting them does not compete with the measurement).
            let times = try await Self.roundTrips(other, count: 100)
            #expect(Self.p99(times) < Self.p99Bound, "p99 \(Self.p99(times)) during a burst of \(pings) PINGs")
            var pongs = 0
            while pongs < pings, case .message(let envelope)? = await burster.next(timeout: .seconds(60)) {
                if envelope.namespace == CastNamespace.heartbeat { pongs += 1 }
            }
            #expect(pongs == pings)
            await burster.close()
            await other.close()
            try await otherLoop.shutdownGracefully()
        }
    }

    /// The bound for a fresh sender: TLS, CONNECT and GET_STATUS answered.
    static let freshSenderBound: Duration = .milliseconds(250)

    @Test("While one sender's 5,000 PINGs in one write are handled, 16 fresh senders each get TLS, CONNECT and RECEIVER_STATUS within 250 ms, 100 times over")
    func freshSendersDuringABurst() async throws {
        try await withCastSimulator { simulator in
            // The fresh senders' own client thread: the burster's PONGs must not delay them on our side.
            let clients = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let ping = try CastFraming.frame(Self.envelope(to: CastEndpoint.platformReceiver, CastNamespace.heartbeat, #"{"type":"PING"}"#))
            var burst = ByteBuffer()
            for _ in 0..<5_000 { burst.writeImmutableBuffer(ping) }
            var late: [String] = []
            for iteration in 0..<100 {
                let burster = try await CastTestSender.connect(to: simulator)
                _ = try await burster.connectToReceiver()
                burster.channel.writeAndFlush(burst, promise: nil)
                let times = try await withThrowingTaskGroup(of: Duration?.self) { group in
                    for _ in 0..<16 {
                        group.addTask {
                            let started = ContinuousClock.now
                            let sender = try await CastTestSender.connect(to: simulator.castAddress, group: clients)
                            defer { Task { await sender.close() } }
                            try await sender.send(to: CastEndpoint.platformReceiver, CastNamespace.connection, ["type": "CONNECT"])
                            // Unanswered within a second counts as late; the bound is far below it.
                            guard (try? await sender.request(CastNamespace.receiver, to: CastEndpoint.platformReceiver,
                                                             ["type": "GET_STATUS"], timeout: .seconds(1))) != nil else { return nil }
                            return ContinuousClock.now - started
                        }
                    }
                    return try await group.reduce(into: [Duration?]()) { $0.append($1) }
                }
                for time in times where time.map({ $0 > Self.freshSenderBound }) ?? true {
                    late.append("iteration \(iteration): \(time.map { "\($0)" } ?? "no RECEIVER_STATUS within 1 s")")
                }
                // Every PING of the burst was answered too, in order with the rest.
                var pongs = 0
                while pongs < 5_000, case .message(let envelope)? = await burster.next(timeout: .seconds(10)) {
                    if envelope.namespace == CastNamespace.heartbeat { pongs += 1 }
                }
                #expect(pongs == 5_000, "iteration \(iteration): \(pongs) PONGs")
                await burster.close()
            }
            #expect(late.isEmpty, "fresh senders answered late: \(late)")
            try await clients.shutdownGracefully()
        }
    }

    // MARK: Helpers

    static func envelope(to destination: String, _ namespace: String, _ json: String,
                         from source: String = CastEndpoint.platformSender) -> CastEnvelope {
        CastEnvelope(sourceId: source, destinationId: destination, namespace: namespace, payload: .string(json))
    }

    /// Receiver GET_STATUS round trips, one after the other.
    static func roundTrips(_ sender: CastTestSender, count: Int) async throws -> [Duration] {
        var times: [Duration] = []
        for _ in 0..<count {
            let started = ContinuousClock.now
            _ = try await sender.request(CastNamespace.receiver, to: CastEndpoint.platformReceiver, ["type": "GET_STATUS"])
            times.append(ContinuousClock.now - started)
        }
        return times
    }

    static func p99(_ times: [Duration]) -> Duration {
        let sorted = times.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)]
    }
}
