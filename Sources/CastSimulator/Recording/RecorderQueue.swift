import CastDevice
import CastScenario

/// What the device's loop hands a ``Recorder``'s writer: the messages as the journal has
/// them (their text shared, not copied), and the rare other events with the place they
/// came among the messages. Two arrays rather than one of either: the writer reads each
/// message where it lies, and a copy of one took and gave back a reference to each of its
/// strings, whose counts live on the device's core.
struct RecorderQueue {
    struct Message {
        var entry: JournalEntry
        /// The wall clock when it was queued, milliseconds since 1970.
        var wall: Int64
    }

    private(set) var messages: [Message] = []
    /// Each with the number of messages queued before it.
    private(set) var others: [(after: Int, event: RecordedEvent)] = []

    init() {}

    /// A queue with room for `capacity` messages.
    init(capacity: Int) { messages.reserveCapacity(capacity) }

    var count: Int { messages.count + others.count }
    var isEmpty: Bool { messages.isEmpty && others.isEmpty }

    mutating func append(_ entry: consuming JournalEntry, wall: Int64) { messages.append(Message(entry: entry, wall: wall)) }

    mutating func append(_ event: RecordedEvent) { others.append((messages.count, event)) }

    /// Empties the queue; keeps its storage unless it grew past `keptCapacity` events.
    mutating func removeAll(keptCapacity: Int) {
        messages.removeAll(keepingCapacity: messages.capacity <= keptCapacity)
        others.removeAll(keepingCapacity: others.capacity <= keptCapacity)
    }

    /// Hands each event's line to `write`, in the order they came, through `bytes` (which
    /// `write` empties), messages' lines written by `lines`, kept for the recording; stops at the first problem `write` returns. Also returns when the
    /// last event happened, for a `dropped` line.
    func writeLines(through bytes: inout [UInt8], with lines: inout RecordingLineWriter, redacting redaction: PayloadRedaction,
                    write: (inout [UInt8]) -> String?)
        -> (problem: String?, last: (time: SimTime, wall: Int64))
    {
        var last = (time: SimTime.zero, wall: Int64(0))
        var other = others.startIndex
        func writeOthers(upTo position: Int) {
            while other < others.endIndex, others[other].after <= position {
                others[other].event.appendLine(to: &bytes, redacting: redaction)
                last = (others[other].event.time, others[other].event.wall)
                other += 1
            }
        }
        let problem = messages.withUnsafeBufferPointer { messages -> String? in
            for index in messages.indices {
                writeOthers(upTo: index)
                // Through the pointer the entry is read where it lies; the buffer's subscript
                // copied it for the call, a retain and a release of each of its strings, whose
                // counts live on the device's core.
                let message = messages.baseAddress! + index
                lines.append(message.pointee.entry, wall: message.pointee.wall, to: &bytes, redacting: redaction)
                last = (message.pointee.entry.time, message.pointee.wall)
                if let problem = write(&bytes) { return problem }
            }
            return nil
        }
        if let problem { return (problem, last) }
        writeOthers(upTo: .max)
        return (nil, last)
    }
}
