import CastWire

// urn:x-cast:com.google.cast.tp.heartbeat (docs/protocol/castv2.md §3): answer PINGs, send our
// own, drop silent sockets.

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
            unhandled(envelope, on: connection, .info, "heartbeat: unknown type \(type ?? "(missing)") ignored")
        case nil:
            unhandled(envelope, on: connection, .warning, "heartbeat: \(envelope.payloadDescription), ignored")
        }
    }

    /// A connection's heartbeat is due (the runtime's ``HeartbeatSchedule`` says when, on
    /// the connection's own clock): a PING from `Tr@n$p0rt-0`, or, for one silent longer
    /// than the idle timeout, the close.
    package mutating func heartbeatDue(_ due: HeartbeatSchedule.Due, on connection: ConnectionID, now: SimTime) -> [DeviceOutput] {
        self.now = max(self.now, now)
        guard sockets.contains(connection) else { return drain() }
        switch due {
        case .idle(let silence):
            forget(connection, reason: .idleTimeout)
            let timeout = DurationText.format(configuration.idleTimeout ?? silence)
            outbox.append(.close(connection, reason: "no message for \(DurationText.format(silence)) (idle timeout \(timeout))"))
        case .ping:
            send(JSONPayload(["type": "PING"]), from: CastEndpoint.transport, to: CastEndpoint.transport, on: connection,
                 namespace: CastNamespace.heartbeat)
        }
        return drain()
    }
}
