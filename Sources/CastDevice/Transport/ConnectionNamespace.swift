import CastWire

// urn:x-cast:com.google.cast.tp.connection (§2): CONNECT / CLOSE / CONNECTED.

extension SimulatedDevice {
    /// The only CASTV2 protocol version castsim speaks: no chunking, no binary-over-UTF-8.
    static let supportedProtocolVersion = 0

    mutating func handleConnectionNamespace(_ envelope: CastEnvelope, payload: JSONValue?, on connection: ConnectionID) {
        guard let payload, payload.objectValue != nil else {
            log(.warning, connection, "connection namespace: payload is not a JSON object, ignored")
            return
        }
        switch payload["type"]?.stringValue {
        case "CONNECT":
            handleConnect(envelope, payload, on: connection)
        case "CLOSE":
            let link = VirtualConnection(connection: connection, localId: envelope.destinationId, peerId: envelope.sourceId)
            if virtualConnections.remove(link) {
                log(.debug, connection, "virtual connection \(envelope.sourceId) → \(envelope.destinationId) closed by sender")
            }
        case let other:
            log(.info, connection, "connection namespace: unknown type \(other.map { "\"\($0)\"" } ?? "(missing)") ignored")
        }
    }

    private mutating func handleConnect(_ envelope: CastEnvelope, _ payload: JSONValue, on connection: ConnectionID) {
        let source = envelope.sourceId
        let destination = envelope.destinationId
        guard source != CastEndpoint.broadcast, destination != CastEndpoint.broadcast else {
            log(.info, connection, "CONNECT with a broadcast id ignored")
            return
        }
        let rawType = payload["connType"]?.intValue ?? VirtualConnectionType.strong.rawValue
        let knownEndpoint = destination == CastEndpoint.platformReceiver || destination == runningApp?.transportId
        guard knownEndpoint, let type = VirtualConnectionType(rawValue: rawType) else {
            // Open Screen answers a refused CONNECT with CLOSE from the destination.
            log(.info, connection, "CONNECT to \(destination) refused: \(knownEndpoint ? "connType \(rawType) is not 0, 1 or 2" : "no such endpoint")")
            send(from: destination, to: source, on: connection, namespace: CastNamespace.connection, ["type": "CLOSE"])
            return
        }
        virtualConnections.add(VirtualConnection(connection: connection, localId: destination, peerId: source), type: type)
        log(.debug, connection, "virtual connection \(source) → \(destination) open (\(type))")
        // CONNECTED only when the sender offered a version: older senders expect no reply.
        if payload["protocolVersion"] != nil || payload["protocolVersionList"] != nil {
            send(from: destination, to: source, on: connection, namespace: CastNamespace.connection,
                 ["type": "CONNECTED", "protocolVersion": .number(Double(Self.supportedProtocolVersion))])
        }
    }

    /// Tells every sender connected to a stopping app that its virtual connection is gone,
    /// with CLOSE from the app's transport id (§2.2), and forgets those connections.
    mutating func closeVirtualConnections(to transportId: String) {
        for link in virtualConnections.removeAll(toLocal: transportId) {
            send(from: transportId, to: link.peerId, on: link.connection, namespace: CastNamespace.connection, ["type": "CLOSE"])
        }
    }
}
