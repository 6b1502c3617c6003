/// A virtual connection: a sender endpoint (`peerId`) talking to a device endpoint
/// (`localId`: `receiver-0` or an app's transport id) over one socket.
///
/// Keyed by all three, never by sender id alone: several sockets all use `sender-0` (§1.4).
public struct VirtualConnection: Sendable, Hashable, Comparable {
    public var connection: ConnectionID
    public var localId: String
    public var peerId: String

    public init(connection: ConnectionID, localId: String, peerId: String) {
        self.connection = connection
        self.localId = localId
        self.peerId = peerId
    }

    public static func < (lhs: VirtualConnection, rhs: VirtualConnection) -> Bool {
        (lhs.connection, lhs.localId, lhs.peerId) < (rhs.connection, rhs.localId, rhs.peerId)
    }
}

/// The connection type a sender asked for in CONNECT (`connType`).
public enum VirtualConnectionType: Int, Sendable, Equatable, Codable {
    case strong = 0, weak = 1, invisible = 2
}

/// The router's table of virtual connections. It alone decides who receives a broadcast.
struct VirtualConnectionTable: Sendable {
    struct Entry: Sendable, Equatable {
        var type: VirtualConnectionType
        /// `userAgent` of the CONNECT, when the sender gave one.
        var userAgent: String?
    }

    private(set) var entries: [VirtualConnection: Entry] = [:]

    /// Adds a virtual connection; false when it was already there (a repeated CONNECT).
    @discardableResult
    mutating func add(_ link: VirtualConnection, _ entry: Entry) -> Bool {
        entries.updateValue(entry, forKey: link) == nil
    }

    @discardableResult
    mutating func remove(_ link: VirtualConnection) -> Bool {
        entries.removeValue(forKey: link) != nil
    }

    func contains(_ link: VirtualConnection) -> Bool { entries[link] != nil }

    /// Removes and returns, sorted, every virtual connection of a socket that went away.
    mutating func removeAll(on connection: ConnectionID) -> [VirtualConnection] {
        let removed = entries.keys.filter { $0.connection == connection }
        for key in removed { entries.removeValue(forKey: key) }
        return removed.sorted()
    }

    /// Removes and returns, sorted, every virtual connection to a local endpoint (an app that stopped).
    mutating func removeAll(toLocal localId: String) -> [VirtualConnection] {
        let removed = entries.keys.filter { $0.localId == localId }
        for key in removed { entries.removeValue(forKey: key) }
        return removed.sorted()
    }

    /// Sockets that receive broadcasts from `localId`: each socket with at least one
    /// virtual connection to it, invisible ones included (§1.5). Sorted for determinism.
    func subscribers(of localId: String) -> [ConnectionID] {
        Array(Set(entries.keys.lazy.filter { $0.localId == localId }.map(\.connection))).sorted()
    }

    /// Whether any visible (non-invisible) sender is connected to `localId`.
    func hasVisibleSender(on localId: String) -> Bool {
        entries.contains { $0.key.localId == localId && $0.value.type != .invisible }
    }
}
