import Foundation

extension SimulatedDevice {
    /// Notes that the connection bookkeeping (heartbeat schedule, virtual connection
    /// indexes, the scenario's connection list) looked at `count` entries, when a test bound
    /// ``visitCounter``: how a test shows that a message, an open or a close costs the same
    /// with ten thousand senders as with a hundred, without timing anything. In every build,
    /// since CI tests the release build it ships; unbound, it costs one task-local read.
    @inline(__always)
    package static func countVisits(_ count: Int = 1) {
        visitCounter?.count(count)
    }
}

extension SimulatedDevice {
    /// The counter ``countVisits(_:)`` bumps in the current task.
    @TaskLocal package static var visitCounter: VisitCounter?
}

/// A count that the task it is bound to bumps; read after the work is done.
package final class VisitCounter: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value = 0

    package init() {}

    package func count(_ count: Int) {
        lock.lock()
        value += count
        lock.unlock()
    }

    package var total: Int {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}
