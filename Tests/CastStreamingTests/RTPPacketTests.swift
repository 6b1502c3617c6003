import CastDevice
import CastStreaming
import Testing

@Suite("Cast Streaming: RTP packets with the Cast header")
struct RTPPacketTests {
    @Test("cast_sender's first audio and video packets parse as docs/protocol/streaming.md §3.2 reads them")
    func firstPackets() throws {
        let audio = hex("80 ff aa05 00000000 0000c262 c0 00 0000 0000 00") + [0xf4, 0x01]
        let parsed = try audio.withBytes { try RTPPacket(parsing: $0) }
        #expect(parsed.marker && parsed.payloadType == 127 && parsed.sequenceNumber == 0xaa05 && parsed.rtpTimestamp == 0)
        #expect(parsed.ssrc == 49762 && parsed.isKeyFrame && parsed.frameId == 0 && parsed.packetId == 0 && parsed.maxPacketId == 0)
        #expect(parsed.referenceFrameId == 0 && parsed.payloadRange == 19..<21)

        let video = hex("80 60 8844 00000000 0000f9c2 c0 00 0000 000b 00")
        let first = try video.withBytes { try RTPPacket(parsing: $0) }
        #expect(!first.marker && first.payloadType == 96 && first.sequenceNumber == 0x8844 && first.ssrc == 63938)
        #expect(first.maxPacketId == 11 && first.payloadRange == 19..<19)
        #expect(video.withBytes { RTPPacket.isRTP($0) } && audio.withBytes { RTPPacket.isRTP($0) })
    }

    @Test("The adaptive-latency extension gives the new playout delay; the payload starts after it")
    func extensionParsed() throws {
        // K, R, one extension: type 1, size 2, 200 ms.
        let packet = hex("80 e0 0001 00000bb8 0000f9c2 c1 05 0000 0000 04 0402 00c8") + [1, 2, 3]
        let parsed = try packet.withBytes { try RTPPacket(parsing: $0) }
        #expect(parsed.frameId == 5 && parsed.referenceFrameId == 4 && parsed.newPlayoutDelay == 200 && parsed.payloadRange == 23..<26)
    }

    @Test("Truncated or inconsistent packets are refused with why, and no byte string traps the parser")
    func malformed() throws {
        let cases: [([UInt8], String)] = [
            (hex("80 60 8844 00000000 0000f9c2 c0"), "shorter"),
            (hex("90 60 8844 00000000 0000f9c2 c0 00 0000 000b 00"), "0x90"),
            (hex("80 60 8844 00000000 0000f9c2 c0 00 000c 000b 00"), "packet id 12 of max 11"),
            (hex("80 60 8844 00000000 0000f9c2 c0 00 0000 ffff 00"), "max 65535"),
            (hex("80 60 8844 00000000 0000f9c2 c0 00 0000 000b"), "reference frame id"),
            (hex("80 60 8844 00000000 0000f9c2 81 00 0000 000b 0402"), "extension"),
        ]
        for (bytes, reason) in cases {
            let error = #expect(throws: RTPPacket.Malformed.self) { try bytes.withBytes { try RTPPacket(parsing: $0) } }
            #expect(error?.description.contains(reason) == true, "\(error?.description ?? "parsed")")
        }
        var generator = IdentifierGenerator(seed: 28)
        for _ in 0..<20_000 {
            var bytes = (0..<Int(generator.next() % 40)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            if !bytes.isEmpty { bytes[0] = 0x80 }
            _ = bytes.withBytes { try? RTPPacket(parsing: $0) }
            _ = bytes.withBytes { RTCPPackets.senderReports(in: $0) }
        }
    }

    @Test("8-bit frame ids expand to the value nearest the highest seen, across wraps and reordering")
    func frameIdExpansion() {
        var expander = FrameIdExpander()
        #expect(expander.expand(0) == 0 && expander.expand(1) == 1)
        for id in 2...255 { _ = expander.expand(UInt8(id)) }
        #expect(expander.expand(0) == 256 && expander.expand(255) == 255 && expander.highest == 256)
        #expect(expander.expand(100) == 356 && expander.expand(230) == 230 && expander.highest == 356)
        // Within 128 below to 127 above the highest: 171 is 427 (127 ahead of 300), 172 is 172.
        #expect(FrameIdExpander.expand(171, near: 300) == 427 && FrameIdExpander.expand(172, near: 300) == 172)
        #expect(FrameIdExpander.expand(200, near: 300) == 200 && FrameIdExpander.expand(44, near: 300) == 300)
    }
}
