/// A virtual connection: a sender endpoint (`peerId`) talking to a device endpoint
/// (`localId`: `receiver-0` or an app's transport id) over one socket.
///
/// Keyed by all three, never by sender id alone: several sockets all use `sender-0`
/// (docs/protocol/castv2.md §1.4).
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
///
/// Indexed by socket and by local endpoint, so that a close, an app stopping and a
/// broadcast look only at the virtual connections concerned, never at every sender's.
struct VirtualConnectionTable: Sendable {
    struct Entry: Sendable, Equatable {
        var type: VirtualConnectionType
        /// `userAgent` of the CONNECT, when the sender gave one.
        var userAgent: String?
    }

    /// The virtual connections to one local endpoint.
    fileprivate struct Endpoint: Sendable {
        /// For each socket, how many of its sender endpoints are connected here.
        var sockets: [ConnectionID: Int] = [:]
        var links: Set<VirtualConnection> = []
        var visibleCount = 0
    }

    private(set) var entries: [VirtualConnection: Entry] = [:]
    private var bySocket: [ConnectionID: Set<VirtualConnection>] = [:]
    private var byEndpoint: [String: Endpoint] = [:]

    /// Adds a virtual connection; false when it was already there (a repeated CONNECT,
    /// which updates its type and user agent).
    @discardableResult
    mutating func add(_ link: VirtualConnection, _ entry: Entry) -> Bool {
        if let old = entries.updateValue(entry, forKey: link) {
            // A repeated CONNECT may change the type: keep the visible count right.
            if old.type != entry.type {
                byEndpoint[link.localId]!.visibleCount += (entry.type != .invisible ? 1 : 0) - (old.type != .invisible ? 1 : 0)
            }
            return false
        }
        bySocket[link.connection, default: []].insert(link)
        byEndpoint[link.localId, default: Endpoint()].add(link, visible: entry.type != .invisible)
        return true
    }

    @discardableResult
    mutating func remove(_ link: VirtualConnection) -> Bool {
        guard let entry = entries.removeValue(forKey: link) else { return false }
        if bySocket[link.connection]?.remove(link) != nil, bySocket[link.connection]?.isEmpty == true {
            bySocket.removeValue(forKey: link.connection)
        }
        if byEndpoint[link.localId]?.remove(link, visible: entry.type != .invisible) == true {
            byEndpoint.removeValue(forKey: link.localId)
        }
        return true
    }

    func contains(_ link: VirtualConnection) -> Bool { entries[link] != nil }

    /// Removes and returns, sorted, every virtual connection of a socket that went away.
    mutating func removeAll(on connection: ConnectionID) -> [VirtualConnection] {
        let removed = (bySocket[connection] ?? []).sorted()
        SimulatedDevice.countVisits(removed.count)
        for link in removed { remove(link) }
        return removed
    }

    /// Removes and returns, sorted, every virtual connection to a local endpoint (an app that stopped).
    mutating func removeAll(toLocal localId: String) -> [VirtualConnection] {
        let removed = (byEndpoint[localId]?.links ?? []).sorted()
        SimulatedDevice.countVisits(removed.count)
        for link in removed { remove(link) }
        return removed
    }

    /// Sockets that receive broadcasts from `localId`: each socket with at least one
    /// virtual connection to it, invisible ones included (castv2.md §1.5). Sorted for determinism.
    func subscribers(of localId: String) -> [ConnectionID] {
        let sockets = byEndpoint[localId]?.sockets.keys.sorted() ?? []
        SimulatedDevice.countVisits(sockets.count)
        return sockets
    }

    /// The sockets on which the sender endpoint `peerId` has a virtual connection, sorted.
    func sockets(ofPeer peerId: String) -> [ConnectionID] {
        Set(entries.keys.lazy.filter { $0.peerId == peerId }.map(\.connection)).sorted()
    }

    /// The sender endpoints of one socket connected to `localId`, sorted.
    func peers(on connection: ConnectionID, to localId: String) -> [String] {
        let links = bySocket[connection] ?? []
        SimulatedDevice.countVisits(links.count)
        return links.filter { $0.localId == localId }.map(\.peerId).sorted()
    }

    /// Whether any visible (non-invisible) sender is connected to `localId`.
    func hasVisibleSender(on localId: String) -> Bool {
        (byEndpoint[localId]?.visibleCount ?? 0) > 0
    }
}

extension VirtualConnectionTable.Endpoint {
    mutating func add(_ link: VirtualConnection, visible: Bool) {
        links.insert(link)
        sockets[link.connection, default: 0] += 1
        if visible { visibleCount += 1 }
    }

    /// Removes a link; true when the endpoint has none left.
    mutating func remove(_ link: VirtualConnection, visible: Bool) -> Bool {
        guard links.remove(link) != nil else { return links.isEmpty }
        if let count = sockets[link.connection] {
            sockets[link.connection] = count > 1 ? count - 1 : nil
        }
        if visible { visibleCount -= 1 }
        return links.isEmpty
    }
}
