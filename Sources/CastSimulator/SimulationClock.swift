import CastDevice
import CastScenario
import NIOCore

/// Feeds `now` to the device core and turns its deadlines back into wall-clock delays.
/// Confined to the device's event loop.
package struct SimulationClock {
    package let mode: ClockMode
    private let origin: NIODeadline
    private var manualNow: SimTime = .zero

    package init(mode: ClockMode, origin: NIODeadline = .now()) {
        self.mode = mode
        self.origin = origin
    }

    private var factor: Double {
        switch mode {
        case .real: 1
        case .scaled(let factor): factor
        case .manual: 0
        }
    }

    package func now(wall: NIODeadline = .now()) -> SimTime {
        if case .manual = mode { return manualNow }
        let elapsed = Double((wall - origin).nanoseconds) / 1e9
        return SimTime(seconds: elapsed * factor)
    }

    /// The wall-clock time at which simulation time reaches `time`; nil for a manual clock,
    /// whose deadlines are reached only by ``advance(by:)``.
    package func wallDeadline(for time: SimTime) -> NIODeadline? {
        guard factor > 0 else { return nil }
        let nanoseconds = (time.seconds / factor * 1e9).rounded(.up)
        guard nanoseconds < Double(Int64.max / 2) else { return .distantFuture }
        return origin + .nanoseconds(Int64(nanoseconds))
    }

    /// Sets a manual clock to `time` (a scenario's `advance` step). Ignored otherwise.
    package mutating func jump(to time: SimTime) {
        guard case .manual = mode, time > manualNow else { return }
        manualNow = time
    }

    /// Moves a manual clock forward. Ignored for real and scaled clocks.
    package mutating func advance(by seconds: Double) -> Bool {
        guard case .manual = mode, seconds.isFinite, seconds >= 0 else { return false }
        manualNow = manualNow + seconds
        return true
    }
}
