import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// One request to castsim's control API on a connection of its own (`Connection: close`):
/// the answer's status and body, read to the connection's end.
enum ControlRequest {
    struct Answer: Sendable {
        var status: Int
        var body: String
    }

    static func send(_ method: String, _ path: String, body: String? = nil, to address: SocketAddress,
                     group: any EventLoopGroup) async throws -> Answer {
        let host = "\(address.ipAddress ?? "localhost"):\(address.port ?? 80)"
        var request = "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n"
        if let body { request += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        request += "\r\n" + (body ?? "")
        let answered = group.next().makePromise(of: [UInt8].self)
        let channel = try await ClientBootstrap(group: group)
            .connectTimeout(.seconds(10))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Reader(answered)) }
            }
            .connect(to: address).get()
        let deadline = channel.eventLoop.scheduleTask(in: .seconds(30)) {
            answered.fail(LoadError("no answer to \(method) \(path) within 30 s"))
            channel.close(promise: nil)
        }
        defer { deadline.cancel() }
        try await channel.writeAndFlush(ByteBuffer(string: request))
        let bytes = try await answered.futureResult.get()
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 "), let status = Int(text.dropFirst(9).prefix(3)),
              let headersEnd = text.range(of: "\r\n\r\n") else {
            throw LoadError("\(method) \(path): not an HTTP answer: \(text.prefix(200))")
        }
        return Answer(status: status, body: String(text[headersEnd.upperBound...]))
    }

    /// Gathers everything the server sends until it closes.
    private final class Reader: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        private let answered: EventLoopPromise<[UInt8]>
        private let bytes = NIOLockedValueBox<[UInt8]>([])

        init(_ answered: EventLoopPromise<[UInt8]>) { self.answered = answered }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            bytes.withLockedValue { $0 += buffer.readableBytesView }
        }

        func channelInactive(context: ChannelHandlerContext) {
            answered.succeed(bytes.withLockedValue { $0 })
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            answered.fail(error)
            context.close(promise: nil)
        }
    }
}
