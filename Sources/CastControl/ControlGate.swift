import Foundation
import Hummingbird

/// In front of every route: browsers kept to the dashboard's own origin, the bearer token
/// (when one is set), and errors answered as the API's JSON (a path the API has under
/// another method is a 405, not a 404).
struct ControlGate: RouterMiddleware {
    typealias Context = BasicRequestContext
    let token: String?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let refusal = Self.browserRefusal(request, token: token) {
            throw ControlError(status: .forbidden, message: refusal)
        }
        if let token, !Self.authorized(request, token: token) {
            throw ControlError(status: .unauthorized, message: "this castsim's control API needs its token: Authorization: Bearer <--control-token>",
                               headers: [.wwwAuthenticate: "Bearer realm=\"castsim\""])
        }
        do {
            return try await next(request, context)
        } catch let error as ControlError {
            throw error
        } catch let error as HTTPError where error.status == .notFound {
            let path = request.uri.path
            if let methods = ControlRoutes.table[path] {
                let allowed = methods.map(\.rawValue).joined(separator: ", ")
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

    /// `127.0.0.1` of `127.0.0.1:8119`, `::1` of `[::1]:8119`.
    static func hostName(of authority: String) -> String {
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<end])
        }
        return String(authority.split(separator: ":", maxSplits: 1).first ?? "")
    }

    /// The bearer token, or `?token=` (a browser's EventSource cannot set headers); compared
    /// in constant time.
    static func authorized(_ request: Request, token: String) -> Bool {
        var offered: String?
        if let header = request.headers[.authorization], header.hasPrefix("Bearer ") {
            offered = String(header.dropFirst("Bearer ".count))
        } else if let query = request.uri.queryParameters.get("token") {
            offered = query
        }
        guard let offered else { return false }
        let a = Array(offered.utf8), b = Array(token.utf8)
        var difference = a.count ^ b.count
        for index in 0..<min(a.count, b.count) { difference |= Int(a[index] ^ b[index]) }
        return difference == 0
    }
}
