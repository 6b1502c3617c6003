import NIOConcurrencyHelpers
import NIOCore

/// One request to castsim's control API on a connection of its own (`Connection: close`),
/// opened and sent as the other control clients are (``ControlClients``): the answer's
/// status and body, read to the connection's end.
enum ControlRequest {
    struct Answer: Sendable {
        var status: Int
        var body: String
    }

    static func send(_ method: String, _ path: String, body: String? = nil, to address: SocketAddress,
                     group: any EventLoopGroup) async throws -> Answer {
        let answer = NIOLockedValueBox<[UInt8]>([])
        let channels = try await ControlClients.open(1, of: "\(method) \(path)", to: address, group: group,
                                                     silence: "no answer within 10 s", request: { host in
            var request = "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n"
            if let body { request += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
            return request + "\r\n" + (body ?? "")
        }) { _, answered in
            Gatherer(answer: answer, answered: answered)
        }
        for channel in channels { try? await channel.close() }  // closed by the server already, as a rule
        let text = String(decoding: answer.withLockedValue { $0 }, as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 "), let status = Int(text.dropFirst(9).prefix(3)),
              let headersEnd = text.range(of: "\r\n\r\n") else {
            throw LoadError("\(method) \(path): not an HTTP answer: \(text.prefix(200))")
        }
        return Answer(status: status, body: String(text[headersEnd.upperBound...]))
    }

    /// Gathers everything the server sends, and is answered when the server closes.
    private final class Gatherer: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        private let answer: NIOLockedValueBox<[UInt8]>
        private let answered: EventLoopPromise<Void>

        init(answer: NIOLockedValueBox<[UInt8]>, answered: EventLoopPromise<Void>) {
            self.answer = answer
            self.answered = answered
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            answer.withLockedValue { $0 += buffer.readableBytesView }
        }

        func channelInactive(context: ChannelHandlerContext) {
            answered.succeed()
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            answered.fail(error)
            context.close(promise: nil)
        }
    }
}
