import CastDevice
import CastWire
import Hummingbird
import NIOCore

/// The device-facing HTTP endpoint on 8008 (HTTP) and 8443 (HTTPS): `/setup/eureka_info`,
/// which senders read to learn the device's name, model and capabilities, answered as the
/// device's family does (``DeviceQuirks/Eureka``).
enum EurekaRoutes {
    static let path = "/setup/eureka_info"

    /// What both ports share: the device, its groups, and its lock-up.
    struct Device: Sendable {
        let identity: DeviceIdentity
        let quirks: DeviceQuirks.Eureka
        /// The speaker groups the device belongs to as things stand (a household's change
        /// as leaders move), asked for on each request.
        var groups: @Sendable () async -> [EurekaGroup] = { [] }
        let lockUp: EurekaLockUp
        /// Tells the device it has locked up (its Cast channel stops answering too).
        var lockingUp: @Sendable () async -> Void = {}
    }

    /// `legacy`: the port answers the flat legacy body whatever `params` says (8008 on
    /// current firmware). `dial`: the plain-HTTP port, where old firmware also described
    /// itself to DIAL.
    static func router(_ device: Device, legacy: Bool, dial: Bool) -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: EurekaErrors())
        if device.quirks.hostCheck { router.add(middleware: HostCheck()) }
        router.get(RouterPath(path)) { request, _ in
            switch device.lockUp.poll() {
            case .answer:
                break
            case .lockingUp:
                await device.lockingUp()
                fallthrough
            case .lockedUp:
                // The connection stays open and nothing comes back, until the device stops.
                await device.lockUp.hold()
                throw HTTPError(.serviceUnavailable)
            }
            let eureka = EurekaInfo(identity: device.identity, quirks: device.quirks, groups: await device.groups())
            let body = legacy ? eureka.legacy : eureka.json(params: request.uri.queryParameters.get("params"))
            return json(body.jsonText(), status: .ok)
        }
        if dial, device.quirks.deviceDesc {
            router.get(RouterPath(DeviceDescription.path)) { request, _ in
                DeviceDescription.response(device.identity, authority: request.head.authority ?? "")
            }
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

/// 403 when `Host` names a host rather than an IP address, as SHIELD and Home Mini
/// answer; an empty `Host` (pychromecast's retry) or an address passes.
private struct HostCheck: RouterMiddleware {
    typealias Context = BasicRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let host = request.head.authority, !host.isEmpty, !Self.isAddress(host) else {
            return try await next(request, context)
        }
        return EurekaRoutes.json(#"{"error":"forbidden: Host must be an IP address"}"#, status: .forbidden)
    }

    /// `10.0.0.5`, `10.0.0.5:8443`, `[fe80::1]:8443`, `fe80::1`.
    static func isAddress(_ authority: String) -> Bool {
        var host = Substring(authority)
        if host.hasPrefix("["), let end = host.firstIndex(of: "]") {
            host = host[host.index(after: host.startIndex)..<end]
        } else if host.filter({ $0 == ":" }).count == 1, let colon = host.firstIndex(of: ":") {
            host = host[..<colon]
        }
        return (try? SocketAddress(ipAddress: String(host), port: 0)) != nil
    }
}
