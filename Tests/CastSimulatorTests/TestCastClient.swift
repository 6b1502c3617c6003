import CastWire
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import Testing

/// A minimal Cast sender for integration tests: TLS to the simulator, CASTV2 framing,
/// and an async queue of everything it receives.
final class TestCastClient: Sendable {
    enum Event: Sendable {
        case message(CastEnvelope)
        case closed
    }

    let channel: any Channel
    private let queue: EventQueue

    private init(channel: any Channel, queue: EventQueue) {
        self.channel = channel
        self.queue = queue
    }

    static func connect(to address: SocketAddress, group: any EventLoopGroup, receiveBuffer: Int? = nil,
                        maximumTLSVersion: TLSVersion? = nil) async throws -> TestCastClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .none
        tls.maximumTLSVersion = maximumTLSVersion
        if maximumTLSVersion == .tlsv11 { tls.minimumTLSVersion = .tlsv1 }
        let context = try NIOSSLContext(configuration: tls)
        let queue = EventQueue()
        var bootstrap = ClientBootstrap(group: group)
        if let receiveBuffer {
            bootstrap = bootstrap.channelOption(.socketOption(.so_rcvbuf), value: SocketOptionValue(receiveBuffer))
        }
        let channel = try await bootstrap.channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                let sync = channel.pipeline.syncOperations
                try sync.addHandler(try NIOSSLClientHandler(context: context, serverHostname: nil))
                try sync.addHandler(ByteToMessageHandler(CastFrameDecoder()))
                try sync.addHandler(CollectingHandler(queue: queue))
            }
        }.connect(to: address).get()
        return TestCastClient(channel: channel, queue: queue)
    }

    func send(_ envelope: CastEnvelope) async throws {
        try await channel.writeAndFlush(try CastFraming.frame(envelope))
    }

    func send(from source: String = "sender-0", to destination: String, _ namespace: String, _ payload: JSONValue) async throws {
        try await send(CastEnvelope(sourceId: source, destinationId: destination, namespace: namespace,
                                    payload: .string(payload.jsonText())))
    }

    func sendRaw(_ bytes: ByteBuffer) async throws {
        try await channel.writeAndFlush(bytes)
    }

    /// The next event, or nil when `timeout` passes first.
    func next(timeout: Duration = .seconds(10)) async -> Event? {
        await queue.next(timeout: timeout)
    }

    /// Skips messages until one matches; nil on timeout or close.
    func waitFor(timeout: Duration = .seconds(10), _ predicate: (CastEnvelope, JSONValue) -> Bool) async -> (CastEnvelope, JSONValue)? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard case .message(let envelope)? = await next(timeout: deadline - ContinuousClock.now) else { return nil }
            let json = envelope.utf8.flatMap { try? JSONValue.parse($0) } ?? .null
            if predicate(envelope, json) { return (envelope, json) }
        }
        return nil
    }

    /// Waits until the server closes the connection (messages before that are skipped).
    func waitForClose(timeout: Duration = .seconds(10)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            switch await next(timeout: deadline - ContinuousClock.now) {
            case .closed?: return true
            case .message?: continue
            case nil: return false
            }
        }
        return false
    }

    func close() async {
        try? await channel.close()
    }
}

/// Events received so far; tests take them in order, polling briefly while none is there.
final class EventQueue: Sendable {
    private let events = NIOLockedValueBox<[TestCastClient.Event]>([])

    func push(_ event: TestCastClient.Event) { events.withLockedValue { $0.append(event) } }

    func next(timeout: Duration) async -> TestCastClient.Event? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let event = events.withLockedValue { $0.isEmpty ? nil : $0.removeFirst() }
            if let event { return event }
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }
}

private final class CollectingHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = CastEnvelope
    let queue: EventQueue

    init(queue: EventQueue) { self.queue = queue }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        queue.push(.message(unwrapInboundIn(data)))
    }

    func channelInactive(context: ChannelHandlerContext) {
        queue.push(.closed)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
