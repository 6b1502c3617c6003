import CastWire

/// A state machine that is woken at deadlines: the device, and the scenario session around it.
package protocol DeadlineDriven {
    var now: SimTime { get set }
    /// The next time something is due, if any.
    var nextDeadline: SimTime? { get }
    /// Handles everything due at `now`.
    mutating func handleDue()
    mutating func warn(_ message: LogMessage)
}

/// A bound on the work one advance does, so no input can spin the loop forever.
package let maxDeadlineSteps = 1_000_000

extension DeadlineDriven {
    /// Lets time pass up to `target`. Every deadline at or before it is handled at its own
    /// time, in order, so an hour of manual-clock time plays out exactly as an hour of real
    /// time would.
    package mutating func runDeadlines(until target: SimTime) {
        var steps = 0
        var previous: SimTime?
        while let deadline = nextDeadline, deadline <= target, steps < maxDeadlineSteps {
            // A deadline that handling did not move would spin here forever: a bug, logged.
            if deadline == previous, deadline <= now {
                warn("deadline \(deadline) did not pass; skipping to \(target)")
                break
            }
            previous = deadline
            now = max(now, deadline)
            handleDue()
            steps += 1
        }
        if steps == maxDeadlineSteps {
            warn("advance to \(target) stopped after \(steps) steps at \(now)")
        }
        now = max(now, target)
    }
}
