import CastControl
import CastDevice
import CastSimulator
import CastSimulatorTesting
import CastWire
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

typealias HTTPReply = ControlClient.Reply

extension ControlClient {
    /// Reads a streamed reply (Server-Sent Events) until `done` says the text so far is
    /// enough, or `timeout` passes; `whileOpen` runs once the reply's head has arrived.
    func stream(_ path: String, timeout: Duration = .seconds(10), whileOpen: @escaping @Sendable () async throws -> Void = {},
                until done: @escaping @Sendable (String) -> Bool) async throws -> HTTPReply {
        try await withThrowingTaskGroup(of: HTTPReply?.self) { group in
            group.addTask {
                try await exchange(.GET, path, body: nil, contentType: nil, headers: [], onHead: { _ in try await whileOpen() }, stop: done)
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            let first = try await group.next()!
            group.cancelAll()
            guard let reply = first else { throw StreamTimeout() }
            return reply
        }
    }
}

struct StreamTimeout: Error {}

/// A simulator on loopback with its control server, for one test.
func withControlledDevice<T>(
    token: String? = nil,
    configure: (inout SimulatorConfiguration) -> Void = { $0.clock = .manual },
    _ body: (CastSimulator, ControlClient) async throws -> T
) async throws -> T {
    try await withCastSimulator(configure: configure) { simulator in
        var logger = Logger(label: "castsim-control-test")
        logger.logLevel = .critical
        let server = try await ControlServer.start(ControlConfiguration(host: "127.0.0.1", port: 0, token: token),
                                                   simulator: simulator, logger: logger)
        return try await stopping(server, by: { await $0.stop() }) { server in
            try await body(simulator, ControlClient(host: "127.0.0.1", port: server.port, token: token))
        }
    }
}

/// Writes `bytes` to the control server as they are (nothing checks they are HTTP) and
/// returns all it answers before it closes the connection.
func rawExchange(_ bytes: [UInt8], with client: ControlClient) async throws -> String {
    try await RawExchange.exchange(ByteBuffer(bytes: bytes), with: SocketAddress(ipAddress: client.host, port: client.port)).text
}

/// A client of the event stream that stays connected and reads what comes (the kernel's
/// buffer never fills), until it is closed.
struct StreamClient {
    let channel: any Channel

    /// Connected, its request sent, and the stream's hello read.
    static func open(with client: ControlClient) async throws -> StreamClient {
        let hello = MultiThreadedEventLoopGroup.singleton.any().makePromise(of: Void.self)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(HelloWaiter(hello: hello)) }
        }.connect(host: client.host, port: client.port).get()
        try await channel.writeAndFlush(ByteBuffer(string: "GET /api/v1/events?types=clock HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
        let timeout = channel.eventLoop.scheduleTask(in: .seconds(10)) { hello.fail(StreamTimeout()) }
        defer { timeout.cancel() }
        try await hello.futureResult.get()
        return StreamClient(channel: channel)
    }

    func close() async throws { try await channel.close() }

    private final class HelloWaiter: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let hello: EventLoopPromise<Void>
        let seen = NIOLockedValueBox("")
        init(hello: EventLoopPromise<Void>) { self.hello = hello }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let text = String(buffer: unwrapInboundIn(data))
            if seen.withLockedValue({ $0 += text; return $0.contains("event: hello") }) { hello.succeed() }
        }
    }
}
