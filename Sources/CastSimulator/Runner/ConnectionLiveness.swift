import CastDevice
import NIOCore

/// Keeps each sender's liveness on the real clock, whatever the simulation clock does: the
/// device's PINGs every interval and the idle timeout are properties of the real
/// connection, so a manual clock moved by hours, or one running a hundred times faster,
/// neither floods a sender with PINGs nor drops one that is talking. It says what is due;
/// the runner tells the device. Used on the device's loop only.
struct ConnectionLiveness {
    private var schedule: HeartbeatSchedule
    /// Where the real clock of the schedule starts.
    private let origin: NIODeadline
    private var wakeUp = WakeUp()

    init(_ configuration: DeviceConfiguration, origin: NIODeadline) {
        schedule = HeartbeatSchedule(heartbeatInterval: configuration.heartbeatInterval, idleTimeout: configuration.idleTimeout)
        self.origin = origin
    }

    private func seconds(at wall: NIODeadline) -> Double { Double((wall - origin).nanoseconds) / 1e9 }

    mutating func opened(_ id: ConnectionID, at wall: NIODeadline) {
        guard !schedule.isOff else { return }
        schedule.open(id, at: seconds(at: wall))
    }

    /// Anything from the sender counts: castv2-client never answers the device's PINGs.
    mutating func heard(_ id: ConnectionID, at wall: NIODeadline) {
        guard schedule.idleTimeout != nil else { return }
        schedule.heard(id, at: seconds(at: wall))
    }

    mutating func closed(_ id: ConnectionID) {
        schedule.remove(id)
    }

    /// What is due at `wall`, in order.
    mutating func takeDue(at wall: NIODeadline) -> [(ConnectionID, HeartbeatSchedule.Due)] {
        schedule.takeDue(at: seconds(at: wall))
    }

    /// When the earliest connection is due, on the real clock.
    private var earliestDue: NIODeadline? { schedule.earliest.map { origin + .nanoseconds(Int64(($0 * 1e9).rounded(.up))) } }

    /// Whether the wake-up is set for the earliest connection already.
    var isWakeUpCurrent: Bool { wakeUp.isSet(for: earliestDue) }

    /// Wakes `fire` on `loop` when the earliest connection is due.
    mutating func scheduleWakeUp(on loop: any EventLoop, _ fire: @escaping () -> Void) {
        wakeUp.set(earliestDue, on: loop, fire)
    }

    /// The wake-up fired: nothing is scheduled until the next ``scheduleWakeUp(on:_:)``.
    mutating func wokeUp() { wakeUp.fired() }

    mutating func cancel() { wakeUp.cancel() }
}
