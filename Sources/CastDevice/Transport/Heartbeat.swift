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

extension SimulatedDevice {
    mutating func handleHeartbeat(_ envelope: CastEnvelope, payload: JSONValue?, on connection: ConnectionID) {
        guard let payload else {
            log(.warning, connection, "heartbeat: payload is not JSON, ignored")
            return
        }
        switch payload["type"]?.stringValue {
        case "PING":
            // PONG whatever else the PING carries (pychromecast adds a requestId).
            reply(to: envelope, on: connection, ["type": "PONG"])
        case "PONG":
            break  // Liveness was already recorded; PONG ids are not checked (go-chromecast does not swap them).
        case let other:
            log(.info, connection, "heartbeat: unknown type \(other ?? "(missing)") ignored")
        }
    }

    /// PINGs due connections and closes the ones silent for longer than the idle timeout.
    mutating func runHeartbeats() {
        for connection in liveness.keys.sorted() {
            guard let state = liveness[connection] else { continue }
            // Compared as `heartbeatDeadline` computes it: `now - lastHeard >= timeout` can be
            // false at that very deadline by a rounding error, and the deadline would never pass.
            if let idleTimeout = configuration.idleTimeout, state.lastHeard + idleTimeout <= now {
                liveness.removeValue(forKey: connection)
                virtualConnections.removeAll(on: connection)
                pending.append(.close(connection, reason: "no message for \(formatSeconds(now - state.lastHeard)) (idle timeout \(formatSeconds(idleTimeout)))"))
                continue
            }
            if let interval = configuration.heartbeatInterval, let due = state.nextPingAt, due <= now {
                send(from: CastEndpoint.transport, to: CastEndpoint.transport, on: connection,
                     namespace: CastNamespace.heartbeat, ["type": "PING"])
                // Skip missed beats rather than bursting after a long pause of the clock.
                var next = due + interval
                while next <= now { next = next + interval }
                liveness[connection]?.nextPingAt = next
            }
        }
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

func formatSeconds(_ seconds: Double) -> String {
    seconds == seconds.rounded() ? "\(Int(seconds))s" : "\((seconds * 1000).rounded() / 1000)s"
}
