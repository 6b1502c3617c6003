import CastDevice
import CastScenario
import CastWire
import Foundation
import Testing

/// The scenario session keeps its own list of connections (for `first`, `last`, `all`
/// and held messages): a message, an open or a close must not walk it either.
@Suite("Scenario session work per sender does not grow with the number of senders")
struct ScenarioScalingTests {
    @Test("A request, an open and a close through a scenario session: same work for 100 and 10,000 senders")
    func perSenderWorkIsFlat() throws {
        let small = try Self.measure(senders: 100)
        let large = try Self.measure(senders: 10_000)
        for (operation, smallCount) in small.sorted(by: { $0.key < $1.key }) {
            let largeCount = large[operation] ?? 0
            #expect(largeCount <= 3 * max(smallCount, 4), "\(operation): \(smallCount) visits with 100 senders, \(largeCount) with 10,000")
        }
    }

    /// The visits of each measured input with `senders` senders on `receiver-0`.
    static func measure(senders: Int) throws -> [String: Int] {
        var session = ScenarioSession(scenario: try Scenario.parse(Data(#"{"name": "scale"}"#.utf8)))
        var now = SimTime.zero
        _ = session.advance(to: now)
        func connect(_ connection: ConnectionID, at now: SimTime) -> [ScenarioOutput] {
            session.receive(envelope(to: CastEndpoint.platformReceiver, CastNamespace.connection, ["type": "CONNECT"]),
                            on: connection, now: now)
        }
        for id in 1...UInt64(senders) {
            _ = session.connectionOpened(ConnectionID(id), now: now)
            _ = connect(ConnectionID(id), at: now)
        }
        now = SimTime(seconds: 1)

        var counts: [String: Int] = [:]
        func visits(_ body: () -> [ScenarioOutput]) -> Int {
            let counter = VisitCounter()
            SimulatedDevice.$visitCounter.withValue(counter) {
                _ = body()
                _ = session.nextDeadline
            }
            return counter.total
        }
        counts["GET_STATUS to receiver-0"] = visits {
            session.receive(envelope(to: CastEndpoint.platformReceiver, CastNamespace.receiver, ["type": "GET_STATUS", "requestId": 1]),
                            on: ConnectionID(2), now: now)
        }
        counts["open and CONNECT"] = visits {
            session.connectionOpened(ConnectionID(1_000_000), now: now) + connect(ConnectionID(1_000_000), at: now)
        }
        counts["close"] = visits { session.connectionClosed(ConnectionID(UInt64(senders / 2)), now: now) }
        return counts
    }

    static func envelope(to destination: String, _ namespace: String, _ payload: JSONValue) -> CastEnvelope {
        CastEnvelope(sourceId: CastEndpoint.platformSender, destinationId: destination, namespace: namespace,
                     payload: .string(payload.jsonText()))
    }
}
