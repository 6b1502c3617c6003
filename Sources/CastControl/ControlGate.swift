import Foundation
import Hummingbird

/// In front of every route: the bearer token (when one is set), and errors answered as
/// the API's JSON (a path the API has under another method is a 405, not a 404).
struct ControlGate: RouterMiddleware {
    typealias Context = BasicRequestContext
    let token: String?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
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
