import CastDevice
import CastScenario
import CastSimulator
import CastSimulatorTesting
import CastWire
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

@Suite("Relay mode: a sender's messages go to an upstream device and back", .timeLimit(.minutes(2)))
struct RelayTests {
    /// An upstream that answers GET_STATUS with something no default device sends, and
    /// closes the connection (cleanly or with a reset) when asked to STOP.
    static func upstreamScenario(closeMode: String = "clean") throws -> Scenario {
        try Scenario.parse(Data("""
        {"name": "upstream", "device": {"heartbeatInterval": "0s"},
         "rules": [{"match": {"namespace": "receiver", "type": "GET_STATUS"}, "action": "reply",
                    "reply": {"type": "RECEIVER_STATUS", "marker": "from the upstream", "status": {"applications": []}}}],
         "timeline": [{"after": {"event": "STOP"}, "closeConnection": {"which": "first", "mode": "\(closeMode)"}}]}
        """.utf8))
    }

    /// A relay to `upstream` (its Cast port on loopback), with its news collected.
    static func withRelay<T>(to port: Int, _ body: (CastSimulator, NewsLog) async throws -> T) async throws -> T {
        try await withCastSimulator(configure: { configuration in
            configuration.relay = RelayConfiguration(host: "127.0.0.1", port: port, connectTimeout: .seconds(3))
        }) { relay in
            let news = NewsLog(relay.news())
            defer { news.stop() }
            return try await body(relay, news)
        }
    }

    @Test("Messages go both ways unchanged, both directions are journalled, device auth is the relay's own")
    func relaysBothWays() async throws {
        try await withCastSimulator(configure: { $0.scenario = try! Self.upstreamScenario() }) { upstream in
            try await Self.withRelay(to: upstream.castAddress.port!) { relay, news in
                let sender = try await CastTestSender.connect(to: relay)
                // Sent at once, before the relay's link to the upstream is up: held, then forwarded in order.
                try await sender.send(to: "receiver-0", CastNamespace.connection, ["type": "CONNECT"])
                try await sender.send(to: "receiver-0", CastNamespace.receiver, ["type": "GET_STATUS", "requestId": 1])
                let (received, status) = try #require(await sender.waitFor { _, json in json["requestId"]?.intValue == 1 })
                #expect(status["marker"]?.stringValue == "from the upstream")
                #expect(await news.contains { if case .upstream(_, true, nil) = $0 { true } else { false } })

                // The upstream's reply reached the sender as the upstream wrote it.
                let upstreamJournal = try await upstream.journal()
                let sent = try #require(upstreamJournal.last { $0.direction == .outbound && $0.payload?["marker"] != nil })
                let relayJournal = try await relay.journal()
                let relayedBack = try #require(relayJournal.last { $0.direction == .outbound && $0.payload?["marker"] != nil })
                #expect(received == sent.envelope && relayedBack.envelope == sent.envelope)
                #expect(relayedBack.connections.count == 1)
                // What the sender sent reached the upstream unchanged, journalled inbound on both.
                let upstreamIn = upstreamJournal.filter { $0.direction == .inbound }.map(\.envelope)
                let relayIn = relayJournal.filter { $0.direction == .inbound }.map(\.envelope)
                #expect(upstreamIn.count == 2 && upstreamIn == relayIn)
                #expect(upstreamIn.first?.namespace == CastNamespace.connection)

                // Device auth: answered by the relay over its own TLS certificate, never forwarded.
                let nonce = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
                let response = try #require(await DeviceAuthIntegrationTests.challenge(sender, nonce: nonce, hash: .sha256))
                let relayTLS = Data(try await sender.peerCertificateDER())
                #expect(try relayTLS == relay.credentials.tls.der && relayTLS != upstream.credentials.tls.der)
                #expect(try DeviceAuthIntegrationTests.signatureCovers(nonce + relayTLS, response, hash: .sha256))
                #expect(try await upstream.journal().allSatisfy { $0.envelope.namespace != CastNamespace.deviceAuth })
                #expect(try await relay.journal().contains { $0.envelope.namespace == CastNamespace.deviceAuth })

                // The sender goes: so does its link upstream.
                await sender.close()
                #expect(await Self.eventually { try await upstream.snapshot().connections.isEmpty })
                #expect(await news.contains { if case .upstream(_, false, "the sender disconnected"?) = $0 { true } else { false } })
                #expect(try await relay.snapshot().connections.isEmpty)
            }
        }
    }

    @Test("An upstream that refuses connections closes the sender's, with the reason in the news")
    func upstreamRefuses() async throws {
        // A port nothing listens on, held for the test: bound without listen(), so that no
        // other test's server (they run in parallel, on ports the system picks) takes it.
        let held = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(held) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(held, $0, length) == 0 && getsockname(held, $0, &length) == 0 }
        }
        try #require(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        try await Self.withRelay(to: port) { relay, news in
            let sender = try await CastTestSender.connect(to: relay)
            // The refusal may come first and the connection be closed already.
            try? await sender.send(to: "receiver-0", CastNamespace.connection, ["type": "CONNECT"])
            #expect(await sender.waitForClose())
            let reason = await news.first { news -> String? in
                if case .upstream(_, false, let reason?) = news { reason } else { nil }
            }
            #expect(reason == "upstream 127.0.0.1:\(port) refused the connection")
            #expect(await Self.eventually { try await relay.snapshot().connections.isEmpty })
        }
    }

    @Test("An upstream that speaks no TLS fails the handshake and closes the sender's connection")
    func upstreamWithoutTLS() async throws {
        // Answers anything with a line of plain text, as an HTTP server on the wrong port would.
        let plain = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(PlainTextAnswer())
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        defer { plain.close(promise: nil) }
        let port = plain.localAddress!.port!
        try await Self.withRelay(to: port) { relay, news in
            let sender = try await CastTestSender.connect(to: relay)
            try? await sender.send(to: "receiver-0", CastNamespace.connection, ["type": "CONNECT"])
            #expect(await sender.waitForClose())
            let reason = await news.first { news -> String? in
                if case .upstream(_, false, let reason?) = news { reason } else { nil }
            }
            #expect(reason?.hasPrefix("TLS handshake with upstream 127.0.0.1:\(port) failed: ") == true, "\(reason ?? "no reason")")
            #expect(!news.received.contains { if case .upstream(_, true, _) = $0 { true } else { false } })
        }
    }

    @Test("The upstream closing or resetting the connection closes the sender's", arguments: [
        ("clean", "closed the connection"), ("reset", "reset the connection"),
    ])
    func upstreamCloses(mode: String, expected: String) async throws {
        try await withCastSimulator(configure: { $0.scenario = try! Self.upstreamScenario(closeMode: mode) }) { upstream in
            let port = upstream.castAddress.port!
            try await Self.withRelay(to: port) { relay, news in
                let sender = try await CastTestSender.connect(to: relay)
                _ = try await sender.connectToReceiver()
                try await sender.send(to: "receiver-0", CastNamespace.receiver, ["type": "STOP", "requestId": 7])
                #expect(await sender.waitForClose())
                let reason = await news.first { news -> String? in
                    if case .upstream(_, false, let reason?) = news { reason } else { nil }
                }
                #expect(reason == "upstream 127.0.0.1:\(port) \(expected)")
            }
        }
    }

    @Test("A relay whose upstream is itself ends the sender's connection with the reason, not a connection to itself after another")
    func upstreamIsTheRelay() async throws {
        // The relay's upstream must be its own port, known before it starts: 8009 on a
        // loopback address of this test's own (no other test binds 127.199.x.y).
        let host = "127.199.\(UInt8.random(in: 1...254)).\(UInt8.random(in: 1...254))"
        try await withCastSimulator(configure: { configuration in
            configuration.host = host
            configuration.castPort = 8009
            configuration.relay = RelayConfiguration(host: host, port: 8009, connectTimeout: .seconds(3))
        }) { relay in
            let news = NewsLog(relay.news())
            defer { news.stop() }
            let sender = try await CastTestSender.connect(to: relay)
            try? await sender.send(to: "receiver-0", CastNamespace.connection, ["type": "CONNECT"])
            #expect(await sender.waitForClose())
            let reason = await news.first { news -> String? in
                if case .upstream(_, false, let reason?) = news { reason } else { nil }
            }
            #expect(reason == "upstream \(host):8009 is this relay itself: its connection came back in as a sender's; give a device other than the relay")
            #expect(await Self.eventually { try await relay.snapshot().connections.isEmpty })
            // Only the sender's connection was ever the device's: the link's came in and was
            // refused before it opened, and made no link of its own.
            try await Task.sleep(for: .milliseconds(300))
            #expect(news.received.filter { if case .connected = $0 { true } else { false } }.count == 1)
        }
    }

    @Test("--upstream text: HOST, HOST:PORT, [IPv6]:PORT; nothing else")
    func upstreamText() {
        #expect(RelayConfiguration(upstream: "10.0.0.5") == RelayConfiguration(host: "10.0.0.5", port: 8009))
        #expect(RelayConfiguration(upstream: "tv.local:8010") == RelayConfiguration(host: "tv.local", port: 8010))
        #expect(RelayConfiguration(upstream: "[fe80::1]:9") == RelayConfiguration(host: "fe80::1", port: 9))
        #expect(RelayConfiguration(upstream: "fe80::1") == RelayConfiguration(host: "fe80::1", port: 8009))
        for bad in ["", ":8009", "host:", "host:0", "host:70000", "host:x", "[::1", "[::1]x", "a b", "http://tv"] {
            #expect(RelayConfiguration(upstream: bad) == nil, "\(bad)")
        }
    }

    /// Polls `condition` for up to 5 s.
    static func eventually(_ condition: () async throws -> Bool) async -> Bool {
        for _ in 0..<250 {
            if (try? await condition()) == true { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }
}

/// Everything a simulator's news stream said, collected as it comes.
final class NewsLog: Sendable {
    private let items = NIOLockedValueBox<[SimulatorNews]>([])
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<SimulatorNews>) {
        let items = self.items
        task = Task { for await news in stream { items.withLockedValue { $0.append(news) } } }
    }

    func stop() { task.cancel() }

    /// The news so far.
    var received: [SimulatorNews] { items.withLockedValue { $0 } }

    /// Whether some news matches, waiting up to 5 s for it.
    func contains(_ predicate: (SimulatorNews) -> Bool) async -> Bool {
        await first { predicate($0) ? true : nil } ?? false
    }

    /// The first value `pick` finds in the news, waiting up to 5 s for it.
    func first<T>(_ pick: (SimulatorNews) -> T?) async -> T? {
        for _ in 0..<250 {
            if let found = items.withLockedValue({ $0.lazy.compactMap(pick).first }) { return found }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }
}

/// Writes a line of text to whoever connects and reads, then closes.
private final class PlainTextAnswer: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.writeAndFlush(NIOAny(ByteBuffer(string: "HTTP/1.0 400 Bad Request\r\n\r\n")), promise: nil)
        context.close(promise: nil)
    }
}
