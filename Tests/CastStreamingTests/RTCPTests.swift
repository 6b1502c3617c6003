import CastStreaming
import Testing

@Suite("Cast Streaming: the receiver's RTCP and the sender's reports")
struct RTCPTests {
    @Test("RR with its block, XR receiver reference time and Cast feedback are the bytes of docs/protocol/streaming.md's example")
    func compoundBytes() {
        let block = RTCPPackets.ReportBlock(senderSsrc: 49762, fractionLost: 0, cumulativeLost: 0, extendedHighestSequence: 0x1aa40,
                                            jitter: 0, lastSenderReport: 0x37a8_0168, delaySinceLastSenderReport: 0xccc)
        let feedback = RTCPPackets.CastFeedback(senderSsrc: 49762, checkpoint: 5, targetDelayMilliseconds: 400, feedbackCount: 7)
        let bytes = RTCPPackets.compound(receiverSsrc: 111_111, reportBlock: block, referenceTime: 0xeeb2_37a8_1a2b_3c4d, pictureLoss: false,
                                         feedback: feedback)
        #expect(bytes == hex("""
            81 c9 00 07  0001b207  0000c262 00000000 0001aa40 00000000 37a80168 00000ccc
            80 cf 00 04  0001b207  04 00 00 02  eeb237a8 1a2b3c4d
            8f ce 00 06  0001b207  0000c262  43415354  05 00 0190  43535432  07 02 00 00
            """))
    }

    @Test("Without a report block the RR is 8 bytes; a PLI sits between XR and the feedback; NACKs and ACK bits are laid out as the sender reads them")
    func lossesAndPictureLoss() {
        let feedback = RTCPPackets.CastFeedback(
            senderSsrc: 63938, checkpoint: 9, targetDelayMilliseconds: 200,
            losses: [RTCPPackets.Loss(frameId: 10, packetId: 3, following: 0b101), RTCPPackets.Loss(frameId: 11, packetId: 0xFFFF)],
            feedbackCount: 1, acknowledged: [true, false, false, false, false, false, false, false, false, true])
        let bytes = RTCPPackets.compound(receiverSsrc: 63939, reportBlock: nil, referenceTime: 1, pictureLoss: true, feedback: feedback)
        #expect(bytes == hex("""
            80 c9 00 01  0000f9c3
            80 cf 00 04  0000f9c3  04 00 00 02  00000000 00000001
            81 ce 00 02  0000f9c3  0000f9c2
            8f ce 00 08  0000f9c3  0000f9c2  43415354  09 02 00c8  0a 0003 05  0b ffff 00  43535432  01 02 01 02
            """))
        // Bits past the first two octets grow the vector by four, keeping 4-byte alignment.
        #expect(RTCPPackets.ackOctetCount(Array(repeating: false, count: 16) + [true]) == 6)
        #expect(RTCPPackets.ackOctetCount([]) == 2)
    }

    @Test("A Sender Report is read from a compound packet; a length past the datagram stops the reading")
    func senderReport() {
        let report = hex("80 c8 00 06 0000c262 eeb237a8 1a2b3c4d 00000bb8 00000010 00000400")
        let reports = report.withBytes { RTCPPackets.senderReports(in: $0) }
        #expect(reports == [RTCPPackets.SenderReport(ssrc: 49762, ntpTime: 0xeeb2_37a8_1a2b_3c4d, rtpTimestamp: 3000, packetCount: 16, octetCount: 1024)])
        #expect(reports.first?.compactNTP == 0x37a8_1a2b)
        #expect(report.withBytes { RTCPPackets.isRTCP($0) })
        let truncated = Array(report.prefix(20))
        #expect(truncated.withBytes { RTCPPackets.senderReports(in: $0) }.isEmpty)
    }
}
