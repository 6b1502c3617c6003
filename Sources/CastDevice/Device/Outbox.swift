import CastWire

/// What the device has to say, in the order it says it: messages, closes, log lines and
/// events. The platform keeps one, and so does each ``AppContext`` an app answers through;
/// both address messages here, so a reply, a unicast and a broadcast are built one way
/// whoever sends them.
struct Outbox: Sendable {
    private(set) var outputs: [DeviceOutput] = []

    /// Takes what was said, leaving the box empty with its storage kept.
    mutating func take() -> [DeviceOutput] {
        defer { outputs.removeAll(keepingCapacity: true) }
        return outputs
    }

    mutating func append(_ output: DeviceOutput) { outputs.append(output) }

    mutating func log(_ level: DeviceLogEvent.Level, _ connection: ConnectionID?, _ message: LogMessage) {
        outputs.append(.log(DeviceLogEvent(level, connection, message)))
    }

    /// Sends a payload to one sender endpoint on one socket.
    mutating func send(_ payload: JSONPayload, from localId: String, to peerId: String, on connection: ConnectionID,
                       namespace: String) {
        let envelope = CastEnvelope(sourceId: localId, destinationId: peerId, namespace: namespace, payload: .string(payload.text))
        outputs.append(.send(envelope, to: [connection]))
    }

    /// Answers the sender endpoint of a request, from `localId`. An answer too large for
    /// one frame is never dropped silently: the sender gets INVALID_REQUEST instead (the
    /// answers the protocol lets us shorten, MEDIA_STATUS and QUEUE_ITEMS, are shortened
    /// before they get here), and the log says so.
    mutating func reply(_ payload: JSONPayload, to requester: Requester, from localId: String, namespace: String) {
        var payload = payload
        if payload.byteCount > CastFraming.maxPayloadBytes {
            let rejection = RequestRejection.invalidRequest(
                .invalidRequest,
                "the \(payload.value["type"]?.stringValue ?? "answer") answer is \(payload.byteCount) bytes, over the \(CastFraming.maxPayloadBytes)-byte limit of one message")
            log(.warning, requester.connection, rejection.logLine(namespace: namespace, type: nil))
            payload = rejection.payload(requestId: requester.requestId)
        }
        send(payload, from: localId, to: requester.senderId, on: requester.connection, namespace: namespace)
    }

    /// Sends a payload from `localId` to every socket subscribed to it, destination `*`.
    /// `requester` is the request it answers, if any: with `isolatingRequestIds`
    /// (``DeviceConfiguration/isolateRequestIds``) it alone gets its id back.
    mutating func broadcast(_ payload: JSONPayload, from localId: String, namespace: String, to subscribers: @autoclosure () -> [ConnectionID],
                            answering requester: Requester?, isolatingRequestIds: Bool) {
        guard payload.byteCount <= CastFraming.maxPayloadBytes else {
            log(.warning, nil, "not sent: a \(payload.byteCount)-byte \(payload.value["type"]?.stringValue ?? namespace) broadcast is over the \(CastFraming.maxPayloadBytes)-byte limit of one message")
            return
        }
        var recipients = subscribers()
        if isolatingRequestIds, let requester, requester.requestId != 0,
           payload.value["requestId"]?.intValue == requester.requestId {
            // The requester alone gets its id back; the others a copy with requestId 0.
            send(payload, from: localId, to: requester.senderId, on: requester.connection, namespace: namespace)
            recipients.removeAll { $0 == requester.connection }
            guard !recipients.isEmpty else { return }
            let copy = JSONPayload(payload.value.replacing("requestId", with: 0))
            outputs.append(.send(CastEnvelope(sourceId: localId, destinationId: CastEndpoint.broadcast, namespace: namespace,
                                              payload: .string(copy.text)), to: recipients))
            return
        }
        guard !recipients.isEmpty else { return }
        outputs.append(.send(CastEnvelope(sourceId: localId, destinationId: CastEndpoint.broadcast, namespace: namespace,
                                          payload: .string(payload.text)), to: recipients))
    }
}
