import CastSimulator
import Foundation
import Hummingbird
import Logging
import NIOCore

/// Where and how the control API listens.
public struct ControlConfiguration: Sendable {
    /// Not 8008/8009/8443 (the device's own), nor 8010 (VLC's stream server).
    public static let defaultPort = 8119

    public var host: String
    public var port: Int
    /// When set, every request needs `Authorization: Bearer <token>` (or `?token=`).
    public var token: String?
    /// Request bodies over this are refused with 413.
    public var maximumBodyBytes: Int = 1 << 20

    public init(host: String = "127.0.0.1", port: Int = ControlConfiguration.defaultPort, token: String? = nil) {
        self.host = host
        self.port = port
        self.token = token
    }

    /// True for 127.0.0.0/8, ::1 and localhost: addresses only this machine reaches.
    public static func isLoopback(_ host: String) -> Bool { SocketAddress.isLoopback(host: host) }
}

/// Why the control server did not start.
public struct ControlStartError: Error, CustomStringConvertible {
    public let description: String
}

/// The control API, its event stream and the dashboard, on one HTTP server (Hummingbird)
/// in front of a running ``CastSimulator``.
public final class ControlServer: Sendable {
    /// Where it listens, with the actual port when 0 was asked for.
    public let host: String
    public let port: Int
    private let server: RunningHTTPServer
    private let streams: EventStreams

    private init(host: String, server: RunningHTTPServer, streams: EventStreams) {
        self.host = host
        self.port = server.localAddress.port ?? 0
        self.server = server
        self.streams = streams
    }

    /// `host:port`, with brackets around an IPv6 address.
    public var hostAndPort: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    public static func start(_ configuration: ControlConfiguration, simulator: CastSimulator, logger: Logger) async throws
        -> ControlServer
    {
        try await start(configuration, devices: { [simulator] }, logger: logger)
    }

    /// The control API of several devices (a fleet): each endpoint acts on the device its
    /// `?device=` names, the first when it names none. `devices` is asked on each request
    /// (a household's speaker groups come and go); its first device never changes.
    public static func start(_ configuration: ControlConfiguration, devices: @escaping @Sendable () -> [CastSimulator], logger: Logger)
        async throws -> ControlServer
    {
        guard let first = devices().first else { throw ControlStartError(description: "the control API needs a device to control") }
        if !ControlConfiguration.isLoopback(configuration.host), configuration.token?.isEmpty ?? true {
            throw ControlStartError(description: "the control API on \(configuration.host) would be open to the network: give it a --control-token, or bind a loopback address")
        }
        let streams = EventStreams()
        let router = Router()
        router.add(middleware: ControlGate(token: configuration.token))
        ControlRoutes(first: first, endpoints: devices, maximumBodyBytes: configuration.maximumBodyBytes, streams: streams).register(on: router)

        var serverLogger = logger
        serverLogger.logLevel = max(logger.logLevel, .notice)
        do {
            let server = try await RunningHTTPServer.start(logger: serverLogger) { onServerRunning in
                Application(
                    router: router,
                    server: .http1(configuration: .init(additionalChannelHandlers: [ControlProtocolErrors()])),
                    configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "castsim",
                                         reuseAddress: true),
                    onServerRunning: onServerRunning, eventLoopGroupProvider: .singleton, logger: serverLogger)
            }
            return ControlServer(host: configuration.host, server: server, streams: streams)
        } catch {
            throw ListenError(listener: .control, host: configuration.host, port: configuration.port, error: error)
        }
    }

    /// Ends every event stream, stops listening and waits for requests in flight.
    public func stop() async {
        streams.finishAll()
        await server.stop()
    }
}
