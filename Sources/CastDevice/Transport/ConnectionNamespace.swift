import CastWire

// urn:x-cast:com.google.cast.tp.connection (docs/protocol/castv2.md §2): CONNECT / CLOSE / CONNECTED.

/// A message on the connection namespace, decoded.
enum ConnectionMessage: Equatable {
    /// `connType` as sent (checked against 0, 1, 2 by the handler, which answers a bad one
    /// with CLOSE); `offersVersion` when the sender listed protocol versions.
    case connect(connType: Int, offersVersion: Bool, userAgent: String?)
    case close
    case unknown(String?)

    init?(_ payload: JSONValue?) {
        guard case .object(let fields)? = payload else { return nil }
        switch fields["type"]?.stringValue {
        case "CONNECT":
            self = .connect(
                connType: fields["connType"]?.intValue ?? VirtualConnectionType.strong.rawValue,
                offersVersion: fields["protocolVersion"] != nil || fields["protocolVersionList"] != nil,
                userAgent: fields["userAgent"]?.stringValue)
        case "CLOSE":
            self = .close
        case let other:
            self = .unknown(other)
        }
    }
}

extension SimulatedDevice {
    /// The only CASTV2 protocol version castsim speaks: no chunking, no binary-over-UTF-8.
    static let supportedProtocolVersion = 0

    mutating func handleConnectionNamespace(_ envelope: CastEnvelope, payload: JSONValue?, on connection: ConnectionID) {
        guard let message = ConnectionMessage(payload) else {
            unhandled(envelope, on: connection, .warning, "connection namespace: \(envelope.payloadDescription), ignored")
            return
        }
        let link = VirtualConnection(connection: connection, localId: envelope.destinationId, peerId: envelope.sourceId)
        switch message {
        case .connect(let connType, let offersVersion, let userAgent):
            handleConnect(link, connType: connType, offersVersion: offersVersion, userAgent: userAgent)
        case .close:
            if virtualConnections.remove(link) {
                log(.debug, connection, "virtual connection \(link.peerId) → \(link.localId) closed by sender")
                raise(.senderDisconnected(link))
            }
        case .unknown(let type):
            unhandled(envelope, on: connection, .info, "connection namespace: unknown type \(type.map { "\"\($0)\"" } ?? "(missing)") ignored")
        }
    }

    private mutating func handleConnect(_ link: VirtualConnection, connType: Int, offersVersion: Bool, userAgent: String?) {
        guard link.peerId != CastEndpoint.broadcast, link.localId != CastEndpoint.broadcast else {
            log(.info, link.connection, "CONNECT with a broadcast id ignored")
            return
        }
        let knownEndpoint = link.localId == CastEndpoint.platformReceiver || link.localId == runningApp?.transportId
        guard knownEndpoint, let type = VirtualConnectionType(rawValue: connType) else {
            // Open Screen answers a refused CONNECT with CLOSE from the destination.
            log(.info, link.connection,
                "CONNECT to \(link.localId) refused: \(knownEndpoint ? "connType \(connType) is not 0, 1 or 2" : "no such endpoint")")
            send(JSONPayload(["type": "CLOSE"]), from: link.localId, to: link.peerId, on: link.connection,
                 namespace: CastNamespace.connection)
            return
        }
        if virtualConnections.add(link, .init(type: type, userAgent: userAgent)) {
            log(.debug, link.connection, "virtual connection \(link.peerId) → \(link.localId) open (\(type))")
            raise(.senderConnected(link, type, userAgent: userAgent))
        }
        // CONNECTED only when the sender offered a version: older senders expect no reply.
        if offersVersion {
            send(JSONPayload(["type": "CONNECTED", "protocolVersion": .number(Double(Self.supportedProtocolVersion))]),
                 from: link.localId, to: link.peerId, on: link.connection, namespace: CastNamespace.connection)
        }
    }

    /// Tells every sender connected to a stopping app that its virtual connection is gone,
    /// with CLOSE from the app's transport id (castv2.md §2.2), and forgets those connections.
    mutating func closeVirtualConnections(to transportId: String) {
        for link in virtualConnections.removeAll(toLocal: transportId) {
            send(JSONPayload(["type": "CLOSE"]), from: transportId, to: link.peerId, on: link.connection,
                 namespace: CastNamespace.connection)
            raise(.senderDisconnected(link))
        }
    }

    /// A transport connection is gone, closed by the sender or by the device: its virtual
    /// connections go with it. Raises its events once; a connection the device already
    /// forgot (it closed it itself) is not forgotten twice.
    mutating func forget(_ connection: ConnectionID, reason: ConnectionCloseReason) {
        guard sockets.remove(connection) != nil else { return }
        tlsCertificates[connection] = nil
        for link in virtualConnections.removeAll(on: connection) { raise(.senderDisconnected(link)) }
        raise(.connectionClosed(connection, reason: reason))
    }
}
