import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// In front of every route: browsers kept to the dashboard's own origin, the bearer token
/// (when one is set), and errors answered as the API's JSON (a path the API has under
/// another method is a 405, not a 404).
struct ControlGate: RouterMiddleware {
    typealias Context = BasicRequestContext
    let token: String?

    /// The dashboard's scripts and style sheet: the same in every castsim, nothing of the
    /// device in them, so they need no token (a page cannot add one to a `<script src>`).
    static let publicFiles: Set<String> = ["/dashboard.js", "/dashboard-panels.js", "/dashboard-log.js", "/dashboard-live.js", "/recording.js", "/dashboard.css"]
    /// Where `?token=` stands for the header: the dashboard's address (a bookmark) and the
    /// event stream (a browser's EventSource cannot set headers). Elsewhere a token in the
    /// URL would only end up in more logs and histories.
    static let tokenInQuery: Set<String> = ["/", "\(ControlRoutes.prefix)/events"]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        request.method == .head ? try await head(request, context: context, next: next) : try await answer(request, context: context, next: next)
    }

    /// HEAD is GET without the content (RFC 9110 §9.3.2): every GET route is a HEAD route
    /// too (ControlRoutes), and here its answer, refusals included, loses its body and keeps
    /// its status and headers, Content-Length among them. An event stream asked this way is
    /// never opened: the body that would subscribe is dropped unrun.
    private func head(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let answer: Response
        do {
            answer = try await self.answer(request, context: context, next: next)
        } catch let error as ControlError {
            answer = try error.response(from: request, context: context)
        }
        return Response(status: answer.status, headers: answer.headers, body: ResponseBody())
    }

    private func answer(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let problem = Self.malformed(request) { throw ControlError.badRequest(problem) }
        if let refusal = Self.browserRefusal(request, token: token) {
            throw ControlError(status: .forbidden, message: refusal)
        }
        if let token, !Self.publicFiles.contains(request.uri.path), !Self.authorized(request, token: token) {
            // The page alone, without the device's state in it: its script asks for the state
            // with the token it finds after `#token=` (which browsers never send).
            if request.method == .get || request.method == .head, request.uri.path == "/" {
                return ControlResponse.text(DashboardPage.html(state: nil), contentType: "text/html; charset=utf-8")
            }
            throw ControlError(status: .unauthorized, message: "this castsim's control API needs its token: Authorization: Bearer <--control-token>",
                               headers: [.wwwAuthenticate: "Bearer realm=\"castsim\""])
        }
        try await Self.checkBody(request)
        do {
            return try await next(request, context)
        } catch let error as ControlError {
            throw error
        } catch let error as HTTPError where error.status == .notFound {
            let path = request.uri.path
            if let methods = ControlRoutes.table[path] {
                let allowed = methods.flatMap { $0 == .get ? [.get, .head] : [$0] }.map(\.rawValue).joined(separator: ", ")
                throw ControlError(status: .methodNotAllowed, message: "\(request.method.rawValue) \(path): expected \(allowed)",
                                   headers: [.allow: allowed])
            }
            throw ControlError(status: .notFound, message: "no such endpoint: \(request.method.rawValue) \(path); the API is described at \(ControlRoutes.prefix)/openapi.json")
        } catch let error as any HTTPResponseError {
            throw ControlError(status: error.status, message: "\(error)")
        }
    }

    /// Why a request that a web page may have made is refused, if it is. A page on another
    /// site can send a form POST to 127.0.0.1 without asking (no CORS preflight), and a
    /// page whose name is rebound to 127.0.0.1 can even read the answers: the API would
    /// let any site the user visits drive and watch the device. So a request a browser
    /// marks with an `Origin` must come from this server's own pages, and without a token
    /// the `Host` must be a loopback address or `localhost`, not some site's name.
    static func browserRefusal(_ request: Request, token: String?) -> String? {
        let authority = request.head.authority ?? ""
        // Either scheme: behind a TLS-terminating proxy the page is https.
        if let origin = request.headers[.origin], origin != "http://\(authority)", origin != "https://\(authority)" {
            return "a request from the web page at \(origin) is refused: the control API serves its own dashboard (http://\(authority)/) and clients that are not browsers"
        }
        if token == nil, !ControlConfiguration.isLoopback(hostName(of: authority)) {
            return "Host \(authority.isEmpty ? "(none)" : authority) is refused: without --control-token the control API answers requests to a loopback address or localhost only"
        }
        return nil
    }

    /// What makes a request's head unreadable as one request for one host, if anything:
    /// a second `Host` (RFC 9112 says 400), or a `Host` that is no host and port.
    static func malformed(_ request: Request) -> String? {
        // The first `Host` is the request's authority; a second stays among the fields.
        if !request.headers[values: hostField].isEmpty { return "two Host headers: a request names one host" }
        if let authority = request.head.authority, !isHostAndPort(authority) {
            return "Host \(authority): expected a host name or address, and a port"
        }
        return nil
    }

    private static let hostField = HTTPField.Name("Host")!

    /// `name`, `name:port`, `[v6]`, `[v6]:port`: a `Host` with `@`, `/` or a second colon
    /// outside brackets is none of them (`127.0.0.1:8119@evil.example`).
    static func isHostAndPort(_ authority: String) -> Bool {
        var rest = Substring(authority)
        if rest.hasPrefix("[") {
            guard let end = rest.firstIndex(of: "]"),
                  rest[rest.index(after: rest.startIndex)..<end].allSatisfy({ $0.isASCIIHexDigit || $0 == ":" || $0 == "." })
            else { return false }
            rest = rest[rest.index(after: end)...]
        } else {
            let name = rest.prefix { $0 != ":" }
            guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_") })
            else { return false }
            rest = rest[name.endIndex...]
        }
        if rest.isEmpty { return true }
        guard rest.first == ":" else { return false }
        let port = rest.dropFirst()
        return !port.isEmpty && port.count <= 5 && port.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// Refuses a request's body before its endpoint runs: one that is not JSON by its
    /// `Content-Type` (415), or one where the endpoint takes none (400). A chunked body may
    /// be empty (NIO's client sends a POST without a body so), so there it is read to tell.
    static func checkBody(_ request: Request) async throws {
        let length = request.headers[.contentLength].flatMap { Int($0) } ?? 0
        let chunked = request.headers[.transferEncoding] != nil
        // A method or path the API does not have is told as that (405, 404), body or not.
        guard length > 0 || chunked, ControlRoutes.table[request.uri.path]?.contains(request.method) == true else { return }
        if let type = request.headers[.contentType], let problem = jsonMediaTypeProblem(type) {
            throw ControlError(status: .unsupportedMediaType, message: problem)
        }
        guard !ControlRoutes.readsBody(request.method, request.uri.path) else { return }
        let noBody = ControlError.badRequest("\(request.method.rawValue) \(request.uri.path) takes no body")
        guard !chunked || length > 0 else {
            do { _ = try await request.body.collect(upTo: 0) } catch is NIOTooManyBytesError { throw noBody }
            return
        }
        throw noBody
    }

    /// Why `type` is not `application/json` (parameters allowed, a charset only UTF-8's), or nil.
    static func jsonMediaTypeProblem(_ type: String) -> String? {
        let parts = type.split(separator: ";", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard parts.first == "application/json" else { return "expected a JSON body (Content-Type: application/json), got \(type)" }
        for parameter in parts.dropFirst() where parameter.hasPrefix("charset=") {
            let charset = parameter.dropFirst("charset=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            if charset != "utf-8", charset != "utf8" { return "a JSON body is UTF-8; Content-Type says charset=\(charset)" }
        }
        return nil
    }

    /// `127.0.0.1` of `127.0.0.1:8119`, `::1` of `[::1]:8119`.
    static func hostName(of authority: String) -> String {
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<end])
        }
        return String(authority.split(separator: ":", maxSplits: 1).first ?? "")
    }

    /// The bearer token (the scheme's name in any case, as HTTP has it), or `?token=` where
    /// ``tokenInQuery`` takes it; compared in constant time.
    static func authorized(_ request: Request, token: String) -> Bool {
        var offered: String?
        if let header = request.headers[.authorization], header.count > 7, header.prefix(7).lowercased() == "bearer " {
            offered = header.dropFirst(7).trimmingCharacters(in: .whitespaces)
        } else if tokenInQuery.contains(request.uri.path), let query = request.uri.queryParameters.get("token") {
            offered = String(query)
        }
        guard let offered else { return false }
        let a = Array(offered.utf8), b = Array(token.utf8)
        var difference = a.count ^ b.count
        for index in 0..<min(a.count, b.count) { difference |= Int(a[index] ^ b[index]) }
        return difference == 0
    }
}
