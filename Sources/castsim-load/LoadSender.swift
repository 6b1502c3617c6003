import CastWire
import NIOCore
import NIOPosix
import NIOSSL

/// The load generator's end of one Cast connection, last in its pipeline (after TLS and
/// the frame slicer): it tells whoever drives the connection about every frame that
/// carries a requestId, and about the connection's end. Lives on its channel's loop.
final class LoadSenderHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    /// Every frame with a requestId: the id and the frame's body size.
    var onReply: ((_ requestId: Int, _ bodyBytes: Int) -> Void)?
    /// The connection ended (the server closed it, or an error did); not called for a
    /// close the driver asked for, which clears it first.
    var onClose: ((_ reason: String) -> Void)?
    private var error: (any Error)?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let body = unwrapInboundIn(data)
        if let requestId = ReplyScanner.requestId(in: body) {
            onReply?(requestId, body.readableBytes)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if self.error == nil { self.error = error }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        let onClose = self.onClose
        self.onClose = nil
        onReply = nil
        onClose?(error.map { "\($0)" } ?? "the server closed the connection")
        context.fireChannelInactive()
    }
}

/// One TLS connection to a target, usable from any thread; its handler only on its loop.
struct LoadConnection: Sendable {
    let channel: any Channel

    var eventLoop: any EventLoop { channel.eventLoop }

    /// The client TLS context every connection shares. No certificate check: a Cast
    /// device's certificate is self-signed, as is the echo server's.
    static func makeTLSContext() throws -> NIOSSLContext {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .none
        return try NIOSSLContext(configuration: tls)
    }

    /// Opens a TCP connection and starts TLS (the handshake completes with the first
    /// exchange; writes wait for it).
    static func open(_ target: LoadTarget) -> EventLoopFuture<LoadConnection> {
        let tls = target.tls
        return ClientBootstrap(group: target.group)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(.seconds(10))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(try NIOSSLClientHandler(context: tls, serverHostname: nil))
                    try sync.addHandler(ByteToMessageHandler(CastBodySlicer()))
                    try sync.addHandler(LoadSenderHandler())
                }
            }
            .connect(to: target.address)
            .map { LoadConnection(channel: $0) }
            .flatMapErrorThrowing { error in
                throw LoadError.cannotConnect(target.name, target.address.description, error)
            }
    }

    /// The handler; on the channel's loop only.
    var sender: LoadSenderHandler {
        channel.eventLoop.preconditionInEventLoop()
        return try! channel.pipeline.syncOperations.handler(type: LoadSenderHandler.self)
    }

    /// CONNECTs to receiver-0 and sends GET_STATUS `requestId`; succeeds with the answer's
    /// body size once it is there, so the server has registered the sender by then.
    func connectToReceiver(requestId: Int, timeout: TimeAmount = .seconds(10)) -> EventLoopFuture<Int> {
        let channel = self.channel
        return channel.eventLoop.flatSubmit {
            let promise = channel.eventLoop.makePromise(of: Int.self)
            let sender = self.sender
            let deadline = channel.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
                sender.onReply = nil
                sender.onClose = nil
                promise.fail(LoadError("no answer to GET_STATUS within \(timeout.nanoseconds / 1_000_000_000) s"))
            }
            sender.onReply = { id, bytes in
                guard id == requestId else { return }
                sender.onReply = nil
                sender.onClose = nil
                deadline.cancel()
                promise.succeed(bytes)
            }
            sender.onClose = { reason in
                deadline.cancel()
                promise.fail(LoadError("connection lost before the GET_STATUS answer: \(reason)"))
            }
            channel.write(CastLoadMessages.connect, promise: nil)
            channel.writeAndFlush(CastLoadMessages.getStatus.frame(requestId: requestId, allocator: channel.allocator),
                                  promise: nil)
            return promise.futureResult
        }
    }

    /// Closes the connection without reporting it as lost.
    func close() -> EventLoopFuture<Void> {
        let channel = self.channel
        return channel.eventLoop.flatSubmit {
            if let sender = try? channel.pipeline.syncOperations.handler(type: LoadSenderHandler.self) {
                sender.onClose = nil
                sender.onReply = nil
            }
            return channel.close().recover { _ in }
        }
    }
}

/// A server under load: where it listens, and the process to read figures from.
struct LoadTarget: Sendable {
    /// "castsim" or "echo".
    let name: String
    let address: SocketAddress
    /// The server's process id, for its CPU, memory and descriptors; nil when unknown.
    let pid: Int32?
    let group: any EventLoopGroup
    let tls: NIOSSLContext
    /// castsim's control API, when it runs one (event-stream followers read it).
    var control: SocketAddress? = nil
}
