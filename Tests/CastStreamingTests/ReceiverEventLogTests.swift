import CastDevice
import CastStreaming
import Testing

/// The receiver event log (docs/protocol/streaming.md §3.4) as bytes: an APP packet ('CAST',
/// subtype 2) after the Cast feedback, per frame its RTP timestamp, event count and base time
/// in milliseconds, per event a packet id and the type with its offset.
@Suite("Cast Streaming: receiver event logs for the sender's statistics")
struct ReceiverEventLogTests {
    static let ms: UInt64 = 1_000_000

    static func stream(eventLog: Bool) -> StreamingStream {
        StreamingStream(kind: .video, index: 1, codec: "vp8", senderSsrc: 63938, receiverSsrc: 63939, rtpTimebase: 90000,
                        targetDelayMilliseconds: 400, aesKey: StreamingReceiverTests.key, aesIvMask: StreamingReceiverTests.mask,
                        channels: 1, rtcpEventLog: eventLog)
    }

    private func reports(_ outputs: [StreamingReceiver.Output]) -> [[UInt8]] {
        outputs.compactMap { if case .rtcp(let bytes) = $0 { bytes } else { nil } }
    }

    /// The APP packet of a compound RTCP datagram, if it has one.
    private func appPacket(_ compound: [UInt8]) -> ArraySlice<UInt8>? {
        var offset = 0
        while offset + 4 <= compound.count {
            let length = (Int(compound[offset + 2]) << 8 | Int(compound[offset + 3]) + 1) * 4
            if compound[offset + 1] == 204 { return compound[offset..<min(compound.count, offset + length)] }
            offset += length
        }
        return nil
    }

    @Test("A frame of three packets: each packet's arrival, then the ACK, in the report that acknowledges it")
    func oneFrame() throws {
        var receiver = StreamingReceiver(streams: [Self.stream(eventLog: true)], now: 1_000 * Self.ms)
        var sender = FramePacketizer(ssrc: 63938, key: StreamingReceiverTests.key, ivMask: StreamingReceiverTests.mask)
        let packets = sender.packets(frameId: 0, plain: StreamingReceiverTests.frame(0, size: 3500, key: true), keyFrame: true,
                                     rtpTimestamp: 0x1234_5678)
        #expect(packets.count == 3)
        // 5, 6 and 7 ms into the session; the last one completes the frame: the report goes at 7 ms.
        var outputs: [StreamingReceiver.Output] = []
        for (index, packet) in packets.enumerated() {
            outputs = packet.withBytes { receiver.receive($0, at: (1_005 + UInt64(index)) * Self.ms) }
        }
        let report = try #require(reports(outputs).first)
        let app = try #require(appPacket(report))
        #expect(Array(app) == [
            0x82, 204, 0x00, 0x08,              // V=2, subtype 2 (receiver log), APP, 8 words follow
            0x00, 0x00, 0xF9, 0xC3,             // the receiver's SSRC (63939)
            0x43, 0x41, 0x53, 0x54,             // 'CAST'
            0x12, 0x34, 0x56, 0x78,             // the frame's RTP timestamp
            0x03, 0x00, 0x00, 0x05,             // 4 events (3 + 1), base 5 ms
            0x00, 0x00, 0xE0, 0x00,             // packet 0 received, +0 ms
            0x00, 0x01, 0xE0, 0x01,             // packet 1, +1 ms
            0x00, 0x02, 0xE0, 0x02,             // packet 2, +2 ms
            0x00, 0x00, 0xB0, 0x02,             // ACK sent (11), +2 ms
        ])
        // It is the last packet of the datagram, after the Cast feedback the sender acts on.
        #expect(report.suffix(app.count) == app)
        // Told once: the next report has no events to tell.
        let next = reports(receiver.advance(to: 2_000 * Self.ms))
        #expect(next.count == 1 && appPacket(next[0]) == nil)
    }

    @Test("A stream whose OFFER did not ask gets no event log")
    func notAsked() throws {
        var receiver = StreamingReceiver(streams: [Self.stream(eventLog: false)], now: 0)
        var sender = FramePacketizer(ssrc: 63938, key: StreamingReceiverTests.key, ivMask: StreamingReceiverTests.mask)
        var outputs: [StreamingReceiver.Output] = []
        for packet in sender.packets(frameId: 0, plain: StreamingReceiverTests.frame(0, size: 3500, key: true), keyFrame: true, rtpTimestamp: 0) {
            outputs = packet.withBytes { receiver.receive($0, at: Self.ms) }
        }
        let report = try #require(reports(outputs).first)
        #expect(appPacket(report) == nil)
    }

    @Test("A key frame's burst spreads over reports of at most 1 KiB; events 4,096 ms apart start a new frame message")
    func bounds() throws {
        var receiver = StreamingReceiver(streams: [Self.stream(eventLog: true)], now: 0)
        var sender = FramePacketizer(ssrc: 63938, key: StreamingReceiverTests.key, ivMask: StreamingReceiverTests.mask)
        // Hundreds of packets of one frame, all but the last (the frame stays incomplete: no report yet).
        let burst = sender.packets(frameId: 0, plain: StreamingReceiverTests.frame(0, size: 400 * 1400, key: true), keyFrame: true, rtpTimestamp: 0)
        #expect(burst.count > 300, "more than one report can carry")
        for packet in burst.dropLast() { _ = packet.withBytes { receiver.receive($0, at: 10 * Self.ms) } }
        // The last packet comes 5 s later.
        let outputs = burst.last!.withBytes { receiver.receive($0, at: 5_010 * Self.ms) }
        let firstReport = try #require(reports(outputs).first)
        let first = try #require(appPacket(firstReport))
        #expect(first.count <= 12 + 1024)
        // The rest follow in the reports after it, oldest first.
        var later: [ArraySlice<UInt8>] = []
        var now: UInt64 = 5_510 * Self.ms
        while let report = reports(receiver.advance(to: now)).first, let app = appPacket(report) {
            later.append(app)
            now += 500 * Self.ms
        }
        #expect(!later.isEmpty)
        var told = 0
        for app in [first] + later {
            #expect(app.count <= 12 + 1024)
            var offset = app.startIndex + 12
            while offset < app.endIndex {
                let count = Int(app[offset + 4]) + 1
                told += count
                offset += 8 + count * 4
            }
        }
        // Every packet's arrival and the ACK, each once.
        #expect(told == burst.count + 1)
        // The last frame messages: the late packet and the ACK, 5,000 ms after the burst, in one of their own.
        let tail = try #require(later.last)
        #expect(Array(tail.suffix(16)) == [0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x13, 0x92,
                                           UInt8((burst.count - 1) >> 8), UInt8((burst.count - 1) & 0xFF), 0xE0, 0x00, 0x00, 0x00, 0xB0, 0x00])
    }
}
