import CastDevice
import CastScenario
import CastWire
import Testing

@Suite("The message journal's bounds")
struct MessageJournalTests {
    static func entry(_ sequence: Int, payloadBytes: Int, connections: ConnectionList = [ConnectionID(1)]) -> JournalEntry {
        JournalEntry(sequence: sequence, time: SimTime(seconds: Double(sequence)), direction: .inbound, connections: connections,
                     envelope: CastEnvelope(sourceId: "sender-0", destinationId: "receiver-0", namespace: CastNamespace.media,
                                            payload: .string(String(repeating: "x", count: payloadBytes))))
    }

    @Test("Past its byte limit the journal drops the oldest messages, however few it holds")
    func byteLimit() {
        let footprint = Self.entry(1, payloadBytes: 1_000).footprint
        #expect(footprint > 1_000 && footprint < 1_300)
        var journal = MessageJournal(limit: 10_000, byteLimit: footprint * 5)
        for sequence in 1...12 { journal.record(Self.entry(sequence, payloadBytes: 1_000)) }
        #expect(journal.count == 5 && journal.bytes == footprint * 5 && journal.seenSinceClear == 12)
        #expect(journal.entries.map(\.sequence) == Array(8...12))
        #expect(journal.entries(after: 10).map(\.sequence) == [11, 12])
        #expect(journal.newest(2) { $0.sequence.isMultiple(of: 2) }.map(\.sequence) == [10, 12])
        journal.markUnhandled(9, "no handler")
        #expect(journal.entries.map { $0.unhandled != nil } == [false, true, false, false, false])

        // A big message pushes out as many small ones as it needs; small ones refill the room.
        journal.record(Self.entry(13, payloadBytes: footprint * 3))
        #expect(journal.entries.map(\.sequence) == [12, 13])
        #expect(journal.bytes <= journal.byteLimit)
        for sequence in 14...30 { journal.record(Self.entry(sequence, payloadBytes: 1_000)) }
        #expect(journal.entries.map(\.sequence) == Array(26...30))
        // One message over the whole limit is still kept, alone.
        journal.record(Self.entry(31, payloadBytes: footprint * 6))
        #expect(journal.entries.map(\.sequence) == [31])
    }

    @Test("A message to many connections counts its list against the byte limit: a broadcast to a thousand senders is not 900 bytes")
    func manyConnectionsCounted() {
        let one = Self.entry(1, payloadBytes: 800).footprint
        let thousand = ConnectionList((1...1000).map { ConnectionID(UInt64($0)) })
        let broadcast = Self.entry(1, payloadBytes: 800, connections: thousand).footprint
        #expect(broadcast == one + 1000 * MemoryLayout<ConnectionID>.stride)
        #expect(Self.entry(1, payloadBytes: 800, connections: [ConnectionID(1), ConnectionID(2)]).footprint == one + 16)
        var journal = MessageJournal(limit: 10_000, byteLimit: broadcast * 10)
        for sequence in 1...50 { journal.record(Self.entry(sequence, payloadBytes: 800, connections: thousand)) }
        #expect(journal.count == 10 && journal.entries.map(\.sequence) == Array(41...50))
    }

    @Test("Small messages after big ones grow the journal again, oldest first")
    func growsAfterDrops() {
        let footprint = Self.entry(1, payloadBytes: 1_000).footprint
        var journal = MessageJournal(limit: 100, byteLimit: footprint * 5)
        for sequence in 1...5 { journal.record(Self.entry(sequence, payloadBytes: 1_000)) }
        journal.record(Self.entry(6, payloadBytes: 2_000))
        #expect(journal.entries.map(\.sequence) == [3, 4, 5, 6])
        // Its five slots, the oldest in the middle, fill up; then it needs more of them. The
        // small ones (about 200 bytes each) push out old ones, oldest first, not the big one.
        for sequence in 7...20 { journal.record(Self.entry(sequence, payloadBytes: 0)) }
        let kept = journal.entries.map(\.sequence)
        #expect(kept.count > 5 && kept.first! <= 6 && kept == Array(kept.first!...20), "\(kept)")
        #expect(journal.count == kept.count && journal.bytes <= journal.byteLimit)
        #expect(journal.entries(after: 18).map(\.sequence) == [19, 20])
    }

    @Test("The count limit still holds under the byte limit, across wrap-arounds")
    func countLimit() {
        var journal = MessageJournal(limit: 7)
        for sequence in 1...100 {
            journal.record(Self.entry(sequence, payloadBytes: sequence % 5 * 300))
            #expect(journal.entries.map(\.sequence) == Array(max(1, sequence - 6)...sequence))
            // Full, each entry takes the oldest's slot in one step: the bytes still add up.
            #expect(journal.bytes == journal.entries.reduce(0) { $0 + $1.footprint })
            #expect(journal.oldestSequence == journal.entries.first?.sequence)
            // A cursor before the oldest gets every entry kept; one at the newest, none.
            #expect(journal.entries(after: 0).map(\.sequence) == journal.entries.map(\.sequence))
            #expect(journal.entries(after: sequence - 1).map(\.sequence) == [sequence])
            #expect(journal.entries(after: sequence).isEmpty)
        }
        journal.clear()
        #expect(journal.count == 0 && journal.bytes == 0 && journal.entries.isEmpty && journal.oldestSequence == nil)
        #expect(journal.entries(after: 0).isEmpty)
        journal.record(Self.entry(101, payloadBytes: 1))
        #expect(journal.entries.map(\.sequence) == [101])
        #expect(journal.oldestSequence == 101)
    }

    @Test("An entry takes 120 bytes besides its text")
    func entrySize() {
        #expect(MemoryLayout<JournalEntry>.stride <= 120)
    }

    @Test("One connection is kept inline; a list of one is the same list however it was made")
    func connectionLists() {
        let one = ConnectionList(ConnectionID(4))
        #expect(one == ConnectionList([ConnectionID(4)]) && Array(one) == [ConnectionID(4)] && one.count == 1)
        let three: ConnectionList = [ConnectionID(1), ConnectionID(2), ConnectionID(3)]
        #expect(three.count == 3 && three.contains(ConnectionID(2)) && three.description == "[conn#1, conn#2, conn#3]")
        #expect(ConnectionList([]).isEmpty)
    }
}
