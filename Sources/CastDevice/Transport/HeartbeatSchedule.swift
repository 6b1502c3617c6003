/// When each socket is next due for a PING or for being closed as idle, kept so that the
/// earliest is found without looking at every socket: a message, an open or a close
/// costs the same with ten senders as with twenty thousand.
///
/// Times are seconds on the connections' own clock, which is real time whatever the
/// simulation clock does: a sender's PINGs and its patience are the real connection's, so a
/// manual clock moved by two hours or a clock sped up a hundred times drops no sender. The
/// runtime keeps one (and a test harness, on its clock); the device is told what is due.
///
/// Each socket has one entry in a min-heap, at a time no later than its real deadline.
/// A message only moves `lastHeard` (a dictionary write); the entry is checked when it
/// comes due and pushed back to the real deadline if that moved. So ``earliest`` can be
/// early (a wake-up with nothing to do), never late.
package struct HeartbeatSchedule: Sendable {
    /// One socket's place in the queue. `ticket` tells the live entry from stale ones
    /// left by a socket that closed (its id may even come back).
    private struct Wake: Comparable, Sendable {
        var time: Double
        var connection: ConnectionID
        var ticket: UInt64

        static func < (lhs: Wake, rhs: Wake) -> Bool {
            (lhs.time, lhs.connection, lhs.ticket) < (rhs.time, rhs.connection, rhs.ticket)
        }
    }

    /// Per-socket keep-alive bookkeeping.
    struct Liveness: Sendable {
        var lastHeard: Double
        var nextPingAt: Double?
        fileprivate var ticket: UInt64 = 0
    }

    package let heartbeatInterval: Double?
    package let idleTimeout: Double?
    private(set) var sockets: [ConnectionID: Liveness] = [:]
    private var queue = MinHeap<Wake>()
    private var lastTicket: UInt64 = 0

    package init(heartbeatInterval: Double?, idleTimeout: Double?) {
        self.heartbeatInterval = heartbeatInterval
        self.idleTimeout = idleTimeout
    }

    /// Neither PINGs nor an idle timeout: nothing is ever due.
    package var isOff: Bool { heartbeatInterval == nil && idleTimeout == nil }

    package var count: Int { sockets.count }

    package func contains(_ connection: ConnectionID) -> Bool { sockets[connection] != nil }

    /// The earliest time a socket may be due; nil when nothing is scheduled.
    package var earliest: Double? { queue.min?.time }

    package mutating func open(_ connection: ConnectionID, at now: Double) {
        var state = Liveness(lastHeard: now, nextPingAt: heartbeatInterval.map { now + $0 })
        enqueue(connection, &state)
        sockets[connection] = state
    }

    /// A message arrived: any message counts as liveness.
    package mutating func heard(_ connection: ConnectionID, at now: Double) {
        sockets[connection]?.lastHeard = now
    }

    /// Forgets a socket; false when it was not known. Its queue entry goes stale.
    @discardableResult
    package mutating func remove(_ connection: ConnectionID) -> Bool {
        guard sockets.removeValue(forKey: connection) != nil else { return false }
        // Stale entries go when they come due; under heavy churn, sooner, so the queue
        // stays within twice the live sockets (amortized O(1) per close).
        if sockets.isEmpty {
            queue.removeAll()
        } else if queue.count > 2 * sockets.count + 64 {
            queue.removeAll { wake in sockets[wake.connection]?.ticket != wake.ticket }
        }
        return true
    }

    /// What is due for one socket.
    package enum Due: Sendable, Equatable {
        case idle(silence: Double)
        case ping
    }

    /// Takes the sockets due at `now`, in deadline order (ties by connection), and what
    /// is due for each. A socket pinged here is scheduled for its next beat; one that is
    /// idle is left for the caller to ``remove(_:)``.
    package mutating func takeDue(at now: Double) -> [(ConnectionID, Due)] {
        var due: [(ConnectionID, Due)] = []
        while let wake = queue.min, wake.time <= now {
            queue.popMin()
            SimulatedDevice.countVisits()
            guard var state = sockets[wake.connection], state.ticket == wake.ticket else { continue }
            // Compared as `deadline(of:)` computes it: `now - lastHeard >= timeout` can be
            // false at that very deadline by a rounding error, and the deadline would never pass.
            if let idleTimeout, state.lastHeard + idleTimeout <= now {
                due.append((wake.connection, .idle(silence: now - state.lastHeard)))
                state.ticket = 0  // Nothing queued: the caller removes it.
                sockets[wake.connection] = state
                continue
            }
            if let interval = heartbeatInterval, let ping = state.nextPingAt, ping <= now {
                due.append((wake.connection, .ping))
                state.nextPingAt = Self.nextBeat(after: ping, interval: interval, now: now)
            }
            enqueue(wake.connection, &state)
            sockets[wake.connection] = state
        }
        return due
    }

    /// Queues `state`'s real deadline, if it has one.
    private mutating func enqueue(_ connection: ConnectionID, _ state: inout Liveness) {
        var deadline = state.nextPingAt
        if let idleTimeout {
            let expiry = state.lastHeard + idleTimeout
            deadline = min(deadline ?? expiry, expiry)
        }
        guard let deadline else { return }
        lastTicket += 1
        state.ticket = lastTicket
        queue.push(Wake(time: deadline, connection: connection, ticket: lastTicket))
    }

    /// The first beat after `now` on the grid `due + k × interval`: missed beats are
    /// skipped, not sent in a burst, and a clock that jumped ahead costs one division, not a
    /// loop over every beat.
    package static func nextBeat(after due: Double, interval: Double, now: Double) -> Double {
        let missed = ((now - due) / interval).rounded(.down)
        var next = due + (missed + 1) * interval
        // At the edge of a beat the division can round either way: a beat that falls on
        // `now` (give or take rounding) is the one being sent now, not the next.
        if next - now <= interval * 1e-9 { next = next + interval }
        return next
    }
}
