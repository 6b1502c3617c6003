import NIOCore
import NIOPosix

/// HTTP clients of castsim's control API that run beside a workload (event-stream followers,
/// journal pollers) or drive it (a recording's start and stop): each a connection whose
/// handler completes the promise it is given once its first answer is in. A client of one
/// request has it sent on connecting (`request`); a poller asks on its own.
enum ControlClients {
    /// Opens `count` of them at `address`, one after another, each with the handler `make`
    /// builds from the address's `Host` and the promise, after one that writes `request` (for
    /// that `Host`) once connected, if given; returns once every one has had its first
    /// answer. A client that has none within 10 s fails with `silence`; whatever fails, the
    /// connections opened so far are closed, and the error names `what`.
    static func open(_ count: Int, of what: String, to address: SocketAddress, group: any EventLoopGroup, silence: String,
                     request: (@Sendable (_ host: String) -> String)? = nil,
                     make: @escaping @Sendable (_ host: String, _ answered: EventLoopPromise<Void>) -> any ChannelHandler & Sendable)
        async throws -> [any Channel]
    {
        let host = "\(address.ipAddress ?? "localhost"):\(address.port ?? 80)"
        var channels: [any Channel] = []
        do {
            for _ in 0..<count {
                let answered = group.next().makePromise(of: Void.self)
                let channel = try await ClientBootstrap(group: group)
                    .connectTimeout(.seconds(10))
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            if let request { try channel.pipeline.syncOperations.addHandler(SendOnConnect(request(host))) }
                            try channel.pipeline.syncOperations.addHandler(make(host, answered))
                        }
                    }
                    .connect(to: address).get()
                channels.append(channel)
                let deadline = channel.eventLoop.scheduleTask(in: .seconds(10)) { answered.fail(LoadError(silence)) }
                defer { deadline.cancel() }
                try await answered.futureResult.get()
            }
        } catch {
            for channel in channels { try? await channel.close() }
            throw LoadError("\(what) at \(address): \(error)")
        }
        return channels
    }

    /// Writes a client's one request as its connection comes up.
    private final class SendOnConnect: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        private let request: String

        init(_ request: String) { self.request = request }

        func channelActive(context: ChannelHandlerContext) {
            context.writeAndFlush(NIOAny(ByteBuffer(string: request)), promise: nil)
            context.fireChannelActive()
        }
    }
}
