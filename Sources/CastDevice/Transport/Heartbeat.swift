import CastWire

// urn:x-cast:com.google.cast.tp.heartbeat (§3): answer PINGs, send our own, drop silent sockets.

/// Per-socket keep-alive bookkeeping.
struct ConnectionLiveness: Sendable {
    var lastHeard: SimTime
    var nextPingAt: SimTime?

    init(openedAt: SimTime, heartbeatInterval: Double?) {
        lastHeard = openedAt
        nextPingAt = heartbeatInterval.map { openedAt + $0 }
    }
}

/// A message on the heartbeat namespace, decoded.
enum HeartbeatMessage: Equatable {
    case ping, pong
    case unknown(String?)

    init?(_ payload: JSONValue?) {
        guard case .object(let fields)? = payload else { return nil }
        switch fields["type"]?.stringValue {
        case "PING": self = .ping
        case "PONG": self = .pong
        case let other: self = .unknown(other)
        }
    }
}

extension SimulatedDevice {
    mutating func handleHeartbeat(_ envelope: CastEnvelope, payload: JSONValue?, on connection: ConnectionID) {
        switch HeartbeatMessage(payload) {
        case .ping?:
            // PONG whatever else the PING carries (pychromecast adds a requestId).
            send(JSONPayload(["type": "PONG"]), from: envelope.destinationId, to: envelope.sourceId, on: connection,
                 namespace: CastNamespace.heartbeat)
        case .pong?:
            break  // Liveness was already recorded; PONG ids are not checked (go-chromecast does not swap them).
        case .unknown(let type)?:
            log(.info, connection, "heartbeat: unknown type \(type ?? "(missing)") ignored")
        case nil:
            log(.warning, connection, "heartbeat: payload is not a JSON object, ignored")
        }
    }

    /// PINGs due connections and closes the ones silent for longer than the idle timeout.
    mutating func runHeartbeats() {
        for connection in liveness.keys.sorted() {
            guard let state = liveness[connection] else { continue }
            // Compared as `heartbeatDeadline` computes it: `now - lastHeard >= timeout` can be
            // false at that very deadline by a rounding error, and the deadline would never pass.
            if let idleTimeout = configuration.idleTimeout, state.lastHeard + idleTimeout <= now {
                let silence = DurationText.format(now - state.lastHeard)
                forget(connection, reason: .idleTimeout)
                pending.append(.close(connection, reason: "no message for \(silence) (idle timeout \(DurationText.format(idleTimeout)))"))
                continue
            }
            if let interval = configuration.heartbeatInterval, let due = state.nextPingAt, due <= now {
                send(JSONPayload(["type": "PING"]), from: CastEndpoint.transport, to: CastEndpoint.transport, on: connection,
                     namespace: CastNamespace.heartbeat)
                liveness[connection]?.nextPingAt = Self.nextBeat(after: due, interval: interval, now: now)
            }
        }
    }

    /// The first beat after `now` on the grid `due + k × interval`: missed beats are
    /// skipped, not sent in a burst, and a clock moved ahead by a year costs one division,
    /// not a loop over every beat.
    package static func nextBeat(after due: SimTime, interval: Double, now: SimTime) -> SimTime {
        let missed = ((now - due) / interval).rounded(.down)
        var next = due + (missed + 1) * interval
        // At the edge of a beat the division can round either way: a beat that falls on
        // `now` (give or take rounding) is the one being sent now, not the next.
        if next - now <= interval * 1e-9 { next = next + interval }
        return next
    }

    var heartbeatDeadline: SimTime? {
        var deadline: SimTime?
        for state in liveness.values {
            if let ping = state.nextPingAt { deadline = min(deadline ?? ping, ping) }
            if let idleTimeout = configuration.idleTimeout {
                let expiry = state.lastHeard + idleTimeout
                deadline = min(deadline ?? expiry, expiry)
            }
        }
        return deadline
    }
}
