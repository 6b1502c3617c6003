import CastStreaming

/// Cast RTP packets written byte by byte, so a test states exactly what the sender put on
/// the wire (the header layout of the Cast Streaming reference, §4.1).
enum CastPacketBytes {
    /// One packet: RTP header, Cast header, the reference byte when `reference` is given,
    /// extensions as (type, bytes), then the payload.
    static func rtp(ssrc: UInt32 = 63938, sequence: UInt16 = 0x8844, rtpTimestamp: UInt32 = 0, marker: Bool = false, payloadType: UInt8 = 96,
                    keyFrame: Bool = false, frameId: UInt8, packetId: UInt16 = 0, maxPacketId: UInt16 = 0, reference: UInt8? = nil,
                    extensions: [(type: UInt16, bytes: [UInt8])] = [], payload: [UInt8] = []) -> [UInt8] {
        var bytes: [UInt8] = [0x80, (marker ? 0x80 : 0) | payloadType]
        bytes.append16(sequence)
        bytes.append32(rtpTimestamp)
        bytes.append32(ssrc)
        bytes.append((keyFrame ? 0x80 : 0) | (reference == nil ? 0 : 0x40) | UInt8(extensions.count & 0x3F))
        bytes.append(frameId)
        bytes.append16(packetId)
        bytes.append16(maxPacketId)
        if let reference { bytes.append(reference) }
        for (type, body) in extensions {
            bytes.append16(type << 10 | UInt16(body.count))
            bytes.append(contentsOf: body)
        }
        return bytes + payload
    }

    static func parse(_ bytes: [UInt8]) throws -> RTPPacket {
        try bytes.withUnsafeBytes { try RTPPacket(parsing: $0) }
    }

    /// The packet, parsed, with its payload: what ``FrameCollector/add(_:payload:at:)`` takes.
    static func add(_ bytes: [UInt8], to collector: inout FrameCollector, at now: UInt64 = 0) throws -> [FrameCollector.Frame] {
        let packet = try parse(bytes)
        return bytes.withUnsafeBytes { collector.add(packet, payload: UnsafeRawBufferPointer(rebasing: $0[packet.payloadRange]), at: now) }
    }

    /// The RTCP packets of a compound datagram as (count/subtype, packet type, bytes), or nil
    /// when their lengths do not tile the datagram exactly.
    static func rtcpPackets(_ datagram: [UInt8]) -> [(count: UInt8, type: UInt8, bytes: ArraySlice<UInt8>)]? {
        var packets: [(count: UInt8, type: UInt8, bytes: ArraySlice<UInt8>)] = []
        var offset = 0
        while offset < datagram.count {
            guard offset + 4 <= datagram.count, datagram[offset] >> 6 == 2 else { return nil }
            let end = offset + ((Int(datagram[offset + 2]) << 8 | Int(datagram[offset + 3])) + 1) * 4
            guard end <= datagram.count else { return nil }
            packets.append((datagram[offset] & 0x1F, datagram[offset + 1], datagram[offset..<end]))
            offset = end
        }
        return packets
    }

    static func word(_ bytes: ArraySlice<UInt8>, at offset: Int) -> UInt32 {
        let start = bytes.startIndex + offset
        return UInt32(bytes[start]) << 24 | UInt32(bytes[start + 1]) << 16 | UInt32(bytes[start + 2]) << 8 | UInt32(bytes[start + 3])
    }
}
