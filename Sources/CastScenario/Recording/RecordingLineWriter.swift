import CastDevice
import CastWire

/// Writes a recording's message lines straight into bytes, its members in
/// ``RecordedEvent/json(redacting:)``'s sorted order, without building the event as a value.
///
/// A recorder's writer keeps one for the whole recording (``init()``): it keeps, as bytes,
/// the parts of a line that repeat from message to message — what comes before the payload
/// (connections, destination, direction, namespace), the source, and the wall clock's text
/// for the last millisecond, the time's for the last time — so a busy device's line is
/// mostly its payload copied. Writing those parts anew, each string scanned for what it must
/// escape and the date worked out from the milliseconds, was over half of the writer's work
/// for a GET_STATUS round. ``uncached`` writes every part anew, for a line now and then.
package struct RecordingLineWriter: ~Copyable {
    /// What a line says before and after its payload, for one sender (or set of senders)
    /// and direction; the strings are compared before the bytes are used. The direction is
    /// the slot's own (its index's lowest bit); no bytes is a slot never filled. The bytes
    /// are in storage of the writer's own, not arrays: appending an array's bytes took and
    /// gave back a reference to it, a tenth of the writer's work in perf.
    private struct Parts {
        var connections: ConnectionList = []
        var destination = ""
        var namespace = ""
        var source = ""
        /// The head, then the source and time.
        var bytes: UnsafeMutableBufferPointer<UInt8>?
        /// `{"connections":[1],"destination":…,"direction":…,"event":"message","namespace":…,"payload":`
        var headCount = 0

        var head: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: bytes![..<headCount]) }
        /// `,"source":…,"t":`
        var sourceAndTime: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: bytes![headCount...]) }
    }

    /// Slots by the first connection and the direction: 16 senders with consecutive
    /// connection numbers find each one's parts in its own slot.
    private static let slotCount = 32
    /// Read in place: a copy of a slot, or of an array holding them, took and gave back a
    /// reference to each of its strings and arrays, a third of the writer's work in perf.
    /// Empty (none allocated) for ``uncached``.
    private let slots: UnsafeMutableBufferPointer<Parts>
    /// The time's text for the last `t` (a message and the reply it caused share one), and
    /// `,"wall":"…"}` and the newline for the last millisecond (a busy device writes dozens
    /// of lines in one).
    private var time: KeptText
    private var wall: KeptText

    /// A writer that keeps the parts that repeat: for a recorder's writer.
    package init() {
        slots = .allocate(capacity: Self.slotCount)
        slots.initialize(repeating: Parts())
        time = KeptText(capacity: KeptText.capacity)
        wall = KeptText(capacity: KeptText.capacity)
    }

    private init(keepingNothing: Void) {
        slots = UnsafeMutableBufferPointer(start: nil, count: 0)
        time = KeptText(capacity: 0)
        wall = KeptText(capacity: 0)
    }

    deinit {
        guard let base = slots.baseAddress else { return }
        for parts in slots { parts.bytes?.deallocate() }
        base.deinitialize(count: slots.count)
        slots.deallocate()
        time.bytes.deallocate()
        wall.bytes.deallocate()
    }

    private var keeps: Bool { slots.baseAddress != nil }

    /// A writer that writes every part anew (and allocates nothing for a cache).
    package static var uncached: RecordingLineWriter { RecordingLineWriter(keepingNothing: ()) }

    /// Appends a journal entry's line, written at `wall` (milliseconds since 1970): the line
    /// of its ``RecordedEvent``, without making one on the way.
    package mutating func append(_ entry: JournalEntry, wall: Int64, to output: inout [UInt8], redacting redaction: PayloadRedaction = .none) {
        guard redaction.isEmpty,
              appendMessageLine(entry.direction, entry.connections, entry.envelope, unhandled: entry.unhandled,
                                ownJSON: entry.payloadIsOwnJSON, json: entry.payloadIsJSON, time: entry.time, wall: wall, to: &output)
        else {
            return RecordedEvent(time: entry.time, wall: wall, kind: .message(RecordedMessage(entry))).appendLine(to: &output, redacting: redaction)
        }
    }

    /// Appends a message's line; the line reads back as its ``RecordedEvent``. The payload's
    /// text is copied as it is when it is JSON on one line: the device's own (`ownJSON`),
    /// and a sender's that the session parsed (`json`), which keeps its members in the
    /// sender's order. Any other is parsed and written again, sorted and compact. False,
    /// with nothing written, for a payload that is no JSON (a line with `text` or `binary`:
    /// the general path's).
    package mutating func appendMessageLine(_ direction: JournalEntry.Direction, _ connections: ConnectionList, _ envelope: CastEnvelope,
                                            unhandled: String?, ownJSON: Bool, json: Bool, time: SimTime, wall: Int64,
                                            to output: inout [UInt8]) -> Bool {
        guard case .string(let text) = envelope.payload else { return false }
        let payload: JSONValue?
        if ownJSON || json && RecordedEvent.isOneLine(text) {
            payload = nil
        } else {
            guard let parsed = try? JSONValue.parse(text) else { return false }
            payload = parsed
        }
        if keeps {
            let parts = slot(direction, connections, envelope)
            output.append(contentsOf: parts.pointee.head)
            if let payload { payload.write(to: &output) } else { output.append(utf8Of: text) }
            output.append(contentsOf: parts.pointee.sourceAndTime)
        } else {
            Self.appendHead(direction, connections, envelope, to: &output)
            if let payload { payload.write(to: &output) } else { output.append(utf8Of: text) }
            Self.appendSourceAndTime(envelope.sourceId, to: &output)
        }
        self.time.append(for: time.seconds.bitPattern, to: &output) { JSONValue.writeNumber(time.seconds, to: &$0) }
        if let unhandled {
            output.append(literal: #","unhandled":"#)
            JSONValue.writeString(unhandled, to: &output)
        }
        self.wall.append(for: UInt64(bitPattern: wall), to: &output) { Self.appendWall(wall, to: &$0) }
        return true
    }

    /// The slot holding this message's parts, filled now if it held another's.
    private mutating func slot(_ direction: JournalEntry.Direction, _ connections: ConnectionList, _ envelope: CastEnvelope)
        -> UnsafeMutablePointer<Parts>
    {
        let first = Int(truncatingIfNeeded: connections.first?.rawValue ?? 0)
        // Even for outbound, odd for inbound: the slot decides the direction its head says.
        let kept = slots.baseAddress! + ((first &* 2 &+ (direction == .inbound ? 1 : 0)) & (Self.slotCount - 1))
        if kept.pointee.bytes != nil, kept.pointee.connections == connections,
           kept.pointee.destination == envelope.destinationId, kept.pointee.namespace == envelope.namespace,
           kept.pointee.source == envelope.sourceId {
            return kept
        }
        var bytes: [UInt8] = []
        Self.appendHead(direction, connections, envelope, to: &bytes)
        let headCount = bytes.count
        Self.appendSourceAndTime(envelope.sourceId, to: &bytes)
        kept.pointee.bytes?.deallocate()
        let storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
        _ = storage.initialize(fromContentsOf: bytes)
        kept.pointee = Parts(connections: connections, destination: envelope.destinationId, namespace: envelope.namespace,
                             source: envelope.sourceId, bytes: storage, headCount: headCount)
        return kept
    }

    private static func appendHead(_ direction: JournalEntry.Direction, _ connections: ConnectionList, _ envelope: CastEnvelope,
                                   to output: inout [UInt8]) {
        output.append(literal: #"{"connections":"#)
        connections.writeJSON(to: &output)
        output.append(literal: #","destination":"#)
        JSONValue.writeString(envelope.destinationId, to: &output)
        output.append(literal: direction == .inbound ? #","direction":"in","event":"message","namespace":"#
                                                     : #","direction":"out","event":"message","namespace":"#)
        JSONValue.writeString(envelope.namespace, to: &output)
        output.append(literal: #","payload":"#)
    }

    private static func appendSourceAndTime(_ source: String, to output: inout [UInt8]) {
        output.append(literal: #","source":"#)
        JSONValue.writeString(source, to: &output)
        output.append(literal: #","t":"#)
    }

    private static func appendWall(_ milliseconds: Int64, to output: inout [UInt8]) {
        output.append(literal: #","wall":"#)
        ISOTime.appendJSON(milliseconds: milliseconds, to: &output)
        output.append(literal: "}\n")
    }
}

/// The text written for the last of a value that repeats from line to line, kept to be
/// copied while the value stays; an empty one (no capacity) writes every time.
private struct KeptText {
    /// Room for any time or wall clock's text (a year beyond 9999 takes a sign and six digits).
    static let capacity = 64
    /// Owned by the ``RecordingLineWriter``, which frees it.
    let bytes: UnsafeMutableBufferPointer<UInt8>
    var key: UInt64?
    var count = 0

    init(capacity: Int) {
        bytes = capacity > 0 ? .allocate(capacity: capacity) : UnsafeMutableBufferPointer(start: nil, count: 0)
    }

    /// Appends the text for `key`: the kept one if `key` is the last one's, else what
    /// `write` appends, kept for the next.
    mutating func append(for key: UInt64, to output: inout [UInt8], write: (inout [UInt8]) -> Void) {
        if key == self.key { return output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[..<count])) }
        let start = output.count
        write(&output)
        let written = output.count - start
        guard written <= bytes.count else {
            self.key = nil
            return
        }
        output.withUnsafeBufferPointer { output in
            _ = UnsafeMutableBufferPointer(rebasing: bytes[..<written]).initialize(fromContentsOf: UnsafeBufferPointer(rebasing: output[start...]))
        }
        self.key = key
        count = written
    }
}
