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
    // The one-byte fields follow the connections' tag byte: in this order an entry takes
    // 120 bytes, not 136 (ten thousand of them are kept).
    /// The sender's connection (inbound), or every connection it was written to (outbound).
    public var connections: ConnectionList
    public var direction: Direction
    /// The payload is text castsim encoded itself (the device's own messages): one line of
    /// valid JSON, exactly as `JSONValue.jsonText()` writes it, so a recording can copy it
    /// instead of parsing and encoding it again. False for what senders and a relay's
    /// upstream send, which may be anything.
    package var payloadIsOwnJSON: Bool
    /// The payload's text parsed as JSON when the device took it in (the session parses
    /// every sender's payload once, and the device's own is JSON): a recording can copy a
    /// sender's as it came rather than parse it a second time. False when nobody parsed it
    /// (a relay passes messages on unread) or it is no JSON.
    package var payloadIsJSON: Bool
    public var envelope: CastEnvelope
    /// Why no handler took an inbound message; nil when one did.
    public var unhandled: String?

    package init(sequence: Int, time: SimTime, direction: Direction, connections: ConnectionList, envelope: CastEnvelope,
                 unhandled: String? = nil, payloadIsOwnJSON: Bool = false, payloadIsJSON: Bool = false) {
        self.sequence = sequence
        self.time = time
        self.direction = direction
        self.connections = connections
        self.envelope = envelope
        self.unhandled = unhandled
        self.payloadIsOwnJSON = payloadIsOwnJSON
        self.payloadIsJSON = payloadIsJSON || payloadIsOwnJSON
    }

    /// Equal as messages: how the payload's text came about is not part of it.
    public static func == (lhs: JournalEntry, rhs: JournalEntry) -> Bool {
        lhs.sequence == rhs.sequence && lhs.time == rhs.time && lhs.direction == rhs.direction && lhs.connections == rhs.connections
            && lhs.envelope == rhs.envelope && lhs.unhandled == rhs.unhandled
    }

    public var payload: JSONValue? { envelope.utf8.flatMap { try? JSONValue.parse($0) } }

    /// What keeping the entry costs, roughly: its own size, the text of its ids, namespace
    /// and payload, and the list of a message to many connections (a broadcast to a thousand
    /// senders names 8 KB of them, ten times its status); why it was unhandled is not counted.
    package var footprint: Int {
        MemoryLayout<JournalEntry>.stride + envelope.sourceId.utf8.count + envelope.destinationId.utf8.count
            + envelope.namespace.utf8.count + envelope.payloadByteCount + connections.heapBytes
    }

    /// What a slot holds once its entry is dropped: nothing on the heap.
    static let vacant = JournalEntry(sequence: 0, time: .zero, direction: .inbound, connections: ConnectionList(ConnectionID(0)),
                                     envelope: CastEnvelope(sourceId: "", destinationId: "", namespace: "", payload: .string("")))

    /// The inbound message as expectations see it.
    public var received: ReceivedMessage? {
        guard direction == .inbound, let connection = connections.first else { return nil }
        return ReceivedMessage(time: time, connection: connection, envelope: envelope)
    }
}

/// The messages of both directions, newest last, bounded twice: past `limit` entries, or
/// past `byteLimit` bytes of them, the oldest go. A device that runs for hours under a
/// chatty sender holds a fixed amount, not every PING it ever got, and a sender sending
/// 64 KiB payloads cannot make ten thousand of them cost 640 MiB. It keeps what it is told
/// (``ScenarioOutput/message(_:)``), numbered by the session that told it. Expectations
/// keep their own evidence, so nothing they report depends on what is still here.
package struct MessageJournal: Sendable {
    /// How many messages a journal keeps unless told otherwise.
    package static let defaultLimit = 10_000
    /// How many bytes of messages (``JournalEntry/footprint``) a journal keeps unless told
    /// otherwise: about twice what ten thousand of a media session's messages take.
    package static let defaultByteLimit = 8 << 20

    package let limit: Int
    package let byteLimit: Int
    /// Messages of both directions since the journal was last cleared, kept or not.
    package private(set) var seenSinceClear = 0
    /// The sequence number of the newest entry.
    package private(set) var lastSequence = 0
    /// The footprints of the entries kept.
    package private(set) var bytes = 0
    /// How many entries are kept.
    package private(set) var count = 0
    /// Slots for the entries: `count` of them from `start` on, wrapping; the others hold
    /// ``JournalEntry/vacant``. Grown to at most `limit`, never by more (an array left to
    /// double would reserve 16,384 slots for 10,000).
    private var ring: [JournalEntry] = []
    /// Where the oldest entry is in `ring`.
    private var start = 0

    package init(limit: Int = MessageJournal.defaultLimit, byteLimit: Int = MessageJournal.defaultByteLimit) {
        self.limit = max(0, limit)
        self.byteLimit = max(0, byteLimit)
    }

    /// Keeps a message; entries come in the order of their numbers, one after another. The
    /// newest is kept even when it alone is over `byteLimit`.
    package mutating func record(_ entry: JournalEntry) {
        lastSequence = entry.sequence
        seenSinceClear += 1
        guard limit > 0 else { return }
        let footprint = entry.footprint
        if count == limit, count == ring.count, bytes - ring[start].footprint + footprint <= byteLimit {
            // Full, and the oldest going makes room: the newest takes its slot at once,
            // without a vacant entry written in between (the steady state of a busy device).
            bytes += footprint - ring[start].footprint
            ring[start] = entry
            start = (start + 1) % ring.count
            return
        }
        while count > 0, count == limit || bytes + footprint > byteLimit {
            dropOldest()
        }
        if count < ring.count {
            ring[slot(count)] = entry
        } else {
            if start != 0 {
                ring = entries
                start = 0
            }
            if ring.count == ring.capacity { ring.reserveCapacity(min(limit, max(64, ring.count * 2))) }
            ring.append(entry)
        }
        count += 1
        bytes += footprint
    }

    private mutating func dropOldest() {
        bytes -= ring[start].footprint
        ring[start] = .vacant
        start = (start + 1) % ring.count
        count -= 1
    }

    /// Where the entry `index` places after the oldest is.
    private func slot(_ index: Int) -> Int { (start + index) % ring.count }

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
        guard back >= 0, back < count else { return }
        // Entries are contiguous by sequence: the newest is `count - 1` places after the oldest.
        ring[slot(count - 1 - back)].unhandled = reason
    }

    /// Forgets every entry; sequence numbers go on from where they were.
    package mutating func clear() {
        ring.removeAll(keepingCapacity: true)
        start = 0
        count = 0
        bytes = 0
        seenSinceClear = 0
    }

    /// Every entry kept, oldest first.
    package var entries: [JournalEntry] { (0..<count).map { ring[slot($0)] } }

    /// The sequence number of the oldest entry kept, if any: entries are contiguous by
    /// sequence, the newest `count - 1` after it.
    package var oldestSequence: Int? { count > 0 ? lastSequence - count + 1 : nil }

    /// The entries newer than `sequence`, oldest first, without copying the older ones.
    package func entries(after sequence: Int) -> [JournalEntry] {
        guard count > 0, lastSequence > sequence else { return [] }
        let wanted = min(count, lastSequence - sequence)
        return (count - wanted..<count).map { ring[slot($0)] }
    }

    /// The newest `count` entries that `matches` admits, oldest first, walking back from
    /// the newest without copying the rest.
    package func newest(_ wanted: Int, where matches: (JournalEntry) -> Bool) -> [JournalEntry] {
        var found: [JournalEntry] = []
        var back = 0
        while back < count, found.count < wanted {
            let entry = ring[slot(count - 1 - back)]
            if matches(entry) { found.append(entry) }
            back += 1
        }
        return found.reversed()
    }

    /// The inbound messages kept, oldest first.
    package var messages: [ReceivedMessage] { entries.compactMap(\.received) }
}
