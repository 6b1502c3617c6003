import Dispatch
import Foundation

/// Waits for SIGINT or SIGTERM, so `castsim run` can close its connections and release
/// its ports before exiting.
enum ShutdownSignal {
    static func wait() async -> String {
        await withCheckedContinuation { continuation in
            let queue = DispatchQueue(label: "castsim.signals")
            let once = Once()
            var sources: [any DispatchSourceSignal] = []
            for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler {
                    if once.claim() { continuation.resume(returning: name) }
                }
                source.resume()
                sources.append(source)
            }
            // The sources must outlive this scope; they live until the process exits.
            Self.retained = sources
        }
    }

    /// Only touched on the main actor's first call, before any signal can arrive.
    nonisolated(unsafe) private static var retained: [any DispatchSourceSignal] = []
}

/// Lets exactly one of several racing callbacks through (all run on one serial queue).
private final class Once: @unchecked Sendable {
    // @unchecked: only ever read and written on the serial "castsim.signals" queue.
    private var done = false
    func claim() -> Bool {
        if done { return false }
        done = true
        return true
    }
}
