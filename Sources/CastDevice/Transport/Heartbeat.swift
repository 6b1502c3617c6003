import CastWire

// urn:x-cast:com.google.cast.tp.heartbeat (§3): answer PINGs, send our own, drop silent sockets.

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
        for (connection, due) in heartbeats.takeDue(at: now) {
            switch due {
            case .idle(let silence):
                forget(connection, reason: .idleTimeout)
                let timeout = DurationText.format(heartbeats.idleTimeout ?? silence)
                pending.append(.close(connection, reason: "no message for \(DurationText.format(silence)) (idle timeout \(timeout))"))
            case .ping:
                send(JSONPayload(["type": "PING"]), from: CastEndpoint.transport, to: CastEndpoint.transport, on: connection,
                     namespace: CastNamespace.heartbeat)
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

    var heartbeatDeadline: SimTime? { heartbeats.earliest }
}
