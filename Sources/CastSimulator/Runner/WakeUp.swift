import NIOCore

/// One timer on the device's loop for the next deadline of something (the simulation's
/// next event, the next heartbeat due): moved only when that deadline changes, so asking
/// after every input costs a comparison, not a cancel and a new task.
struct WakeUp {
    private var scheduled: Scheduled<Void>?
    private var deadline: NIODeadline?

    /// Whether the timer is set for `target` already (or unset, for nil): then ``set(_:on:_:)``
    /// would do nothing, and the closure it takes need not be made (an allocation).
    func isSet(for target: NIODeadline?) -> Bool { target == deadline }

    /// Fires `fire` at `target` (nothing for nil), unless the timer is set for it already.
    mutating func set(_ target: NIODeadline?, on loop: any EventLoop, _ fire: @escaping () -> Void) {
        guard target != deadline else { return }
        scheduled?.cancel()
        deadline = target
        scheduled = target.map { loop.assumeIsolated().scheduleTask(deadline: $0, fire) }
    }

    /// The timer fired: nothing is set until the next ``set(_:on:_:)``.
    mutating func fired() {
        scheduled = nil
        deadline = nil
    }

    mutating func cancel() {
        scheduled?.cancel()
        fired()
    }
}
