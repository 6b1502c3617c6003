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
/// returns all it answers before it closes the connection; fails after `timeout`.
func rawExchange(_ bytes: [UInt8], with client: ControlClient, timeout: TimeAmount = .seconds(10)) async throws -> String {
    let collected = NIOLockedValueBox(ByteBuffer())
    let closed = MultiThreadedEventLoopGroup.singleton.any().makePromise(of: Void.self)
    let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Collector(collected: collected)) }
        }
        .connect(host: client.host, port: client.port).get()
    channel.closeFuture.cascade(to: closed)
    try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
    let timer = channel.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
    try await closed.futureResult.get()
    timer.cancel()
    return collected.withLockedValue { String(buffer: $0) }
}

private final class Collector: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let collected: NIOLockedValueBox<ByteBuffer>
    init(collected: NIOLockedValueBox<ByteBuffer>) { self.collected = collected }
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        collected.withLockedValue { $0.writeBuffer(&bytes) }
    }
}
