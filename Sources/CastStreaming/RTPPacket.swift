/// An RTP packet with the Cast header (docs/protocol/streaming.md §3.2). Parsing never traps:
/// every length is checked, and what does not fit is an ``RTPPacket/Malformed`` saying why.
public struct RTPPacket: Sendable, Equatable {
    public var payloadType: UInt8
    public var marker: Bool
    public var sequenceNumber: UInt16
    public var rtpTimestamp: UInt32
    public var ssrc: UInt32
    public var isKeyFrame: Bool
    /// Low 8 bits of the frame id (``FrameIdExpander`` makes it whole).
    public var frameId: UInt8
    public var packetId: UInt16
    public var maxPacketId: UInt16
    /// Low 8 bits of the frame this one depends on: itself for a key frame, when absent.
    public var referenceFrameId: UInt8?
    /// The new target playout delay the sender asks for (adaptive-latency extension), in ms.
    public var newPlayoutDelay: UInt16?
    /// Where the payload starts and how long it is, in the datagram.
    public var payloadRange: Range<Int>

    public struct Malformed: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// The Cast header's fixed part: 12 bytes of RTP, 6 of Cast.
    static let fixedHeaderSize = 18

    /// Whether `bytes` look like Cast RTP (not RTCP): version 2 without padding, extension or
    /// CSRCs, a Cast payload type, long enough (docs/protocol/streaming.md §3.1).
    public static func isRTP(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= fixedHeaderSize, bytes[0] == 0x80 else { return false }
        let payloadType = bytes[1] & 0x7F
        return (96...104).contains(payloadType) || payloadType == 127
    }

    public init(parsing bytes: UnsafeRawBufferPointer) throws(Malformed) {
        guard bytes.count >= Self.fixedHeaderSize else { throw Malformed(description: "\(bytes.count) bytes, shorter than the 18-byte Cast RTP header") }
        guard bytes[0] == 0x80 else { throw Malformed(description: "first byte 0x\(String(bytes[0], radix: 16)), not 0x80") }
        marker = bytes[1] & 0x80 != 0
        payloadType = bytes[1] & 0x7F
        sequenceNumber = bytes.bigEndian16(at: 2)
        rtpTimestamp = bytes.bigEndian32(at: 4)
        ssrc = bytes.bigEndian32(at: 8)
        isKeyFrame = bytes[12] & 0x80 != 0
        let hasReference = bytes[12] & 0x40 != 0
        let extensions = Int(bytes[12] & 0x3F)
        frameId = bytes[13]
        packetId = bytes.bigEndian16(at: 14)
        maxPacketId = bytes.bigEndian16(at: 16)
        guard maxPacketId != 0xFFFF, packetId <= maxPacketId else {
            throw Malformed(description: "packet id \(packetId) of max \(maxPacketId)")
        }
        var offset = Self.fixedHeaderSize
        referenceFrameId = nil
        if hasReference {
            guard offset < bytes.count else { throw Malformed(description: "the reference frame id is missing") }
            referenceFrameId = bytes[offset]
            offset += 1
        }
        newPlayoutDelay = nil
        for _ in 0..<extensions {
            guard offset + 2 <= bytes.count else { throw Malformed(description: "an extension header runs past the packet") }
            let word = bytes.bigEndian16(at: offset)
            let (type, size) = (word >> 10, Int(word & 0x3FF))
            offset += 2
            guard offset + size <= bytes.count else { throw Malformed(description: "a \(size)-byte extension runs past the packet") }
            if type == 1, size == 2 { newPlayoutDelay = bytes.bigEndian16(at: offset) }
            offset += size
        }
        payloadRange = offset..<bytes.count
    }
}

extension UnsafeRawBufferPointer {
    func bigEndian16(at offset: Int) -> UInt16 { UInt16(self[offset]) << 8 | UInt16(self[offset + 1]) }
    func bigEndian32(at offset: Int) -> UInt32 { UInt32(bigEndian16(at: offset)) << 16 | UInt32(bigEndian16(at: offset + 2)) }
    func bigEndian64(at offset: Int) -> UInt64 { UInt64(bigEndian32(at: offset)) << 32 | UInt64(bigEndian32(at: offset + 4)) }
}
