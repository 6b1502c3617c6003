import CastDevice
import CastStreaming
import Testing

@Suite("Cast Streaming: the receiver puts frames together and tells the sender at once")
struct StreamingReceiverTests {
    static let key = hex("f3c60af2647f7084959943258f6f3a69")
    static let mask = hex("cadbe4d77d4980d4661a5ba84b505e42")
    static let video = StreamingStream(kind: .video, index: 1, codec: "vp8", senderSsrc: 63938, receiverSsrc: 63939, rtpTimebase: 90000,
                                         targetDelayMilliseconds: 400, aesKey: key, aesIvMask: mask, channels: 1)
    static let ms: UInt64 = 1_000_000

    /// A VP8 key frame's first bytes (1280×720), then filler.
    static func frame(_ id: Int64, size: Int, key: Bool) -> [UInt8] {
        let head: [UInt8] = key ? [0xf0, 0xc4, 0x00, 0x9d, 0x01, 0x2a, 0x00, 0x05, 0xd0, 0x02] : [0xf1, 0, 0]
        return head + (0..<(size - head.count)).map { UInt8(truncatingIfNeeded: Int64($0) &+ id) }
    }

    private func feed(_ receiver: inout StreamingReceiver, _ packet: [UInt8], at now: UInt64) -> [StreamingReceiver.Output] {
        packet.withBytes { receiver.receive($0, at: now) }
    }

    private func rtcp(_ outputs: [StreamingReceiver.Output]) -> [CastFeedbackReading] {
        outputs.compactMap { if case .rtcp(let bytes) = $0 { CastFeedbackReading(bytes) } else { nil } }
    }

    private func frames(_ outputs: [StreamingReceiver.Output]) -> [StreamingReceiver.ReceivedFrame] {
        outputs.compactMap { if case .frame(let frame) = $0 { frame } else { nil } }
    }

    @Test("A frame of 12 packets in order: decrypted to its bytes, ACKed with checkpoint 0 the moment its last packet comes")
    func inOrder() throws {
        var receiver = StreamingReceiver(streams: [Self.video], now: 0)
        var sender = FramePacketizer(ssrc: 63938, key: Self.key, ivMask: Self.mask)
        let plain = Self.frame(0, size: 17285, key: true)
        let packets = sender.packets(frameId: 0, plain: plain, keyFrame: true, rtpTimestamp: 0)
        #expect(packets.count == 12)
        for packet in packets.dropLast() { #expect(feed(&receiver, packet, at: Self.ms).isEmpty) }
        let outputs = feed(&receiver, packets.last!, at: 2 * Self.ms)
        #expect(frames(outputs).map(\.bytes) == [plain] && frames(outputs).first?.isKeyFrame == true)
        let feedback = try #require(rtcp(outputs).first)
        #expect(feedback.receiverSsrc == 63939 && feedback.checkpoint == 0 && feedback.losses.isEmpty)
        let figures = receiver.figures(at: 3 * Self.ms).streams[0]
        #expect(figures.framesReceived == 1 && figures.keyFrames == 1 && figures.packetsReceived == 12 && figures.width == 1280 && figures.height == 720)
        #expect(figures.ackLatencyP50Milliseconds == 0)
    }

    @Test("Loss and reordering: later frames are ACKed in the bit vector, the missing packet is NACKed, and its retransmission moves the checkpoint")
    func lossAndReorder() throws {
        var receiver = StreamingReceiver(streams: [Self.video], now: 0)
        var sender = FramePacketizer(ssrc: 63938, key: Self.key, ivMask: Self.mask)
        let frame0 = sender.packets(frameId: 0, plain: Self.frame(0, size: 3000, key: true), keyFrame: true, rtpTimestamp: 0)
        let frame1 = sender.packets(frameId: 1, plain: Self.frame(1, size: 3000, key: false), keyFrame: false, rtpTimestamp: 3000)
        let frame2 = sender.packets(frameId: 2, plain: Self.frame(2, size: 1000, key: false), keyFrame: false, rtpTimestamp: 6000)
        let frame3 = sender.packets(frameId: 3, plain: Self.frame(3, size: 1000, key: false), keyFrame: false, rtpTimestamp: 9000)
        for packet in frame0 { _ = feed(&receiver, packet, at: Self.ms) }
        // Frame 1's packet 1 is lost; frames 3 then 2 come, out of order.
        _ = feed(&receiver, frame1[0], at: 2 * Self.ms)
        _ = feed(&receiver, frame1[2], at: 2 * Self.ms)
        let third = feed(&receiver, frame3[0], at: 3 * Self.ms)
        #expect(frames(third).map(\.frameId) == [3] && rtcp(third).isEmpty)
        let second = feed(&receiver, frame2[0], at: 4 * Self.ms)
        #expect(frames(second).map(\.frameId) == [2])
        // The 30 ms NACK timer: frame 1 packet 1 missing, frames 2 and 3 held beyond checkpoint 0.
        #expect(receiver.nextDeadline == StreamingReceiver.nackInterval + Self.ms)
        let timed = rtcp(receiver.advance(to: 40 * Self.ms))
        #expect(timed.first?.checkpoint == 0)
        #expect(timed.first?.losses == [RTCPPackets.Loss(frameId: 1, packetId: 1, following: 0)])
        #expect(timed.first?.ackBits == [0b11, 0])
        // The retransmission (a new sequence number) completes frame 1: the checkpoint jumps to 3.
        var again = frame1[1]
        again[2] = 0x99
        let recovered = feed(&receiver, again, at: 41 * Self.ms)
        #expect(frames(recovered).map(\.frameId) == [1] && rtcp(recovered).first?.checkpoint == 3)
        let figures = receiver.figures(at: 42 * Self.ms).streams[0]
        #expect(figures.packetsRecovered == 1 && figures.framesReceived == 4 && figures.checkpointLag == 0)
        // A duplicate of a frame already done changes nothing.
        #expect(feed(&receiver, frame2[0], at: 43 * Self.ms).isEmpty)
        #expect(receiver.figures(at: 43 * Self.ms).streams[0].duplicatePackets == 1)
    }

    @Test("A frame lost whole is NACKed whole, and its packets that come again count as recovered")
    func wholeFrameRecovered() throws {
        var receiver = StreamingReceiver(streams: [Self.video], now: 0)
        var sender = FramePacketizer(ssrc: 63938, key: Self.key, ivMask: Self.mask)
        let frame0 = sender.packets(frameId: 0, plain: Self.frame(0, size: 1000, key: true), keyFrame: true, rtpTimestamp: 0)
        let frame1 = sender.packets(frameId: 1, plain: Self.frame(1, size: 1000, key: false), keyFrame: false, rtpTimestamp: 3000)
        let frame2 = sender.packets(frameId: 2, plain: Self.frame(2, size: 1000, key: false), keyFrame: false, rtpTimestamp: 6000)
        _ = feed(&receiver, frame0[0], at: Self.ms)
        // Frame 1 never comes; frame 2 does.
        _ = feed(&receiver, frame2[0], at: 2 * Self.ms)
        let timed = rtcp(receiver.advance(to: 40 * Self.ms))
        #expect(timed.first?.losses == [RTCPPackets.Loss(frameId: 1, packetId: RTCPPackets.Loss.wholeFrame, following: 0)])
        var again = frame1[0]
        again[2] = 0x99
        let recovered = feed(&receiver, again, at: 41 * Self.ms)
        #expect(frames(recovered).map(\.frameId) == [1] && rtcp(recovered).first?.checkpoint == 2)
        #expect(receiver.figures(at: 42 * Self.ms).streams[0].packetsRecovered == 1)
        // Nothing else counts: frame 2 again is a duplicate, not a recovery.
        _ = feed(&receiver, frame2[0], at: 43 * Self.ms)
        #expect(receiver.figures(at: 43 * Self.ms).streams[0].packetsRecovered == 1)
    }

    @Test("A Sender Report is answered at once with a report block quoting its NTP time; RTP of an unknown SSRC is not taken")
    func senderReports() throws {
        var receiver = StreamingReceiver(streams: [Self.video], now: 0)
        let sender = FramePacketizer(ssrc: 63938, key: Self.key, ivMask: Self.mask)
        let answer = feed(&receiver, sender.senderReport(ntp: 0xeeb2_37a8_1a2b_3c4d, rtpTimestamp: 0), at: 5 * Self.ms)
        guard case .rtcp(let bytes)? = answer.first else { Issue.record("no RTCP after the SR"); return }
        #expect(Array(bytes.prefix(4)) == hex("81 c9 00 07") && Array(bytes[8..<12]) == hex("0000f9c2"))
        #expect(Array(bytes[24..<28]) == hex("37a81a2b"))
        var stranger = FramePacketizer(ssrc: 1234, key: Self.key, ivMask: Self.mask)
        let packet = stranger.packets(frameId: 0, plain: [1, 2, 3], keyFrame: true, rtpTimestamp: 0)[0]
        #expect(feed(&receiver, packet, at: 6 * Self.ms).isEmpty && receiver.strayDatagrams == 1)
        #expect([UInt8](repeating: 0, count: 30).withBytes { receiver.receive($0, at: 7 * Self.ms) }.isEmpty && receiver.strayDatagrams == 2)
    }

    @Test("Frames over the size limit are dropped and counted, and the checkpoint passes them")
    func oversized() throws {
        var receiver = StreamingReceiver(streams: [Self.video], now: 0)
        var sender = FramePacketizer(ssrc: 63938, key: Self.key, ivMask: Self.mask)
        let huge = sender.packets(frameId: 0, plain: [UInt8](repeating: 1, count: FrameCollector.maxFrameBytes + 10_000), keyFrame: true, rtpTimestamp: 0)
        var outputs: [StreamingReceiver.Output] = []
        for packet in huge { outputs += feed(&receiver, packet, at: Self.ms) }
        #expect(frames(outputs).isEmpty)
        let next = sender.packets(frameId: 1, plain: Self.frame(1, size: 500, key: true), keyFrame: true, rtpTimestamp: 3000)
        let done = feed(&receiver, next[0], at: 2 * Self.ms)
        #expect(frames(done).map(\.frameId) == [1] && rtcp(done).first?.checkpoint == 1)
        #expect(receiver.figures(at: 3 * Self.ms).streams[0].framesDropped == 1)
    }

    @Test("Frame ids wrap past 255 without losing the checkpoint")
    func wraps() throws {
        var receiver = StreamingReceiver(streams: [Self.video], now: 0)
        var sender = FramePacketizer(ssrc: 63938, key: Self.key, ivMask: Self.mask)
        var last: CastFeedbackReading?
        for id in Int64(0)...300 {
            let outputs = sender.packets(frameId: id, plain: Self.frame(id, size: 100, key: id == 0), keyFrame: id == 0, rtpTimestamp: UInt32(id * 3000))
                .flatMap { feed(&receiver, $0, at: UInt64(id) * 33 * Self.ms) }
            last = rtcp(outputs).last ?? last
        }
        #expect(last?.checkpoint == UInt8(300 % 256))
        #expect(receiver.figures(at: 301 * 33 * Self.ms).streams[0].framesReceived == 301)
    }
}
