import Dispatch
import Foundation

/// SIGINT and SIGTERM, caught from the moment `castsim run` starts, so a signal that
/// arrives while the device is still starting is not lost (and does not kill the process
/// before it has released its ports).
final class ShutdownSignal: @unchecked Sendable {
    // @unchecked: `received` and `waiter` are only touched on the serial `queue`.
    private let queue = DispatchQueue(label: "castsim.signals")
    private var sources: [any DispatchSourceSignal] = []
    private var received: String?
    private var waiter: CheckedContinuation<String, Never>?

    /// Starts catching the signals.
    init() {
        for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [unowned self] in deliver(name) }
            source.resume()
            sources.append(source)
        }
    }

    private func deliver(_ name: String) {
        guard received == nil else { return }
        received = name
        waiter?.resume(returning: name)
        waiter = nil
    }

    /// Returns the first signal received, at once if one already came.
    func wait() async -> String {
        await withCheckedContinuation { continuation in
            queue.async { [self] in
                if let received {
                    continuation.resume(returning: received)
                } else {
                    waiter = continuation
                }
            }
        }
    }
}
