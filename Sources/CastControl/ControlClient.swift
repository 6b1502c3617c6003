import CastWire
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// An HTTP/1.1 client of the control API (NIO, one connection per request): what
/// `castsim ctl` and the tests use.
package struct ControlClient: Sendable {
    /// A reply: its status, headers (names lower-cased) and body.
    package struct Reply: Sendable {
        package var status: Int
        package var headers: [String: String]
        package var body: String

        /// The body as JSON (`null` when it is none).
        package var json: JSONValue { (try? JSONValue.parse(Array(body.utf8), limits: .document)) ?? .null }
        /// The `error` of a refusal.
        package var error: String? { json["error"]?.stringValue }
    }

    package let host: String
    package let port: Int
    package var token: String?
    /// HTTPS with this context (castsim's and Cast devices' certificates are self-signed:
    /// make it without verification); nil: plain HTTP.
    package var tls: NIOSSLContext?
    /// How long the TCP connect may take; nil: NIO's default (10 s).
    package var connectTimeout: TimeAmount?

    package init(host: String, port: Int, token: String? = nil) {
        self.host = host
        self.port = port
        self.token = token
    }

    /// `http://HOST:PORT` (an IPv6 host in brackets; a path is ignored).
    package init?(url: String, token: String? = nil) {
        var rest = Substring(url)
        guard rest.hasPrefix("http://") else { return nil }
        rest = rest.dropFirst("http://".count)
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
        let host: Substring, portText: Substring?
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            portText = after.hasPrefix(":") ? after.dropFirst() : nil
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
            portText = nil
        }
        guard !host.isEmpty else { return nil }
        let port = portText.map { Int($0) } ?? 80
        guard let port, (1...65535).contains(port) else { return nil }
        self.init(host: String(host), port: port, token: token)
    }

    package func get(_ path: String) async throws -> Reply { try await request(.GET, path) }
    package func delete(_ path: String) async throws -> Reply { try await request(.DELETE, path) }
    package func post(_ path: String, _ body: String, contentType: String? = "application/json") async throws -> Reply {
        try await request(.POST, path, body: body, contentType: contentType)
    }
    package func put(_ path: String, _ body: String) async throws -> Reply {
        try await request(.PUT, path, body: body, contentType: "application/json")
    }

    package func request(_ method: HTTPMethod, _ path: String, body: String? = nil, contentType: String? = nil,
                         headers extra: [(String, String)] = []) async throws -> Reply {
        try await exchange(method, path, body: body, contentType: contentType, headers: extra) { _ in false }
    }

    /// Sends a request and reads the reply until it ends, or until `stop` says the body so
    /// far is enough (a stream); `onHead` runs once the reply's head has arrived, with its status.
    package func exchange(_ method: HTTPMethod, _ path: String, body: String?, contentType: String?, headers extra: [(String, String)],
                          onHead: @escaping @Sendable (_ status: Int) async throws -> Void = { _ in },
                          stop: @escaping @Sendable (String) -> Bool) async throws -> Reply {
        try await exchange(method, path, body: body, contentType: contentType, headers: extra, onHead: onHead, keepingBody: true) { _, body in
            stop(String(buffer: body))
        }
    }

    /// Sends a request and hands each piece of the reply's body to `onChunk` as it comes,
    /// with the body so far when `keepingBody` (a stream that runs for hours keeps none);
    /// reads until the reply ends or `onChunk` says it is enough. Bytes, not text: a
    /// piece may end inside a UTF-8 character.
    package func exchange(_ method: HTTPMethod, _ path: String, body: String?, contentType: String?, headers extra: [(String, String)],
                          onHead: @escaping @Sendable (_ status: Int) async throws -> Void = { _ in }, keepingBody: Bool,
                          onChunk: @escaping @Sendable (_ chunk: ByteBuffer, _ body: ByteBuffer) -> Bool) async throws -> Reply {
        var bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        if let connectTimeout { bootstrap = bootstrap.connectTimeout(connectTimeout) }
        let tls = self.tls
        let channel = try await bootstrap
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: tls, serverHostname: nil)) }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var headers = HTTPHeaders([("Connection", "close")])
            if !extra.contains(where: { $0.0.lowercased() == "host" }) {
                headers.add(name: "Host", value: host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)")
            }
            if let token { headers.add(name: "Authorization", value: "Bearer \(token)") }
            if let contentType { headers.add(name: "Content-Type", value: contentType) }
            for (name, value) in extra { headers.add(name: name, value: value) }
            if let body { headers.add(name: "Content-Length", value: "\(body.utf8.count)") }
            // The whole request in one write. Written part by part, the server could read the
            // head and the body (their length is known), answer and close before the `end`
            // part was written, and that write then failed the exchange with "I/O on closed
            // channel" although the reply had come (a CI run saw `castsim ctl pause` do so).
            var request: [HTTPClientRequestPart] = [.head(HTTPRequestHead(version: .http1_1, method: method, uri: path, headers: headers))]
            if let body { request.append(.body(.byteBuffer(ByteBuffer(string: body)))) }
            request.append(.end(nil))
            var writeFailure: (any Error)?
            do {
                try await outbound.write(contentsOf: request)
            } catch {
                // The server may have answered and closed all the same: the reply decides.
                writeFailure = error
            }
            var reply = Reply(status: 0, headers: [:], body: "")
            var received = ByteBuffer()
            for try await part in inbound {
                switch part {
                case .head(let head):
                    reply.status = Int(head.status.code)
                    for (name, value) in head.headers { reply.headers[name.lowercased()] = value }
                    try await onHead(reply.status)
                case .body(let buffer):
                    if keepingBody { received.writeImmutableBuffer(buffer) }
                    if onChunk(buffer, received) {
                        reply.body = String(buffer: received)
                        return reply
                    }
                case .end:
                    reply.body = String(buffer: received)
                    return reply
                }
            }
            if reply.status == 0, let writeFailure { throw writeFailure }
            reply.body = String(buffer: received)
            return reply
        }
    }
}
