import CastStreaming
import Testing

/// The RTP header with the Cast header, beyond the first packets the senders were seen to
/// send: what a receiver must take and what it must refuse (reference §4.1, §3).
@Suite("Cast Streaming: the Cast RTP header, byte by byte")
struct RTPHeaderFactsTests {
    @Test("Without the R bit there is no reference byte: the payload starts at byte 18")
    func noReferenceByte() throws {
        let packet = try CastPacketBytes.parse(CastPacketBytes.rtp(keyFrame: true, frameId: 9, payload: [0xaa, 0xbb]))
        #expect(packet.referenceFrameId == nil && packet.isKeyFrame && packet.frameId == 9)
        #expect(packet.payloadRange == 18..<20)
    }

    @Test("Extensions are skipped by their size; the adaptive-latency one (type 1, 2 bytes) gives the new delay, in whichever place it comes")
    func extensionsSkippedBySize() throws {
        let unknown: (type: UInt16, bytes: [UInt8]) = (type: 2, bytes: [1, 2, 3])
        let latency: (type: UInt16, bytes: [UInt8]) = (type: 1, bytes: [0x01, 0x2c])
        let bytes = CastPacketBytes.rtp(frameId: 1, reference: 0, extensions: [unknown, latency], payload: [7])
        let packet = try CastPacketBytes.parse(bytes)
        // 18 + reference 1 + (2 + 3) + (2 + 2): 28, then the payload.
        #expect(packet.newPlayoutDelay == 300 && packet.payloadRange == 28..<29)
        // A type-1 extension of another size is not the adaptive-latency one.
        let odd = try CastPacketBytes.parse(CastPacketBytes.rtp(frameId: 1, extensions: [(type: 1, bytes: [0, 0, 200])]))
        #expect(odd.newPlayoutDelay == nil && odd.payloadRange == 23..<23)
    }

    @Test("Chrome's first packet: the 23-byte header with the adaptive-latency extension; cast_sender's: 19 bytes")
    func headerSizes() throws {
        let chrome = try CastPacketBytes.parse(CastPacketBytes.rtp(keyFrame: true, frameId: 0, reference: 0, extensions: [(type: 1, bytes: [0, 200])]))
        #expect(chrome.payloadRange.lowerBound == 23 && chrome.newPlayoutDelay == 200)
        let sender = try CastPacketBytes.parse(CastPacketBytes.rtp(keyFrame: true, frameId: 0, reference: 0))
        #expect(sender.payloadRange.lowerBound == 19 && sender.newPlayoutDelay == nil)
    }

    @Test("Any first byte but 0x80 is refused: padding, the RTP extension bit, CSRCs, another version")
    func firstByte() {
        for first: UInt8 in [0xa0, 0x90, 0x81, 0x8f, 0x40, 0xc0, 0x00] {
            var bytes = CastPacketBytes.rtp(frameId: 0, reference: 0)
            bytes[0] = first
            #expect(throws: RTPPacket.Malformed.self) { try CastPacketBytes.parse(bytes) }
            #expect(!bytes.withUnsafeBytes { RTPPacket.isRTP($0) })
        }
    }

    @Test("An extension count with no extensions behind it is refused, as is an extension cut short")
    func extensionsPastTheEnd() {
        var counted = CastPacketBytes.rtp(frameId: 0, reference: 0)
        counted[12] |= 0x3F
        #expect(throws: RTPPacket.Malformed.self) { try CastPacketBytes.parse(counted) }
        let cut = Array(CastPacketBytes.rtp(frameId: 0, extensions: [(type: 1, bytes: [0, 200])]).dropLast())
        #expect(throws: RTPPacket.Malformed.self) { try CastPacketBytes.parse(cut) }
    }

    @Test("Packet id equal to max packet id is the last packet; max packet id 0xFFFF is invalid even with packet id 0")
    func packetIds() throws {
        let last = try CastPacketBytes.parse(CastPacketBytes.rtp(frameId: 3, packetId: 11, maxPacketId: 11, reference: 2))
        #expect(last.packetId == 11 && last.maxPacketId == 11)
        #expect(throws: RTPPacket.Malformed.self) { try CastPacketBytes.parse(CastPacketBytes.rtp(frameId: 3, packetId: 0, maxPacketId: 0xFFFF)) }
    }

    @Test("Demultiplexing: RTP is 0x80 with a Cast payload type (96–104, 127) and 18 bytes at least; RTCP is version 2 with type 200–207")
    func demultiplexing() {
        for payloadType in UInt8(0)...127 {
            let bytes = CastPacketBytes.rtp(payloadType: payloadType, frameId: 0)
            let expected = (96...104).contains(payloadType) || payloadType == 127
            #expect(bytes.withUnsafeBytes { RTPPacket.isRTP($0) } == expected, "payload type \(payloadType)")
        }
        // The same byte with the marker set is the same payload type: 0xff is 127 with M, 0xe0 is 96 with M.
        #expect(CastPacketBytes.rtp(marker: true, payloadType: 127, frameId: 0).withUnsafeBytes { RTPPacket.isRTP($0) })
        #expect(!Array(CastPacketBytes.rtp(frameId: 0).prefix(17)).withUnsafeBytes { RTPPacket.isRTP($0) })
        // Sender Report, Receiver Report, and the RTP first packets of the reference, each on its side.
        let senderReport = hex("80 c8 00 06 0000c262 eeb237a8 1a2b3c4d 00000000 00000000 00000000")
        let audio = hex("80 ff aa05 00000000 0000c262 c0 00 0000 0000 00")
        let video = hex("80 60 8844 00000000 0000f9c2 c0 00 0000 000b 00")
        #expect(senderReport.withUnsafeBytes { RTCPPackets.isRTCP($0) && !RTPPacket.isRTP($0) })
        #expect(audio.withUnsafeBytes { RTPPacket.isRTP($0) && !RTCPPackets.isRTCP($0) })
        #expect(video.withUnsafeBytes { RTPPacket.isRTP($0) && !RTCPPackets.isRTCP($0) })
        #expect(hex("80 c9 00 01 0001b207").withUnsafeBytes { RTCPPackets.isRTCP($0) && !RTPPacket.isRTP($0) })
    }

    @Test("The marker bit is read but not needed: a frame whose last packet lacks it is still complete")
    func markerIgnored() throws {
        var collector = FrameCollector()
        _ = try CastPacketBytes.add(CastPacketBytes.rtp(keyFrame: true, frameId: 0, packetId: 0, maxPacketId: 1, reference: 0, payload: [1]), to: &collector)
        let done = try CastPacketBytes.add(CastPacketBytes.rtp(marker: false, keyFrame: true, frameId: 0, packetId: 1, maxPacketId: 1, reference: 0,
                                                               payload: [2]), to: &collector)
        #expect(done.map(\.bytes) == [[1, 2]] && collector.checkpoint == 0)
    }
}
