import Foundation
import NIOCore

/// The CASTV2 framing: a 4-byte big-endian body length, then a serialized `CastMessage`.
public enum CastFraming {
    /// Open Screen and Chromium both reject bodies over 64 KiB (docs/protocol/castv2.md §1.2).
    public static let maxBodySize = 65536
    public static let headerSize = 4
    /// The largest JSON payload the device puts in one message: the body limit less room
    /// for the envelope (ids, namespace, protobuf tags). Replies are trimmed to fit it.
    public static let maxPayloadBytes = maxBodySize - 1024

    /// Parses one frame body. Required proto2 fields must be present.
    public static func parse(body: ByteBuffer) throws(CastWireError) -> CastEnvelope {
        guard body.readableBytes > 0 else { throw .emptyFrame }
        return try CastMessageCodec.decode(body)
    }

    /// Parses one frame body. Required proto2 fields must be present.
    public static func parse(body: [UInt8]) throws(CastWireError) -> CastEnvelope {
        guard !body.isEmpty else { throw .emptyFrame }
        return try CastMessageCodec.decode(body)
    }

    /// Serializes an envelope into a complete frame (header + body).
    /// Throws when the body would exceed what any receiver may send.
    public static func frame(_ envelope: CastEnvelope, allocator: ByteBufferAllocator = ByteBufferAllocator())
        throws(CastWireError) -> ByteBuffer
    {
        let size = CastMessageCodec.bodySize(envelope)
        guard size <= maxBodySize else { throw .frameTooLarge(declared: size) }
        var buffer = allocator.buffer(capacity: headerSize + size)
        buffer.writeInteger(UInt32(size), endianness: .big)
        CastMessageCodec.write(envelope, size: size, into: &buffer)
        return buffer
    }
}

extension CastFraming {
    /// Takes the next complete frame's body off `buffer`; nil until one has fully arrived.
    /// Throws on a declared length over the limit, before waiting for the body: a 4 GiB
    /// claim must not make us buffer 4 GiB.
    package static func nextBody(from buffer: inout ByteBuffer) throws(CastWireError) -> ByteBuffer? {
        guard let length = buffer.getInteger(at: buffer.readerIndex, endianness: .big, as: UInt32.self) else { return nil }
        guard length <= maxBodySize else { throw .frameTooLarge(declared: Int(length)) }
        guard buffer.readableBytes >= headerSize + Int(length) else { return nil }
        buffer.moveReaderIndex(forwardBy: headerSize)
        return buffer.readSlice(length: Int(length))!
    }

    /// Whether `buffer` starts with a whole frame, which ``nextBody(from:)`` would take
    /// (or refuse, when its declared length is over the limit).
    package static func startsWithWholeFrame(_ buffer: ByteBuffer) -> Bool {
        guard let length = buffer.getInteger(at: buffer.readerIndex, endianness: .big, as: UInt32.self) else { return false }
        return length > maxBodySize || buffer.readableBytes >= headerSize + Int(length)
    }

    /// At the end of the stream: what is left is a frame cut short.
    package static func truncation(of buffer: inout ByteBuffer) -> CastWireError? {
        guard buffer.readableBytes > 0 else { return nil }
        let expected = buffer.getInteger(at: buffer.readerIndex, endianness: .big, as: UInt32.self)
            .map { Int($0) + headerSize } ?? headerSize
        let received = buffer.readableBytes
        buffer.clear()
        return .truncatedFrame(expected: expected, received: received)
    }
}

/// Splits inbound bytes into `CastEnvelope`s. Throws (and so closes the channel) on an
/// oversized declared length, an unparseable body, or a connection that ends mid-frame.
public struct CastFrameDecoder: ByteToMessageDecoder {
    public typealias InboundOut = CastEnvelope

    public init() {}

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let body = try CastFraming.nextBody(from: &buffer) else { return .needMoreData }
        context.fireChannelRead(Self.wrapInboundOut(try CastFraming.parse(body: body)))
        return .continue
    }

    public mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws
        -> DecodingState
    {
        while try decode(context: context, buffer: &buffer) == .continue {}
        if let truncation = CastFraming.truncation(of: &buffer) { throw truncation }
        return .needMoreData
    }
}
