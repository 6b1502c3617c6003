import CastCredentials
import CastDevice
import CastSimulator
import CastWire
import NIOCore
import NIOPosix
import NIOSSL

/// The yardstick: a TLS server on one event loop, as castsim's device is, doing nothing a
/// Cast server could skip. It reads Cast frames and answers each one that carries a
/// requestId with a canned RECEIVER_STATUS of castsim's size carrying that requestId —
/// to the sender, or with `broadcast` to every connection, as castsim broadcasts the
/// status after SET_VOLUME. A frame without a requestId (CONNECT) gets no answer, as from
/// castsim. So the gap between the two is what castsim's own work costs.
package enum EchoServer {
    /// Binds and starts serving; the channel is the listener.
    static func start(host: String, port: Int, replyBytes: Int, broadcast: Bool) async throws -> (any Channel, MultiThreadedEventLoopGroup) {
        // castsim's own TLS identity (a 2048-bit RSA key, TLS 1.2 and up): the RSA signature
        // is most of a handshake's server CPU, and churn measures handshakes.
        let credentials = try await DeviceCredentials.make(for: try DeviceIdentity(uuid: "0123456789abcdef0123456789abcdef"))
        let tls = try NIOSSLContext(configuration: credentials.tlsConfiguration())
        let reply = try cannedReply(bodyBytes: replyBytes,
                                    destination: broadcast ? CastEndpoint.broadcast : CastEndpoint.platformSender)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let audience = try await loop.submit { NIOLoopBound(EchoAudience(), eventLoop: loop) }.get()
        do {
            // castsim's own child-channel options (TCP_NODELAY, read sizes, one read per turn, write water
            // marks): per-connection memory and read behaviour compare like for like.
            let channel = try await CastConnectionHandler.configure(ServerBootstrap(group: group))
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let sync = channel.pipeline.syncOperations
                        try sync.addHandler(NIOSSLServerHandler(context: tls))
                        try sync.addHandler(ByteToMessageHandler(CastBodySlicer()))
                        try sync.addHandler(EchoHandler(reply: reply, audience: broadcast ? audience.value : nil))
                    }
                }
                .bind(host: host, port: port).get()
            return (channel, group)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// RECEIVER_STATUS-shaped: `{"requestId":N,"status":"xxx…","type":"RECEIVER_STATUS"}`
    /// from receiver-0, its status string padded so that the body for a 1-digit requestId
    /// is `bodyBytes` long, as castsim's answer to requestId 1 was. Longer ids grow both
    /// by the same digits. Encoded by CastWire like everything else.
    package static func cannedReply(bodyBytes: Int, destination: String) throws -> CastFrameTemplate {
        func template(padding: Int) throws -> CastFrameTemplate {
            try CastFrameTemplate { requestId in
                CastEnvelope(sourceId: CastEndpoint.platformReceiver, destinationId: destination, namespace: CastNamespace.receiver,
                             payload: .string(JSONValue.object([
                                 "requestId": .number(Double(requestId)),
                                 "status": .string(String(repeating: "x", count: padding)),
                                 "type": "RECEIVER_STATUS",
                             ]).jsonText()))
            }
        }
        let bare = try template(padding: 0).bodyBytes
        var padding = max(0, bodyBytes - bare)
        // A longer payload may need a longer protobuf length prefix: step back to fit.
        while padding > 0, try template(padding: padding).bodyBytes > bodyBytes { padding -= 1 }
        return try template(padding: padding)
    }
}

/// Every open connection of the echo server, for broadcasts; on its one loop.
final class EchoAudience {
    private var channels: [ObjectIdentifier: any Channel] = [:]

    func add(_ channel: any Channel) { channels[ObjectIdentifier(channel)] = channel }
    func remove(_ channel: any Channel) { channels[ObjectIdentifier(channel)] = nil }

    func send(_ frame: ByteBuffer) {
        for channel in channels.values { channel.writeAndFlush(frame, promise: nil) }
    }
}

/// Answers frames: the requestId found by byte search, the reply stamped from the
/// template, and (like castsim) one flush per read rather than per reply.
final class EchoHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let reply: CastFrameTemplate
    private let audience: EchoAudience?
    private var unflushed = false

    init(reply: CastFrameTemplate, audience: EchoAudience?) {
        self.reply = reply
        self.audience = audience
    }

    func channelActive(context: ChannelHandlerContext) {
        audience?.add(context.channel)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        audience?.remove(context.channel)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let requestId = ReplyScanner.requestId(in: unwrapInboundIn(data)), requestId > 0 else { return }
        let frame = reply.frame(requestId: requestId, allocator: context.channel.allocator)
        if let audience {
            audience.send(frame)
        } else {
            context.write(wrapOutboundOut(frame), promise: nil)
            unflushed = true
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if unflushed {
            unflushed = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
