/// The sender's side of the media plane, as Open Screen's sender does it (docs/protocol/
/// streaming.md §3.2, §3.5): frames encrypted and cut into RTP packets with the Cast header,
/// 1449-byte slices, the reference-frame byte always there; and Sender Reports. castsim uses
/// it to test and measure its receiver without a real sender.
package struct FramePacketizer: Sendable {
    package let ssrc: UInt32
    private let crypto: FrameCrypto
    private let payloadType: UInt8
    package var sequence: UInt16
    package static let slice = 1449

    package init(ssrc: UInt32, key: [UInt8], ivMask: [UInt8], payloadType: UInt8 = 96, firstSequence: UInt16 = 0x8844) {
        self.ssrc = ssrc
        crypto = FrameCrypto(key: key, ivMask: ivMask)
        self.payloadType = payloadType
        sequence = firstSequence
    }

    /// The packets of frame `frameId` carrying `plain`, in packet-id order.
    package mutating func packets(frameId: Int64, plain: [UInt8], keyFrame: Bool, rtpTimestamp: UInt32) -> [[UInt8]] {
        let encrypted = crypto.crypt(plain, frameId: frameId)
        let count = max(1, (encrypted.count + Self.slice - 1) / Self.slice)
        return (0..<count).map { index in
            var packet: [UInt8] = []
            packet.reserveCapacity(19 + Self.slice)
            packet.append(0x80)
            packet.append((index == count - 1 ? 0x80 : 0) | payloadType)
            packet.append16(sequence)
            sequence &+= 1
            packet.append32(rtpTimestamp)
            packet.append32(ssrc)
            packet.append((keyFrame ? 0x80 : 0) | 0x40)
            packet.append(UInt8(truncatingIfNeeded: frameId))
            packet.append16(UInt16(index))
            packet.append16(UInt16(count - 1))
            packet.append(UInt8(truncatingIfNeeded: keyFrame ? frameId : frameId - 1))
            let start = index * Self.slice
            packet.append(contentsOf: encrypted[start..<min(encrypted.count, start + Self.slice)])
            return packet
        }
    }

    package func senderReport(ntp: UInt64, rtpTimestamp: UInt32) -> [UInt8] {
        var report: [UInt8] = [0x80, 200, 0, 6]
        report.append32(ssrc)
        report.append64(ntp)
        report.append32(rtpTimestamp)
        report.append32(0)
        report.append32(0)
        return report
    }
}

/// The Cast feedback of a receiver's compound RTCP packet, read back: what a sender learns.
package struct CastFeedbackReading: Sendable, Equatable {
    package var receiverSsrc: UInt32
    package var checkpoint: UInt8
    package var losses: [RTCPPackets.Loss]
    package var ackBits: [UInt8]
    package var hasReportBlock: Bool
    package var pictureLoss: Bool

    /// nil when the datagram has no Cast feedback or a length runs past its end.
    package init?(_ bytes: [UInt8]) {
        var offset = 0
        var found: CastFeedbackReading?
        var block = false
        var pictureLoss = false
        func word(_ at: Int) -> UInt32 { UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3]) }
        while offset + 8 <= bytes.count {
            let end = offset + ((Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])) + 1) * 4
            guard end <= bytes.count else { return nil }
            let count = bytes[offset] & 0x1F
            switch (bytes[offset + 1], count) {
            case (201, _): block = count == 1
            case (206, 1): pictureLoss = true
            case (206, 15) where end - offset >= 20:
                var losses: [RTCPPackets.Loss] = []
                var at = offset + 20
                for _ in 0..<Int(bytes[offset + 17]) where at + 4 <= end {
                    losses.append(RTCPPackets.Loss(frameId: bytes[at], packetId: UInt16(bytes[at + 1]) << 8 | UInt16(bytes[at + 2]), following: bytes[at + 3]))
                    at += 4
                }
                var ack: [UInt8] = []
                if at + 6 <= end, word(at) == 0x4353_5432 {
                    ack = Array(bytes[(at + 6)..<min(end, at + 6 + Int(bytes[at + 5]))])
                }
                found = CastFeedbackReading(receiverSsrc: word(offset + 4), checkpoint: bytes[offset + 16], losses: losses, ackBits: ack,
                                            hasReportBlock: false, pictureLoss: false)
            default: break
            }
            offset = end
        }
        guard var feedback = found else { return nil }
        feedback.hasReportBlock = block
        feedback.pictureLoss = pictureLoss
        self = feedback
    }

    private init(receiverSsrc: UInt32, checkpoint: UInt8, losses: [RTCPPackets.Loss], ackBits: [UInt8], hasReportBlock: Bool, pictureLoss: Bool) {
        self.receiverSsrc = receiverSsrc
        self.checkpoint = checkpoint
        self.losses = losses
        self.ackBits = ackBits
        self.hasReportBlock = hasReportBlock
        self.pictureLoss = pictureLoss
    }
}
