import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Answers bytes that are no HTTP/1.1 request as the control API answers any request it
/// refuses: `400` with `{"error": ...}` saying what the parser met and what was expected,
/// then closes the connection (the parser cannot find the next request after an error).
///
/// Without it Hummingbird answers `400` with an empty body, and a client that sent a
/// malformed request line, a header without its colon or a TLS hello to this plain HTTP
/// port learned nothing from it. It sits after the HTTP codec, so it sees the parser's
/// error before Hummingbird does. Bytes that follow a request on its connection (pipelined)
/// are refused after that request's response has ended: written into it, the refusal would
/// corrupt it.
final class ControlProtocolErrors: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Requests whose head came in and whose response has not ended.
    private var answering = 0
    /// The parser's error, held until the responses being written have ended.
    private var refusal: HTTPParserError?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { answering += 1 }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data) else { return context.write(data, promise: promise) }
        answering = max(0, answering - 1)
        context.write(data, promise: promise)
        if answering == 0, let refusal {
            self.refusal = nil
            refuse(refusal, context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parser = error as? HTTPParserError else { return context.fireErrorCaught(error) }
        guard answering == 0 else {
            refusal = refusal ?? parser
            return
        }
        refuse(parser, context: context)
    }

    private func refuse(_ parser: HTTPParserError, context: ChannelHandlerContext) {
        // The body every refusal of the control API has (ControlError), with its newline.
        var body = ByteBuffer(string: ControlError.badRequest(Self.message(for: parser)).body.jsonText())
        body.writeString("\n")
        let head = HTTPResponse(status: .badRequest, headerFields: [
            .contentType: "application/json", .cacheControl: "no-store", .connection: "close",
            .contentLength: String(body.readableBytes),
        ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    /// What the parser met, and what a request looks like.
    static func message(for error: HTTPParserError) -> String {
        let found: String
        switch error {
        case .invalidMethod, .invalidConstant:
            found = "the request does not start with an HTTP method (a TLS hello? this port speaks plain HTTP)"
        case .invalidURL, .invalidCharactersUsed: found = "the request line's target is no valid path"
        case .invalidVersion: found = "the request line does not end with HTTP/1.0 or HTTP/1.1"
        case .invalidHeaderToken, .lfExpected: found = "a header line is not `Name: value`, or a line does not end with CRLF"
        case .invalidContentLength, .unexpectedContentLength: found = "its Content-Length is no number, or is not allowed here"
        case .invalidChunkSize: found = "a chunk of its chunked body does not start with a hexadecimal size"
        case .headerOverflow: found = "its head is larger than the server accepts"
        default: found = "it is no HTTP/1.1 request (\(error.debugDescription))"
        }
        return "malformed HTTP request: \(found); expected a request such as `GET /api/v1/state HTTP/1.1`, "
            + "header lines `Name: value`, and a blank line"
    }
}
