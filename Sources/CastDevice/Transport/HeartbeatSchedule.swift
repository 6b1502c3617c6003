/// When each socket is next due for a PING or for being closed as idle, kept so that the
/// earliest is found without looking at every socket: a message, an open or a close
/// costs the same with ten senders as with twenty thousand.
///
/// Each socket has one entry in a min-heap, at a time no later than its real deadline.
/// A message only moves `lastHeard` (a dictionary write); the entry is checked when it
/// comes due and pushed back to the real deadline if that moved. So ``earliest`` can be
/// early (a wake-up with nothing to do), never late.
struct HeartbeatSchedule: Sendable {
    /// One socket's place in the queue. `ticket` tells the live entry from stale ones
    /// left by a socket that closed (its id may even come back).
    private struct Wake: Comparable, Sendable {
        var time: SimTime
        var connection: ConnectionID
        var ticket: UInt64

        static func < (lhs: Wake, rhs: Wake) -> Bool {
            (lhs.time, lhs.connection, lhs.ticket) < (rhs.time, rhs.connection, rhs.ticket)
        }
    }

    /// Per-socket keep-alive bookkeeping.
    struct Liveness: Sendable {
        var lastHeard: SimTime
        var nextPingAt: SimTime?
        fileprivate var ticket: UInt64 = 0
    }

    let heartbeatInterval: Double?
    let idleTimeout: Double?
    private(set) var sockets: [ConnectionID: Liveness] = [:]
    private var queue = MinHeap<Wake>()
    private var lastTicket: UInt64 = 0

    init(heartbeatInterval: Double?, idleTimeout: Double?) {
        self.heartbeatInterval = heartbeatInterval
        self.idleTimeout = idleTimeout
    }

    var count: Int { sockets.count }

    func contains(_ connection: ConnectionID) -> Bool { sockets[connection] != nil }

    /// The earliest time a socket may be due; nil when nothing is scheduled.
    var earliest: SimTime? { queue.min?.time }

    mutating func open(_ connection: ConnectionID, at now: SimTime) {
        var state = Liveness(lastHeard: now, nextPingAt: heartbeatInterval.map { now + $0 })
        enqueue(connection, &state)
        sockets[connection] = state
    }

    /// A message arrived: any message counts as liveness.
    mutating func heard(_ connection: ConnectionID, at now: SimTime) {
        sockets[connection]?.lastHeard = now
    }

    /// Forgets a socket; false when it was not known. Its queue entry goes stale.
    @discardableResult
    mutating func remove(_ connection: ConnectionID) -> Bool {
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
    enum Due: Equatable {
        case idle(silence: Double)
        case ping
    }

    /// Takes the sockets due at `now`, in deadline order (ties by connection), and what
    /// is due for each. A socket pinged here is scheduled for its next beat; one that is
    /// idle is left for the caller to ``remove(_:)``.
    mutating func takeDue(at now: SimTime) -> [(ConnectionID, Due)] {
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
                state.nextPingAt = SimulatedDevice.nextBeat(after: ping, interval: interval, now: now)
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
}
