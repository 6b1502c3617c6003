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

/// One message in the journal, in either direction.
public struct JournalEntry: Sendable, Equatable {
    public enum Direction: String, Sendable, Equatable, CaseIterable {
        /// Sent by a sender to the device.
        case inbound = "in"
        /// Sent by the device to one or more senders.
        case outbound = "out"
    }

    /// Numbers every message the journal was given, from 1, never reused (not after
    /// ``MessageJournal/clear()``, nor after a reset, whose new journal numbers on), so a
    /// reader can ask for what came after the last it saw.
    public var sequence: Int
    public var time: SimTime
    public var direction: Direction
    /// The sender's connection (inbound), or every connection it was written to (outbound).
    public var connections: [ConnectionID]
    public var envelope: CastEnvelope
    /// Why no handler took an inbound message; nil when one did.
    public var unhandled: String?
    /// The payload is text castsim encoded itself (the device's own messages): one line of
    /// valid JSON, exactly as `JSONValue.jsonText()` writes it, so a recording can copy it
    /// instead of parsing and encoding it again. False for what senders and a relay's
    /// upstream send, which may be anything.
    package var payloadIsOwnJSON: Bool

    package init(sequence: Int, time: SimTime, direction: Direction, connections: [ConnectionID], envelope: CastEnvelope,
                 unhandled: String? = nil, payloadIsOwnJSON: Bool = false) {
        self.sequence = sequence
        self.time = time
        self.direction = direction
        self.connections = connections
        self.envelope = envelope
        self.unhandled = unhandled
        self.payloadIsOwnJSON = payloadIsOwnJSON
    }

    /// Equal as messages: how the payload's text came about is not part of it.
    public static func == (lhs: JournalEntry, rhs: JournalEntry) -> Bool {
        lhs.sequence == rhs.sequence && lhs.time == rhs.time && lhs.direction == rhs.direction && lhs.connections == rhs.connections
            && lhs.envelope == rhs.envelope && lhs.unhandled == rhs.unhandled
    }

    public var payload: JSONValue? { envelope.utf8.flatMap { try? JSONValue.parse($0) } }

    /// The inbound message as expectations see it.
    public var received: ReceivedMessage? {
        guard direction == .inbound, let connection = connections.first else { return nil }
        return ReceivedMessage(time: time, connection: connection, envelope: envelope)
    }
}

/// The messages of both directions, newest last, bounded: past `limit` the oldest go. A
/// device that runs for hours under a chatty sender holds a fixed amount, not every PING it
/// ever got. It keeps what it is told (``ScenarioOutput/message(_:)``), numbered by the
/// session that told it. Expectations keep their own evidence, so nothing they report
/// depends on what is still here.
package struct MessageJournal: Sendable {
    /// How many messages a journal keeps unless told otherwise.
    package static let defaultLimit = 10_000

    package let limit: Int
    /// Messages of both directions since the journal was last cleared, kept or not.
    package private(set) var seenSinceClear = 0
    /// The sequence number of the newest entry.
    package private(set) var lastSequence = 0
    private var ring: [JournalEntry] = []
    /// Where the oldest entry is in `ring` once it is full.
    private var start = 0

    package init(limit: Int = MessageJournal.defaultLimit) {
        self.limit = max(0, limit)
    }

    /// Keeps a message; entries come in the order of their numbers, one after another.
    package mutating func record(_ entry: JournalEntry) {
        lastSequence = entry.sequence
        seenSinceClear += 1
        guard limit > 0 else { return }
        if ring.count < limit {
            ring.append(entry)
        } else {
            ring[start] = entry
            start = (start + 1) % limit
        }
    }

    /// Hears what the device says: its messages, and the news that one was unhandled.
    package mutating func hear(_ output: ScenarioOutput) {
        switch output {
        case .message(let entry): record(entry)
        case .unhandled(let sequence, let reason): markUnhandled(sequence, reason)
        default: break
        }
    }

    /// Notes why no handler took the inbound message numbered `sequence`, if it is still kept.
    package mutating func markUnhandled(_ sequence: Int, _ reason: String) {
        let back = lastSequence - sequence
        guard back >= 0, back < ring.count else { return }
        // Entries are contiguous by sequence: the newest is at start + count - 1.
        let index = (start + ring.count - 1 - back) % ring.count
        ring[index].unhandled = reason
    }

    /// Forgets every entry; sequence numbers go on from where they were.
    package mutating func clear() {
        ring.removeAll(keepingCapacity: true)
        start = 0
        seenSinceClear = 0
    }

    /// Every entry kept, oldest first.
    package var entries: [JournalEntry] { Array(ring[start...] + ring[..<start]) }

    /// The entries newer than `sequence`, oldest first, without copying the older ones.
    package func entries(after sequence: Int) -> [JournalEntry] {
        guard !ring.isEmpty, lastSequence > sequence else { return [] }
        let wanted = min(ring.count, lastSequence - sequence)
        return (ring.count - wanted..<ring.count).map { ring[(start + $0) % ring.count] }
    }

    /// The newest `count` entries that `matches` admits, oldest first, walking back from
    /// the newest without copying the rest.
    package func newest(_ count: Int, where matches: (JournalEntry) -> Bool) -> [JournalEntry] {
        var found: [JournalEntry] = []
        var back = 0
        while back < ring.count, found.count < count {
            let entry = ring[(start + ring.count - 1 - back) % ring.count]
            if matches(entry) { found.append(entry) }
            back += 1
        }
        return found.reversed()
    }

    /// The inbound messages kept, oldest first.
    package var messages: [ReceivedMessage] { entries.compactMap(\.received) }

    /// How many entries are kept.
    package var count: Int { ring.count }
}
