import CastDevice
import CastStreaming
import Testing

/// Frames put together from their packets, in any order, with gaps and duplicates: what the
/// Cast feedback then says (checkpoint, NACKs) — reference §4.1, §4.2, §6.2.
@Suite("Cast Streaming: frames put together, the checkpoint and what is missing")
struct FrameCollectorTests {
    /// Packet `packetId` of `count` of frame `frameId` (low 8 bits on the wire), its payload
    /// the frame id and the packet id: a frame's bytes say which packets made it.
    static func packet(_ frameId: Int64, _ packetId: Int, of count: Int, key: Bool = false) -> [UInt8] {
        CastPacketBytes.rtp(keyFrame: key, frameId: UInt8(truncatingIfNeeded: frameId), packetId: UInt16(packetId),
                            maxPacketId: UInt16(count - 1), reference: UInt8(truncatingIfNeeded: key ? frameId : frameId - 1),
                            payload: [UInt8(truncatingIfNeeded: frameId), UInt8(packetId)])
    }

    static func frameBytes(_ frameId: Int64, count: Int) -> [UInt8] {
        (0..<count).flatMap { [UInt8(truncatingIfNeeded: frameId), UInt8($0)] }
    }

    @Test("Packets in any order make the frame in packet-id order; it is handed out once, when its last packet comes")
    func anyOrder() throws {
        var generator = IdentifierGenerator(seed: 4)
        for round in 0..<50 {
            var collector = FrameCollector()
            let count = 1 + round % 13
            var done: [FrameCollector.Frame] = []
            for packetId in (0..<count).shuffled(using: &generator) {
                done += try CastPacketBytes.add(Self.packet(0, packetId, of: count, key: true), to: &collector)
            }
            #expect(done.map(\.bytes) == [Self.frameBytes(0, count: count)] && done.first?.isKeyFrame == true)
            #expect(collector.checkpoint == 0 && collector.losses().isEmpty)
        }
    }

    @Test("The checkpoint starts at −1, 0xff on the wire, before any frame is complete")
    func checkpointStart() throws {
        var collector = FrameCollector()
        #expect(collector.checkpoint == -1 && UInt8(truncatingIfNeeded: collector.checkpoint) == 0xff)
        _ = try CastPacketBytes.add(Self.packet(0, 0, of: 2, key: true), to: &collector)
        #expect(collector.checkpoint == -1)
    }

    @Test("A packet held already, or of a frame at or before the checkpoint, is a duplicate: counted, nothing else changes")
    func duplicates() throws {
        var collector = FrameCollector()
        _ = try CastPacketBytes.add(Self.packet(0, 0, of: 2, key: true), to: &collector)
        #expect(try CastPacketBytes.add(Self.packet(0, 0, of: 2, key: true), to: &collector).isEmpty)
        #expect(try CastPacketBytes.add(Self.packet(0, 1, of: 2, key: true), to: &collector).count == 1)
        // The kickstart: the sender sends its newest frame's last packet again.
        #expect(try CastPacketBytes.add(Self.packet(0, 1, of: 2, key: true), to: &collector).isEmpty)
        #expect(collector.duplicatePackets == 2 && collector.checkpoint == 0)
    }

    @Test("A NACK names the first missing packet and, in its bit vector (LSB first), which of the next eight are missing too; the next field starts past them")
    func nackBitVector() throws {
        var collector = FrameCollector()
        for packetId in 0..<12 where ![1, 2, 4, 10].contains(packetId) {
            _ = try CastPacketBytes.add(Self.packet(0, packetId, of: 12, key: true), to: &collector)
        }
        _ = try CastPacketBytes.add(Self.packet(1, 0, of: 1), to: &collector)
        // 1 missing, then 2 (bit 0) and 4 (bit 2); 10 is past 1 + 8, so a field of its own.
        #expect(collector.losses() == [RTCPPackets.Loss(frameId: 0, packetId: 1, following: 0b101), RTCPPackets.Loss(frameId: 0, packetId: 10)])
    }

    @Test("A frame of which nothing came is NACKed whole (packet id 0xFFFF)")
    func wholeFrameLost() throws {
        var collector = FrameCollector()
        _ = try CastPacketBytes.add(Self.packet(0, 0, of: 1, key: true), to: &collector)
        _ = try CastPacketBytes.add(Self.packet(2, 0, of: 1), to: &collector)
        #expect(collector.losses() == [RTCPPackets.Loss(frameId: 1, packetId: RTCPPackets.Loss.wholeFrame)])
        #expect(collector.checkpoint == 0 && collector.acknowledgedAhead() == [true])
    }

    @Test("The newest frame's packets past the highest one received are on their way, not missing")
    func newestFrameTail() throws {
        var collector = FrameCollector()
        _ = try CastPacketBytes.add(Self.packet(0, 0, of: 6, key: true), to: &collector)
        _ = try CastPacketBytes.add(Self.packet(0, 2, of: 6, key: true), to: &collector)
        #expect(collector.losses() == [RTCPPackets.Loss(frameId: 0, packetId: 1)])
        // Once a later frame has begun, the whole of it is asked for.
        _ = try CastPacketBytes.add(Self.packet(1, 0, of: 2), to: &collector)
        #expect(collector.losses() == [RTCPPackets.Loss(frameId: 0, packetId: 1, following: 0b1110)])
    }

    @Test("Complete frames past a gap are acknowledged in the ACK vector: bit i is checkpoint + 2 + i; the retransmission then moves the checkpoint past them")
    func ackVectorThenCheckpoint() throws {
        var collector = FrameCollector()
        _ = try CastPacketBytes.add(Self.packet(0, 0, of: 1, key: true), to: &collector)
        _ = try CastPacketBytes.add(Self.packet(1, 0, of: 2), to: &collector)
        for frameId: Int64 in [2, 4, 5] { _ = try CastPacketBytes.add(Self.packet(frameId, 0, of: 1), to: &collector) }
        #expect(collector.checkpoint == 0 && collector.acknowledgedAhead() == [true, false, true, true])
        #expect(collector.losses() == [RTCPPackets.Loss(frameId: 1, packetId: 1), RTCPPackets.Loss(frameId: 3, packetId: RTCPPackets.Loss.wholeFrame)])
        _ = try CastPacketBytes.add(Self.packet(1, 1, of: 2), to: &collector)
        #expect(collector.checkpoint == 2)
        _ = try CastPacketBytes.add(Self.packet(3, 0, of: 1), to: &collector)
        #expect(collector.checkpoint == 5 && collector.acknowledgedAhead().isEmpty && collector.losses().isEmpty)
    }

    @Test("Frame ids wrap at 256 and stay in order when frames around the wrap come reordered")
    func wrapWithReordering() throws {
        var collector = FrameCollector()
        for frameId: Int64 in 0..<250 { _ = try CastPacketBytes.add(Self.packet(frameId, 0, of: 1, key: frameId == 0), to: &collector) }
        #expect(collector.checkpoint == 249)
        var completed: [Int64] = []
        // 256 (wire 0) and 258 (wire 2) before 255 and 257; 250–254 last.
        for frameId: Int64 in [256, 258, 255, 257, 251, 250, 253, 252, 254, 259] {
            completed += try CastPacketBytes.add(Self.packet(frameId, 0, of: 1), to: &collector).map(\.frameId)
        }
        #expect(completed == [256, 258, 255, 257, 251, 250, 253, 252, 254, 259])
        #expect(collector.checkpoint == 259 && collector.newest == 259)
    }

    @Test("A complete key frame lets the checkpoint pass the incomplete frames before it; they count as dropped")
    func keyFrameSkips() throws {
        var collector = FrameCollector()
        _ = try CastPacketBytes.add(Self.packet(0, 0, of: 1, key: true), to: &collector)
        _ = try CastPacketBytes.add(Self.packet(1, 0, of: 3), to: &collector)
        _ = try CastPacketBytes.add(Self.packet(3, 0, of: 1), to: &collector)
        let key = try CastPacketBytes.add(Self.packet(4, 0, of: 1, key: true), to: &collector)
        #expect(key.map(\.frameId) == [4] && collector.checkpoint == 4)
        // Frames 1 (incomplete) and 2 (never seen) given up; 3 was complete.
        #expect(collector.framesDropped == 2 && collector.losses().isEmpty)
        // What comes late for them is a duplicate now.
        #expect(try CastPacketBytes.add(Self.packet(1, 1, of: 3), to: &collector).isEmpty && collector.duplicatePackets == 1)
    }

    @Test("A frame announcing more packets than fit in the size limit is dropped at once and counted; the checkpoint passes it")
    func tooManyPackets() throws {
        var collector = FrameCollector()
        let count = FrameCollector.maxFrameBytes / 1000 + 1
        _ = try CastPacketBytes.add(Self.packet(0, 0, of: count, key: true), to: &collector)
        #expect(collector.framesDropped == 1 && collector.checkpoint == 0)
        let next = try CastPacketBytes.add(Self.packet(1, 0, of: 1), to: &collector)
        #expect(next.map(\.frameId) == [1] && collector.checkpoint == 1)
    }

    @Test("At most maxFramesInFlight frames wait incomplete: the oldest is dropped and counted")
    func inFlightBound() throws {
        var collector = FrameCollector()
        _ = try CastPacketBytes.add(Self.packet(0, 0, of: 1, key: true), to: &collector)
        let waiting = FrameCollector.maxFramesInFlight + 5
        for frameId in Int64(1)...Int64(waiting) { _ = try CastPacketBytes.add(Self.packet(frameId, 0, of: 2), to: &collector) }
        #expect(collector.framesDropped == 5 && collector.checkpoint == 5)
        // The NACK list names what is still waiting, at most 255 fields.
        #expect(collector.losses().first == RTCPPackets.Loss(frameId: 6, packetId: 1))
    }

    @Test("A packet whose max packet id differs from its frame's first is refused alone, as Open Screen's receiver does (reference §4.1)")
    func maxPacketIdMismatch() throws {
        var collector = FrameCollector()
        _ = try CastPacketBytes.add(Self.packet(0, 0, of: 1, key: true), to: &collector)
        _ = try CastPacketBytes.add(Self.packet(1, 0, of: 3), to: &collector)
        _ = try CastPacketBytes.add(Self.packet(1, 1, of: 4), to: &collector)
        #expect(collector.framesDropped == 0 && collector.checkpoint == 0)
        _ = try CastPacketBytes.add(Self.packet(1, 1, of: 3), to: &collector)
        let done = try CastPacketBytes.add(Self.packet(1, 2, of: 3), to: &collector)
        #expect(done.map(\.bytes) == [Self.frameBytes(1, count: 3)])
    }

    @Test("A frame that never comes does not hold more than maxFramesInFlight complete frames behind it")
    func completeFramesBehindAGapAreBounded() throws {
        var collector = FrameCollector()
        _ = try CastPacketBytes.add(Self.packet(0, 0, of: 1, key: true), to: &collector)
        // Frame 1 never comes; delta frames 2… do (a sender only keeps 120 in flight, a broken one more).
        for frameId in Int64(2)...1000 { _ = try CastPacketBytes.add(Self.packet(frameId, 0, of: 1), to: &collector) }
        #expect(collector.newest - collector.checkpoint <= Int64(FrameCollector.maxFramesInFlight))
    }
}
