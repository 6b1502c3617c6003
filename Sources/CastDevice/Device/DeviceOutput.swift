import CastWire

/// What the device core asks the runtime to do, and what it tells the world. Handlers never
/// touch sockets: they return these, and the runtime writes, closes, logs and publishes.
package enum DeviceOutput: Sendable, Equatable {
    /// Write this message to each of these connections. A broadcast is one envelope
    /// (destination `*`) sent to many connections, so its payload is encoded once.
    case send(CastEnvelope, to: [ConnectionID])
    /// Close this transport connection.
    case close(ConnectionID, reason: String)
    /// Something worth a log line (dropped messages, rejected requests).
    case log(DeviceLogEvent)
    /// Something happened, at its own simulated time.
    case event(DeviceEvent)
}

/// A log line of the core. Its text is safe to print: everything a sender supplied in it
/// is escaped (see ``LogMessage``).
package struct DeviceLogEvent: Sendable, Equatable, CustomStringConvertible {
    package enum Level: String, Sendable, Equatable { case debug, info, warning }
    package var level: Level
    package var connection: ConnectionID?
    package var message: String

    package init(_ level: Level, _ connection: ConnectionID?, _ message: LogMessage) {
        self.level = level
        self.connection = connection
        self.message = message.description
    }

    package var description: String {
        if let connection { return "\(connection): \(message)" }
        return message
    }
}

extension DeviceOutput {
    /// The envelope of a `.send`, for tests and inspection.
    package var envelope: CastEnvelope? {
        if case .send(let envelope, _) = self { return envelope }
        return nil
    }

    package var recipients: [ConnectionID] {
        if case .send(_, let to) = self { return to }
        return []
    }

    /// The event of an `.event`.
    package var event: DeviceEvent? {
        if case .event(let event) = self { return event }
        return nil
    }
}
