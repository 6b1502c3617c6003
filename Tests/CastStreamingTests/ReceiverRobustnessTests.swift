import CastDevice
import CastStreaming
import Testing

/// Whatever arrives on the session's UDP port, the receiver neither traps nor says anything
/// the sender's parser would refuse: datagrams from a seeded generator, shaped like Cast RTP
/// and RTCP so that they get past the first checks.
@Suite("Cast Streaming: the receiver under arbitrary datagrams")
struct ReceiverRobustnessTests {
    static let ms: UInt64 = 1_000_000
    static let streams = [
        StreamingStream(kind: .audio, index: 0, codec: "opus", senderSsrc: 49762, receiverSsrc: 49763, rtpTimebase: 48000,
                                         targetDelayMilliseconds: 400, aesKey: hex("64b3dfdfc2269f76210bc15de24bb9e0"), aesIvMask: hex("1afe9b46c66f48922954ecadcd0b95ab"), channels: 2),
        StreamingStream(kind: .video, index: 1, codec: "vp8", senderSsrc: 63938, receiverSsrc: 63939, rtpTimebase: 90000,
                                         targetDelayMilliseconds: 400, aesKey: hex("f3c60af2647f7084959943258f6f3a69"), aesIvMask: hex("cadbe4d77d4980d4661a5ba84b505e42"), channels: 1),
    ]

    /// A datagram: random bytes, Cast RTP of a negotiated SSRC with random ids, or RTCP with random lengths.
    static func datagram(_ generator: inout IdentifierGenerator) -> [UInt8] {
        func byte() -> UInt8 { UInt8(truncatingIfNeeded: generator.next()) }
        let bytes = (0..<Int(generator.next() % 64)).map { _ in byte() }
        switch generator.next() % 4 {
        case 0:
            return bytes
        case 1, 2:
            let ssrc = streams[Int(generator.next() % 2)].senderSsrc
            let maxPacketId = generator.next() % 8 == 0 ? UInt16(truncatingIfNeeded: generator.next()) : UInt16(generator.next() % 4)
            let packetId = generator.next() % 16 == 0 ? UInt16(truncatingIfNeeded: generator.next()) : UInt16(generator.next() % UInt64(maxPacketId &+ 1 == 0 ? 1 : maxPacketId &+ 1))
            let extensions = generator.next() % 8 == 0 ? [(type: UInt16(generator.next() % 3), bytes: Array(bytes.prefix(Int(generator.next() % 4))))] : []
            var packet = CastPacketBytes.rtp(ssrc: ssrc, sequence: UInt16(truncatingIfNeeded: generator.next()), rtpTimestamp: UInt32(truncatingIfNeeded: generator.next()),
                                             keyFrame: generator.next() % 5 == 0, frameId: UInt8(generator.next() % 24),
                                             packetId: packetId, maxPacketId: maxPacketId,
                                             reference: generator.next() % 2 == 0 ? byte() : nil, extensions: extensions, payload: bytes)
            if generator.next() % 10 == 0 { packet = Array(packet.prefix(Int(generator.next() % UInt64(packet.count + 1)))) }
            return packet
        default:
            let type = UInt8(200 + generator.next() % 8)
            var packet: [UInt8] = [0x80 | byte() & 0x1F, type, 0, byte() % 12]
            packet.append32(streams[Int(generator.next() % 2)].senderSsrc)
            packet += bytes
            if generator.next() % 3 == 0 { packet += [0x81, 200, 0, 6, 0, 0, 0xc2, 0x62] + bytes }
            return packet
        }
    }

    @Test("Forty thousand arbitrary datagrams, with timers in between: no trap, and every RTCP datagram tiles and names its receiver SSRC first")
    func arbitraryDatagrams() throws {
        var generator = IdentifierGenerator(seed: 2_028)
        var receiver = StreamingReceiver(streams: Self.streams, now: 0)
        var now: UInt64 = 0
        var sent = 0
        for _ in 0..<40_000 {
            now += generator.next() % (2 * Self.ms)
            let datagram = Self.datagram(&generator)
            var outputs = datagram.withUnsafeBytes { receiver.receive($0, at: now) }
            if generator.next() % 8 == 0 { outputs += receiver.advance(to: now) }
            for case .rtcp(let bytes) in outputs {
                sent += 1
                let packets = try #require(CastPacketBytes.rtcpPackets(bytes), "a length that does not tile: \(bytes)")
                let first = CastPacketBytes.word(bytes[...], at: 4)
                #expect(Self.streams.contains { $0.receiverSsrc == first })
                #expect(packets.last.map { $0.type == 206 && $0.count == 15 } == true)
            }
        }
        #expect(sent > 0 && receiver.malformedPackets > 0 && receiver.strayDatagrams > 0)
        // The figures stay sane: a checkpoint lag is never negative.
        for stream in receiver.figures(at: now).streams { #expect(stream.checkpointLag >= 0 && stream.framesDropped >= 0) }
    }

    @Test("Arbitrary bytes into the RTP and RTCP parsers alone, every length up to 64: no trap")
    func arbitraryBytes() {
        var generator = IdentifierGenerator(seed: 0xCA57)
        for length in 0...64 {
            for _ in 0..<300 {
                var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
                if length > 1, generator.next() % 2 == 0 { bytes[0] = 0x80 | bytes[0] & 0x1F }
                _ = bytes.withUnsafeBytes { raw in (try? RTPPacket(parsing: raw), RTCPPackets.senderReports(in: raw), RTPPacket.isRTP(raw), RTCPPackets.isRTCP(raw)) }
                _ = CastFeedbackReading(bytes)
            }
        }
    }
}
