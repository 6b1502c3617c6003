import CastSimulator
import Foundation
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle

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
    public static func isLoopback(_ host: String) -> Bool {
        host.hasPrefix("127.") || host == "::1" || host == "localhost"
    }
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
    private let serviceGroup: ServiceGroup
    private let running: Task<Void, any Error>
    private let streams: EventStreams

    private init(host: String, port: Int, serviceGroup: ServiceGroup, running: Task<Void, any Error>, streams: EventStreams) {
        self.host = host
        self.port = port
        self.serviceGroup = serviceGroup
        self.running = running
        self.streams = streams
    }

    /// `host:port`, with brackets around an IPv6 address.
    public var hostAndPort: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    public static func start(_ configuration: ControlConfiguration, simulator: CastSimulator, logger: Logger) async throws
        -> ControlServer
    {
        if !ControlConfiguration.isLoopback(configuration.host), configuration.token?.isEmpty ?? true {
            throw ControlStartError(description: "the control API on \(configuration.host) would be open to the network: give it a --control-token, or bind a loopback address")
        }
        let streams = EventStreams()
        let router = Router()
        router.add(middleware: ControlGate(token: configuration.token))
        ControlRoutes(simulator: simulator, maximumBodyBytes: configuration.maximumBodyBytes, streams: streams).register(on: router)

        let start = NIOLockedValueBox(StartState.pending)
        var serverLogger = logger
        serverLogger.logLevel = max(logger.logLevel, .notice)
        let application = Application(
            router: router,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "castsim",
                                 reuseAddress: true),
            onServerRunning: { channel in start.withLockedValue { $0.settle(.success(channel.localAddress?.port ?? configuration.port)) } },
            eventLoopGroupProvider: .singleton,
            logger: serverLogger)
        let serviceGroup = ServiceGroup(configuration: .init(services: [application], gracefulShutdownSignals: [], logger: serverLogger))
        let running = Task {
            do {
                try await serviceGroup.run()
                start.withLockedValue { $0.settle(.failure(ControlStartError(description: "the control server stopped as it started"))) }
            } catch {
                start.withLockedValue { $0.settle(.failure(error)) }
                throw error
            }
        }
        let port: Int
        do {
            port = try await withCheckedThrowingContinuation { continuation in
                start.withLockedValue { $0.await(continuation) }
            }
        } catch {
            throw ControlStartError(description: "cannot listen on \(configuration.host):\(configuration.port) for the control API: \(error)")
        }
        return ControlServer(host: configuration.host, port: port, serviceGroup: serviceGroup, running: running, streams: streams)
    }

    /// Ends every event stream, stops listening and waits for requests in flight.
    public func stop() async {
        streams.finishAll()
        await serviceGroup.triggerGracefulShutdown()
        _ = await running.result
    }
}

/// The control server's start: bound to a port, or failed, and who waits to hear which.
private enum StartState {
    case pending
    case waiting(CheckedContinuation<Int, any Error>)
    case settled(Result<Int, any Error>)

    mutating func settle(_ result: Result<Int, any Error>) {
        switch self {
        case .pending: self = .settled(result)
        case .waiting(let continuation):
            self = .settled(result)
            continuation.resume(with: result)
        case .settled: break
        }
    }

    mutating func await(_ continuation: CheckedContinuation<Int, any Error>) {
        switch self {
        case .pending, .waiting: self = .waiting(continuation)
        case .settled(let result): continuation.resume(with: result)
        }
    }
}
