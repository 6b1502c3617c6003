import CastDevice
import CastWire

/// A message a sender sent, as the scenario saw it.
public struct ReceivedMessage: Sendable, Equatable {
    public var time: SimTime
    public var connection: ConnectionID
    public var envelope: CastEnvelope

    /// The JSON payload, when it is JSON. Parsed when asked: a journal of thousands of
    /// messages keeps their text (a few dozen bytes each), not their parsed trees.
    public var payload: JSONValue? { envelope.utf8.flatMap { try? JSONValue.parse($0) } }
}

/// The messages senders sent, newest last, bounded: past `limit` the oldest go. A device
/// that runs for hours under a chatty sender holds a fixed amount, not every PING it ever
/// got. Expectations keep their own evidence, so nothing they report depends on what is
/// still here.
package struct MessageJournal: Sendable {
    /// How many messages a journal keeps unless told otherwise.
    package static let defaultLimit = 10_000

    package let limit: Int
    /// Every message ever appended, kept or not.
    package private(set) var totalCount = 0
    private var ring: [ReceivedMessage] = []
    /// Where the oldest message is in `ring` once it is full.
    private var start = 0

    package init(limit: Int = MessageJournal.defaultLimit) { self.limit = max(0, limit) }

    package mutating func append(_ message: ReceivedMessage) {
        totalCount += 1
        guard limit > 0 else { return }
        if ring.count < limit {
            ring.append(message)
        } else {
            ring[start] = message
            start = (start + 1) % limit
        }
    }

    /// The messages kept, oldest first.
    package var messages: [ReceivedMessage] { Array(ring[start...] + ring[..<start]) }

    package var count: Int { ring.count }
}
