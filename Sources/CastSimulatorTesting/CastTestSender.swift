import CastDevice
import CastSimulator
import CastWire
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// A small Cast sender for tests against a running ``CastSimulator``: TLS to its Cast
/// port, CASTV2 framing, and everything it receives in order.
///
/// ```swift
/// try await withCastSimulator { simulator in
///     let sender = try await CastTestSender.connect(to: simulator)
///     let transportId = try await sender.launch()
///     let status = try await sender.request(CastNamespace.media, to: transportId,
///                                           ["type": "LOAD", "media": ["contentId": "a.mp4"]])
/// }
/// ```
public final class CastTestSender: Sendable {
    public enum Event: Sendable {
        case message(CastEnvelope)
        case closed
    }

    /// A request that got no answer in time.
    public struct Timeout: Error, CustomStringConvertible {
        public let description: String
    }

    public let channel: any Channel
    private let queue: EventQueue
    private let lastRequestId = NIOLockedValueBox(0)

    private init(channel: any Channel, queue: EventQueue) {
        self.channel = channel
        self.queue = queue
    }

    /// Connects to a simulator's Cast port.
    public static func connect(to simulator: CastSimulator) async throws -> CastTestSender {
        try await connect(to: simulator.castAddress)
    }

    /// Connects over TLS (no certificate check: a Cast device's is self-signed).
    /// `receiveBuffer` shrinks the socket's receive buffer (to make a slow reader);
    /// `maximumTLSVersion` plays an old sender.
    public static func connect(to address: SocketAddress, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                               receiveBuffer: Int? = nil, maximumTLSVersion: TLSVersion? = nil) async throws -> CastTestSender {
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
        return CastTestSender(channel: channel, queue: queue)
    }

    public func send(_ envelope: CastEnvelope) async throws {
        try await channel.writeAndFlush(try CastFraming.frame(envelope))
    }

    public func send(from source: String = CastEndpoint.platformSender, to destination: String, _ namespace: String,
                     _ payload: JSONValue) async throws {
        try await send(CastEnvelope(sourceId: source, destinationId: destination, namespace: namespace,
                                    payload: .string(payload.jsonText())))
    }

    /// Writes bytes as they are: broken frames, for robustness tests.
    public func sendRaw(_ bytes: ByteBuffer) async throws {
        try await channel.writeAndFlush(bytes)
    }

    /// The next event, or nil when `timeout` passes first.
    public func next(timeout: Duration = .seconds(10)) async -> Event? {
        await queue.next(timeout: timeout)
    }

    /// Skips messages until one matches; nil on timeout or close.
    public func waitFor(timeout: Duration = .seconds(10), _ predicate: (CastEnvelope, JSONValue) -> Bool) async
        -> (CastEnvelope, JSONValue)?
    {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard case .message(let envelope)? = await next(timeout: deadline - ContinuousClock.now) else { return nil }
            let json = envelope.utf8.flatMap { try? JSONValue.parse($0) } ?? .null
            if predicate(envelope, json) { return (envelope, json) }
        }
        return nil
    }

    /// Waits until the device closes the connection (messages before that are skipped).
    public func waitForClose(timeout: Duration = .seconds(10)) async -> Bool {
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

    public func close() async {
        try? await channel.close()
    }

    // MARK: Cast

    /// Sends a request with the next requestId of this sender and returns the first answer
    /// that carries it.
    public func request(_ namespace: String, to destination: String, _ fields: [String: JSONValue],
                        from source: String = CastEndpoint.platformSender, timeout: Duration = .seconds(10)) async throws -> JSONValue {
        let requestId = lastRequestId.withLockedValue { $0 += 1; return $0 }
        var fields = fields
        fields["requestId"] = .number(Double(requestId))
        try await send(from: source, to: destination, namespace, .object(fields))
        guard let (_, answer) = await waitFor(timeout: timeout, { _, json in json["requestId"]?.intValue == requestId }) else {
            throw Timeout(description: "no answer to \(fields["type"]?.stringValue ?? "request") \(requestId) within \(timeout)")
        }
        return answer
    }

    /// CONNECTs to `receiver-0` and asks for its status: the RECEIVER_STATUS.
    public func connectToReceiver(from source: String = CastEndpoint.platformSender) async throws -> JSONValue {
        try await send(from: source, to: CastEndpoint.platformReceiver, CastNamespace.connection, ["type": "CONNECT"])
        return try await request(CastNamespace.receiver, to: CastEndpoint.platformReceiver, ["type": "GET_STATUS"], from: source)
    }

    /// CONNECTs to `receiver-0`, LAUNCHes `appId` and CONNECTs to it: its transport id.
    public func launch(_ appId: String = CastAppDefinition.defaultMediaReceiver.appId,
                       from source: String = CastEndpoint.platformSender) async throws -> String {
        try await send(from: source, to: CastEndpoint.platformReceiver, CastNamespace.connection, ["type": "CONNECT"])
        let status = try await request(CastNamespace.receiver, to: CastEndpoint.platformReceiver,
                                       ["type": "LAUNCH", "appId": .string(appId)], from: source)
        guard let transportId = status["status"]?["applications"]?.arrayValue?.first?["transportId"]?.stringValue else {
            throw Timeout(description: "LAUNCH of \(appId) answered \(status.jsonText())")
        }
        try await send(from: source, to: transportId, CastNamespace.connection, ["type": "CONNECT"])
        return transportId
    }
}

/// Starts a simulator on 127.0.0.1 with ephemeral ports (HTTP ones included) and quiet
/// logs, runs `body`, and always stops it.
public func withCastSimulator<T>(
    configure: (inout SimulatorConfiguration) -> Void = { _ in },
    _ body: (CastSimulator) async throws -> T
) async throws -> T {
    var logger = Logger(label: "castsim-test")
    logger.logLevel = .critical
    var configuration = SimulatorConfiguration(
        device: DeviceConfiguration(identity: try DeviceIdentity(uuid: "fedcba9876543210fedcba9876543210", friendlyName: "Test TV")),
        logger: logger)
    configuration.listenEphemerally(on: "127.0.0.1")
    configure(&configuration)
    return try await stopping(try await CastSimulator.start(configuration), by: { await $0.stop() }, body)
}

/// Runs `body` with `resource`, then `stop`, whether `body` returned or threw: what every
/// test server's `with...` helper does around its test.
package func stopping<Resource, T>(_ resource: Resource, by stop: (Resource) async -> Void,
                                   _ body: (Resource) async throws -> T) async throws -> T {
    do {
        let result = try await body(resource)
        await stop(resource)
        return result
    } catch {
        await stop(resource)
        throw error
    }
}

/// Events received so far; tests take them in order, polling briefly while none is there.
final class EventQueue: Sendable {
    // A ring buffer: taking the oldest of 50,000 PONGs must not move the other 49,999.
    private let events = NIOLockedValueBox(CircularBuffer<CastTestSender.Event>())

    func push(_ event: CastTestSender.Event) { events.withLockedValue { $0.append(event) } }

    func next(timeout: Duration) async -> CastTestSender.Event? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let event = events.withLockedValue { $0.popFirst() }
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
