import CastDevice
import CastSimulator
import CastWire

/// `GET /api/v1/devices`: every device this castsim runs, with where senders find it.
/// The other endpoints take `?device=NAME` (a name or UUID from here) to act on one.
enum DevicesView {
    static func json(_ simulator: CastSimulator) async throws -> JSONValue {
        let snapshot = try await simulator.snapshot()
        let discovery = try await simulator.discovery()
        let identity = snapshot.identity
        return [
            "name": .string(identity.friendlyName), "model": .string(identity.modelName), "uuid": .string(identity.uuid),
            "udn": .string(identity.dashedUUID),
            "cast": .string(simulator.castAddress.hostAndPort),
            "http": simulator.httpAddress.map { .string($0.hostAndPort) } ?? nil,
            "https": simulator.httpsAddress.map { .string($0.hostAndPort) } ?? nil,
            // A household's device that went offline refuses connections: senders cannot
            // reach it, whatever else this says of it.
            "online": .bool(simulator.isListening),
            "advertised": .bool(discovery.advertised),
            "app": snapshot.runningApp.map(StateView.app) ?? nil,
            "connections": .number(Double(snapshot.connections.count)),
        ]
    }
}

extension Array where Element: Sendable {
    /// `transform` on each element in order, awaiting each.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        results.reserveCapacity(count)
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
