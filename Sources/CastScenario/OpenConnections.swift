import CastDevice

/// The scenario's open connections in the order they opened, for the `first`, `last` and
/// `all` selectors. A close costs O(1) amortized whatever the number of senders: a closed
/// connection is only marked, and the order is compacted once closed ones outnumber the
/// open ones.
struct OpenConnections: Sendable {
    private var order: [ConnectionID] = []
    private var open: Set<ConnectionID> = []

    func contains(_ connection: ConnectionID) -> Bool { open.contains(connection) }

    mutating func opened(_ connection: ConnectionID) {
        guard open.insert(connection).inserted else { return }
        order.append(connection)
    }

    mutating func closed(_ connection: ConnectionID) {
        guard open.remove(connection) != nil else { return }
        while let last = order.last, !open.contains(last) {
            order.removeLast()
            SimulatedDevice.countVisits()
        }
        if order.count > 2 * open.count + 64 {
            SimulatedDevice.countVisits(order.count)
            order.removeAll { !open.contains($0) }
        }
    }

    var all: [ConnectionID] { order.filter(open.contains) }
    var first: ConnectionID? { order.first(where: open.contains) }
    var last: ConnectionID? { order.last }
}
