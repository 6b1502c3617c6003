import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle

/// A Hummingbird application serving until it is stopped: the device's eureka_info ports
/// and the control API. ``start(logger:_:)`` returns once it listens, with the address it
/// got, or throws why it cannot listen (the bind error, for ``ListenError``).
package final class RunningHTTPServer: Sendable {
    package let localAddress: SocketAddress
    private let serviceGroup: ServiceGroup
    private let running: Task<Void, any Error>

    private init(localAddress: SocketAddress, serviceGroup: ServiceGroup, running: Task<Void, any Error>) {
        self.localAddress = localAddress
        self.serviceGroup = serviceGroup
        self.running = running
    }

    /// Runs the application `makeApplication` builds around the `onServerRunning` it is
    /// given (Hummingbird reports the bound channel there, and only there).
    package static func start(
        logger: Logger, _ makeApplication: (_ onServerRunning: @escaping @Sendable (any Channel) async -> Void) -> any Service
    ) async throws -> RunningHTTPServer {
        let bound = NIOLockedValueBox(BindState.pending)
        let application = makeApplication { channel in
            bound.withLockedValue { state in
                if let address = channel.localAddress {
                    state.settle(.success(address))
                } else {
                    state.settle(.failure(HTTPServerStopped(description: "the server's channel has no local address")))
                }
            }
        }
        let serviceGroup = ServiceGroup(configuration: .init(services: [application], gracefulShutdownSignals: [], logger: logger))
        let running = Task {
            do {
                try await serviceGroup.run()
                bound.withLockedValue { $0.settle(.failure(HTTPServerStopped(description: "the server stopped as it started"))) }
            } catch {
                bound.withLockedValue { $0.settle(.failure(error)) }
                throw error
            }
        }
        let address = try await withCheckedThrowingContinuation { continuation in
            bound.withLockedValue { $0.await(continuation) }
        }
        return RunningHTTPServer(localAddress: address, serviceGroup: serviceGroup, running: running)
    }

    /// Stops listening and waits for the requests in flight.
    package func stop() async {
        await serviceGroup.triggerGracefulShutdown()
        _ = await running.result
    }
}

/// Why a server is not listening although it did not fail to bind.
package struct HTTPServerStopped: Error, CustomStringConvertible {
    package let description: String
}

/// A server's start: bound, or failed, and who waits to hear which.
private enum BindState {
    case pending
    case waiting(CheckedContinuation<SocketAddress, any Error>)
    case settled(Result<SocketAddress, any Error>)

    mutating func settle(_ result: Result<SocketAddress, any Error>) {
        switch self {
        case .pending: self = .settled(result)
        case .waiting(let continuation):
            self = .settled(result)
            continuation.resume(with: result)
        case .settled: break
        }
    }

    mutating func await(_ continuation: CheckedContinuation<SocketAddress, any Error>) {
        switch self {
        case .pending, .waiting: self = .waiting(continuation)
        case .settled(let result): continuation.resume(with: result)
        }
    }
}
