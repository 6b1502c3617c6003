import CastDevice
import CastWire
import Hummingbird
import NIOCore

/// The device-facing HTTP endpoint on 8008 (HTTP) and 8443 (HTTPS): `/setup/eureka_info`,
/// which senders read to learn the device's name, model and capabilities.
enum EurekaRoutes {
    static let path = "/setup/eureka_info"

    /// `groups`: the speaker groups the device belongs to as things stand (a household's
    /// change as leaders move), asked for on each request.
    static func router(identity: DeviceIdentity, groups: @escaping @Sendable () async -> [EurekaGroup] = { [] })
        -> Router<BasicRequestContext>
    {
        let router = Router()
        router.add(middleware: EurekaErrors())
        router.get(RouterPath(path)) { request, _ in
            let eureka = EurekaInfo(identity: identity, groups: await groups())
            return json(eureka.json(params: request.uri.queryParameters.get("params")).jsonText(), status: .ok)
        }
        return router
    }

    static func json(_ text: String, status: HTTPResponse.Status) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}

/// Errors as JSON, as a device answers them: another method on eureka_info is a 405, any
/// other path a 404.
private struct EurekaErrors: RouterMiddleware {
    typealias Context = BasicRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            guard request.uri.path == EurekaRoutes.path else { return EurekaRoutes.json(#"{"error":"not found"}"#, status: .notFound) }
            var response = EurekaRoutes.json(#"{"error":"use GET"}"#, status: .methodNotAllowed)
            response.headers[.allow] = "GET"
            return response
        }
    }
}
