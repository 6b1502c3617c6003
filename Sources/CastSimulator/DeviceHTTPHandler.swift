import CastDevice
import CastWire
import Foundation
import NIOCore
import NIOHTTP1

/// The device-facing HTTP endpoints on 8008 (HTTP) and 8443 (HTTPS).
final class DeviceHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let eureka: EurekaInfo
    private var head: HTTPRequestHead?

    init(identity: DeviceIdentity) {
        eureka = EurekaInfo(identity: identity)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            head = requestHead
        case .body:
            break
        case .end:
            guard let head else { return }
            self.head = nil
            respond(to: head, context: context)
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let components = URLComponents(string: head.uri)
        let path = components?.path ?? head.uri
        let status: HTTPResponseStatus
        let body: String
        switch (head.method, path) {
        case (.GET, "/setup/eureka_info"):
            let params = components?.queryItems?.first { $0.name == "params" }?.value
            status = .ok
            body = eureka.json(params: params).jsonText()
        case (_, "/setup/eureka_info"):
            status = .methodNotAllowed
            body = #"{"error":"use GET"}"#
        default:
            status = .notFound
            body = #"{"error":"not found"}"#
        }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Content-Length", value: "\(body.utf8.count)")
        headers.add(name: "Connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
