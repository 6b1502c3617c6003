/// The RTCP a Cast receiver reads and writes (docs/protocol/streaming.md §3.4, §3.5).
public enum RTCPPackets {
    /// A Sender Report: the sender's NTP and RTP clocks at one moment.
    public struct SenderReport: Sendable, Equatable {
        public var ssrc: UInt32
        public var ntpTime: UInt64
        public var rtpTimestamp: UInt32
        public var packetCount: UInt32
        public var octetCount: UInt32

        /// The middle 32 bits of the NTP time: the LSR a Receiver Report quotes.
        public var compactNTP: UInt32 { UInt32(truncatingIfNeeded: ntpTime >> 16) }

        public init(ssrc: UInt32, ntpTime: UInt64, rtpTimestamp: UInt32, packetCount: UInt32, octetCount: UInt32) {
            self.ssrc = ssrc
            self.ntpTime = ntpTime
            self.rtpTimestamp = rtpTimestamp
            self.packetCount = packetCount
            self.octetCount = octetCount
        }
    }

    /// Whether `bytes` look like RTCP: version 2, packet type 200–207.
    public static func isRTCP(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 8 && bytes[0] >> 6 == 2 && (200...207).contains(bytes[1])
    }

    /// The Sender Reports in a compound packet; other packets are skipped, and a packet whose
    /// length runs past the datagram ends the reading.
    public static func senderReports(in bytes: UnsafeRawBufferPointer) -> [SenderReport] {
        var reports: [SenderReport] = []
        var offset = 0
        while offset + 4 <= bytes.count, bytes[offset] >> 6 == 2 {
            let length = (Int(bytes.bigEndian16(at: offset + 2)) + 1) * 4
            guard offset + length <= bytes.count else { break }
            if bytes[offset + 1] == 200, length >= 28 {
                reports.append(SenderReport(ssrc: bytes.bigEndian32(at: offset + 4), ntpTime: bytes.bigEndian64(at: offset + 8),
                                            rtpTimestamp: bytes.bigEndian32(at: offset + 16), packetCount: bytes.bigEndian32(at: offset + 20),
                                            octetCount: bytes.bigEndian32(at: offset + 24)))
            }
            offset += length
        }
        return reports
    }

    /// A report block of a Receiver Report, about the sender's stream.
    public struct ReportBlock: Sendable, Equatable {
        public var senderSsrc: UInt32
        public var fractionLost: UInt8
        public var cumulativeLost: Int32
        public var extendedHighestSequence: UInt32
        public var jitter: UInt32
        public var lastSenderReport: UInt32
        /// Since that Sender Report, in 1/65536 s.
        public var delaySinceLastSenderReport: UInt32

        public init(senderSsrc: UInt32, fractionLost: UInt8, cumulativeLost: Int32, extendedHighestSequence: UInt32, jitter: UInt32,
                    lastSenderReport: UInt32, delaySinceLastSenderReport: UInt32) {
            self.senderSsrc = senderSsrc
            self.fractionLost = fractionLost
            self.cumulativeLost = cumulativeLost
            self.extendedHighestSequence = extendedHighestSequence
            self.jitter = jitter
            self.lastSenderReport = lastSenderReport
            self.delaySinceLastSenderReport = delaySinceLastSenderReport
        }
    }

    /// A missing packet, or with `packetId` 0xFFFF a missing frame; `following` marks the
    /// next eight packet ids missing too, lowest bit first.
    public struct Loss: Sendable, Equatable {
        public var frameId: UInt8
        public var packetId: UInt16
        public var following: UInt8

        public static let wholeFrame: UInt16 = 0xFFFF

        public init(frameId: UInt8, packetId: UInt16, following: UInt8 = 0) {
            self.frameId = frameId
            self.packetId = packetId
            self.following = following
        }
    }

    /// Cast feedback: what the receiver has, what it misses.
    public struct CastFeedback: Sendable, Equatable {
        public var senderSsrc: UInt32
        /// Low 8 bits of the last frame such that every frame up to it is complete.
        public var checkpoint: UInt8
        public var targetDelayMilliseconds: UInt16
        public var losses: [Loss]
        /// Counts the feedback sent, for the CST2 block.
        public var feedbackCount: UInt8
        /// Complete frames after checkpoint + 1: bit i is frame checkpoint + 2 + i.
        public var acknowledged: [Bool]

        public init(senderSsrc: UInt32, checkpoint: UInt8, targetDelayMilliseconds: UInt16, losses: [Loss] = [], feedbackCount: UInt8,
                    acknowledged: [Bool] = []) {
            self.senderSsrc = senderSsrc
            self.checkpoint = checkpoint
            self.targetDelayMilliseconds = targetDelayMilliseconds
            self.losses = losses
            self.feedbackCount = feedbackCount
            self.acknowledged = acknowledged
        }
    }

    /// The receiver's compound packet for one stream, in Open Screen's order: RR, XR (receiver
    /// reference time), PLI, Cast feedback. The receiver SSRC comes first: the sender routes by it.
    public static func compound(receiverSsrc: UInt32, reportBlock: ReportBlock?, referenceTime ntp: UInt64, pictureLoss: Bool,
                                feedback: CastFeedback) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(96)
        // Receiver Report, with or without its block.
        header(&out, count: reportBlock == nil ? 0 : 1, type: 201, words: reportBlock == nil ? 1 : 7)
        out.append32(receiverSsrc)
        if let block = reportBlock {
            out.append32(block.senderSsrc)
            out.append(block.fractionLost)
            let lost = UInt32(bitPattern: max(-0x80_0000, min(0x7F_FFFF, block.cumulativeLost))) & 0xFF_FFFF
            out.append(UInt8(lost >> 16)); out.append(UInt8(lost >> 8 & 0xFF)); out.append(UInt8(lost & 0xFF))
            out.append32(block.extendedHighestSequence)
            out.append32(block.jitter)
            out.append32(block.lastSenderReport)
            out.append32(block.delaySinceLastSenderReport)
        }
        // XR with one Receiver Reference Time block (type 4, two words of NTP).
        header(&out, count: 0, type: 207, words: 4)
        out.append32(receiverSsrc)
        out.append(contentsOf: [0x04, 0x00, 0x00, 0x02])
        out.append64(ntp)
        if pictureLoss {
            header(&out, count: 1, type: 206, words: 2)
            out.append32(receiverSsrc)
            out.append32(feedback.senderSsrc)
        }
        // Cast feedback: payload-specific feedback, subtype 15.
        let ackOctets = ackOctetCount(feedback.acknowledged)
        let losses = feedback.losses.prefix(255)
        let words = 2 + 1 + 1 + losses.count + (ackOctets > 0 ? 1 + (2 + ackOctets) / 4 : 0)
        header(&out, count: 15, type: 206, words: words)
        out.append32(receiverSsrc)
        out.append32(feedback.senderSsrc)
        out.append(contentsOf: Array("CAST".utf8))
        out.append(feedback.checkpoint)
        out.append(UInt8(losses.count))
        out.append16(feedback.targetDelayMilliseconds)
        for loss in losses {
            out.append(loss.frameId)
            out.append16(loss.packetId)
            out.append(loss.following)
        }
        if ackOctets > 0 {
            out.append(contentsOf: Array("CST2".utf8))
            out.append(feedback.feedbackCount)
            out.append(UInt8(ackOctets))
            var bits = [UInt8](repeating: 0, count: ackOctets)
            for (index, acknowledged) in feedback.acknowledged.enumerated() where acknowledged && index / 8 < ackOctets {
                bits[index / 8] |= 1 << (index % 8)
            }
            out.append(contentsOf: bits)
        }
        return out
    }

    /// ACK octets: 2, 6, 10 …
    /// so the block stays 4-byte aligned, at most 254.
    package static func ackOctetCount(_ acknowledged: [Bool]) -> Int {
        // Always sent, with at least two octets, as Open Screen's receiver does.
        guard let last = acknowledged.lastIndex(of: true) else { return 2 }
        let needed = last / 8 + 1
        var octets = 2
        while octets < needed, octets + 4 <= 254 { octets += 4 }
        return octets
    }

    private static func header(_ out: inout [UInt8], count: UInt8, type: UInt8, words: Int) {
        out.append(0x80 | count)
        out.append(type)
        out.append16(UInt16(words))
    }
}

extension Array where Element == UInt8 {
    // package: the tests write packets byte by byte with them too.
    package mutating func append16(_ value: UInt16) { append(UInt8(value >> 8)); append(UInt8(value & 0xFF)) }
    package mutating func append32(_ value: UInt32) { append16(UInt16(value >> 16)); append16(UInt16(value & 0xFFFF)) }
    package mutating func append64(_ value: UInt64) { append32(UInt32(value >> 32)); append32(UInt32(value & 0xFFFF_FFFF)) }
}
