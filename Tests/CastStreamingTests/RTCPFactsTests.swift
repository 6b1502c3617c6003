import CastDevice
import CastStreaming
import Testing

/// The receiver's compound RTCP packet as the sender's parser reads it, and the sender's
/// reports as the receiver reads them (reference §6.2, §6.3, §7).
@Suite("Cast Streaming: RTCP layouts, lengths and timing")
struct RTCPFactsTests {
    static let ms: UInt64 = 1_000_000
    static let video = StreamingStream(kind: .video, index: 1, codec: "vp8", senderSsrc: 63938, receiverSsrc: 63939, rtpTimebase: 90000,
                                         targetDelayMilliseconds: 400, aesKey: hex("f3c60af2647f7084959943258f6f3a69"), aesIvMask: hex("cadbe4d77d4980d4661a5ba84b505e42"), channels: 1)

    static func feedback(losses: Int, acknowledged: [Bool]) -> RTCPPackets.CastFeedback {
        RTCPPackets.CastFeedback(senderSsrc: 63938, checkpoint: 1, targetDelayMilliseconds: 400,
                                 losses: (0..<losses).map { RTCPPackets.Loss(frameId: UInt8(truncatingIfNeeded: $0), packetId: UInt16($0)) },
                                 feedbackCount: 3, acknowledged: acknowledged)
    }

    @Test("Every packet's length is its size in words minus one: the packets tile the datagram, the receiver SSRC follows the first header")
    func lengthsTile() throws {
        var generator = IdentifierGenerator(seed: 6)
        for _ in 0..<300 {
            let acknowledged = (0..<Int(generator.next() % 2100)).map { _ in generator.next() % 3 == 0 }
            let withBlock = generator.next() % 2 == 0
            let block = RTCPPackets.ReportBlock(senderSsrc: 63938, fractionLost: 1, cumulativeLost: 2, extendedHighestSequence: 3, jitter: 4,
                                                lastSenderReport: 5, delaySinceLastSenderReport: 6)
            let bytes = RTCPPackets.compound(receiverSsrc: 63939, reportBlock: withBlock ? block : nil, referenceTime: generator.next(),
                                             pictureLoss: generator.next() % 2 == 0,
                                             feedback: Self.feedback(losses: Int(generator.next() % 300), acknowledged: acknowledged))
            let packets = try #require(CastPacketBytes.rtcpPackets(bytes))
            #expect(bytes.count % 4 == 0 && packets.first?.type == 201 && CastPacketBytes.word(bytes[...], at: 4) == 63939)
            // RR, XR, [PLI], Cast feedback: in Open Screen's order.
            #expect(packets.map(\.type).first == 201 && packets.map(\.type).dropFirst().first == 207 && packets.last?.count == 15)
        }
    }

    @Test("The ACK vector has 2, 6, 10 … octets (at most 254), enough for the last frame acknowledged")
    func ackOctets() {
        #expect(RTCPPackets.ackOctetCount([]) == 2 && RTCPPackets.ackOctetCount([false]) == 2)
        for (lastBit, octets) in [(0, 2), (15, 2), (16, 6), (47, 6), (48, 10), (2023, 254), (5000, 254)] {
            #expect(RTCPPackets.ackOctetCount(Array(repeating: false, count: lastBit) + [true]) == octets, "bit \(lastBit)")
        }
    }

    @Test("At most 255 loss fields: the count byte and the length agree")
    func lossFieldsCapped() throws {
        let bytes = RTCPPackets.compound(receiverSsrc: 63939, reportBlock: nil, referenceTime: 0, pictureLoss: false,
                                         feedback: Self.feedback(losses: 300, acknowledged: []))
        let feedback = try #require(CastPacketBytes.rtcpPackets(bytes)?.last)
        #expect(feedback.bytes[feedback.bytes.startIndex + 17] == 255)
        // 16 bytes up to the delay, 255 fields, CST2 with 2 octets.
        #expect(feedback.bytes.count == 4 + 16 + 255 * 4 + 8)
    }

    @Test("Cumulative lost is 24-bit signed: −1 is ff ff ff, and larger counts clamp")
    func cumulativeLost() {
        func lostBytes(_ lost: Int32) -> [UInt8] {
            let block = RTCPPackets.ReportBlock(senderSsrc: 1, fractionLost: 0x40, cumulativeLost: lost, extendedHighestSequence: 0, jitter: 0,
                                                lastSenderReport: 0, delaySinceLastSenderReport: 0)
            let bytes = RTCPPackets.compound(receiverSsrc: 2, reportBlock: block, referenceTime: 0, pictureLoss: false,
                                             feedback: RTCPPackets.CastFeedback(senderSsrc: 1, checkpoint: 0, targetDelayMilliseconds: 1, feedbackCount: 0))
            return Array(bytes[12..<16])
        }
        #expect(lostBytes(-1) == [0x40, 0xff, 0xff, 0xff])
        #expect(lostBytes(5) == [0x40, 0x00, 0x00, 0x05])
        #expect(lostBytes(0x0100_0000) == [0x40, 0x7f, 0xff, 0xff])
        #expect(lostBytes(-0x0100_0000) == [0x40, 0x80, 0x00, 0x00])
    }

    @Test("Sender Reports are found among other packets of a compound datagram, with or without report blocks; another version stops the reading")
    func senderReportsInCompounds() {
        let receiverReport = hex("80 c9 00 01 0001b207")
        let senderReport = hex("80 c8 00 06 0000c262 eeb237a8 1a2b3c4d 00000bb8 00000010 00000400")
        // An SR with one report block: RC 1, length 12.
        let withBlock = hex("81 c8 00 0c 0000f9c2 00000001 00000002 00000003 00000004 00000005") + [UInt8](repeating: 0, count: 24)
        let reports = (receiverReport + senderReport + withBlock).withUnsafeBytes { RTCPPackets.senderReports(in: $0) }
        #expect(reports.map(\.ssrc) == [49762, 63938] && reports.last?.compactNTP == 0x0001_0000 && reports.last?.octetCount == 5)
        let stopped = (hex("40 c9 00 01 00000000") + senderReport).withUnsafeBytes { RTCPPackets.senderReports(in: $0) }
        #expect(stopped.isEmpty)
        // A Sender Report too short for its fields is not one.
        #expect(hex("80 c8 00 01 0000c262 eeb237a8").withUnsafeBytes { RTCPPackets.senderReports(in: $0) }.isEmpty)
    }

    /// The XR's receiver reference time in a receiver datagram.
    static func referenceTime(_ datagram: [UInt8]) -> UInt64? {
        guard let xr = CastPacketBytes.rtcpPackets(datagram)?.first(where: { $0.type == 207 }), xr.bytes.count == 20,
              CastPacketBytes.word(xr.bytes, at: 8) == 0x0400_0002 else { return nil }
        return UInt64(CastPacketBytes.word(xr.bytes, at: 12)) << 32 | UInt64(CastPacketBytes.word(xr.bytes, at: 16))
    }

    static func datagrams(_ outputs: [StreamingReceiver.Output]) -> [[UInt8]] {
        outputs.compactMap { if case .rtcp(let bytes) = $0 { bytes } else { nil } }
    }

    @Test("After a Sender Report: LSR is its NTP's middle 32 bits, DLSR counts 1/65536 s (one second later: 65536)")
    func lastSenderReportDelay() throws {
        var receiver = StreamingReceiver(streams: [Self.video], now: 0)
        let report = hex("80 c8 00 06 0000f9c2 eeb237a8 1a2b3c4d 00000000 00000000 00000000")
        let first = Self.datagrams(report.withUnsafeBytes { receiver.receive($0, at: 5 * Self.ms) })
        let rr = try #require(first.first)
        #expect(Array(rr[24..<32]) == hex("37a81a2b 00000000"))
        // No frame is missing: the next report comes 500 ms after the last, with the block.
        #expect(receiver.nextDeadline == 505 * Self.ms)
        #expect(Self.datagrams(receiver.advance(to: 504 * Self.ms)).isEmpty)
        let later = try #require(Self.datagrams(receiver.advance(to: 1005 * Self.ms)).first)
        #expect(Array(later[0..<4]) == hex("81 c9 00 07") && Array(later[24..<32]) == hex("37a81a2b 00010000"))
    }

    @Test("The receiver reference time (XR RRTR) is NTP-shaped, counts from the session's start and never goes back")
    func referenceTimeMonotonic() throws {
        var receiver = StreamingReceiver(streams: [Self.video], now: 1_000 * Self.ms)
        let first = try #require(Self.datagrams(receiver.advance(to: 2_500 * Self.ms)).first)
        #expect(Self.referenceTime(first) == 0x0000_0001_8000_0000)
        var last: UInt64 = 0
        for step in UInt64(0)..<20 {
            for datagram in Self.datagrams(receiver.advance(to: 3_000 * Self.ms + step * 500 * Self.ms)) {
                let time = try #require(Self.referenceTime(datagram))
                #expect(time > last)
                last = time
            }
        }
    }

    @Test("Reports come every 500 ms with nothing missing, every 30 ms while a packet is missing")
    func cadence() throws {
        var receiver = StreamingReceiver(streams: [Self.video], now: 0)
        #expect(receiver.nextDeadline == 500 * Self.ms)
        var sender = FramePacketizer(ssrc: 63938, key: Self.video.aesKey, ivMask: Self.video.aesIvMask)
        let packets = sender.packets(frameId: 0, plain: [UInt8](repeating: 3, count: 3000), keyFrame: true, rtpTimestamp: 0)
        let next = sender.packets(frameId: 1, plain: [1], keyFrame: false, rtpTimestamp: 3000)
        for packet in [packets[0], packets[2], next[0]] { _ = packet.withUnsafeBytes { receiver.receive($0, at: 10 * Self.ms) } }
        #expect(receiver.nextDeadline == 30 * Self.ms)
        let nack = try #require(Self.datagrams(receiver.advance(to: 30 * Self.ms)).first)
        let feedback = try #require(CastFeedbackReading(nack))
        #expect(feedback.checkpoint == 0xff && feedback.losses == [RTCPPackets.Loss(frameId: 0, packetId: 1)] && !feedback.hasReportBlock)
        #expect(receiver.nextDeadline == 60 * Self.ms)
    }

    @Test("The playout delay in the Cast feedback follows the sender's adaptive-latency extension (reference §6.2)")
    func adaptiveLatencyDelay() throws {
        var receiver = StreamingReceiver(streams: [Self.video], now: 0)
        // Chrome's first frame asks for 250 ms instead of the OFFER's 400.
        let packet = CastPacketBytes.rtp(keyFrame: true, frameId: 0, reference: 0, extensions: [(type: 1, bytes: [0x00, 0xfa])], payload: [1, 2, 3])
        let outputs = packet.withUnsafeBytes { receiver.receive($0, at: Self.ms) }
        let datagram = try #require(Self.datagrams(outputs).first)
        let feedback = try #require(CastPacketBytes.rtcpPackets(datagram)?.last)
        let delay = UInt16(feedback.bytes[feedback.bytes.startIndex + 18]) << 8 | UInt16(feedback.bytes[feedback.bytes.startIndex + 19])
        #expect(delay == 250)
    }
}
