import Foundation
import NIOCore
import SwiftProtobuf

/// The CASTV2 framing: a 4-byte big-endian body length, then a serialized `CastMessage`.
public enum CastFraming {
    /// Open Screen and Chromium both reject bodies over 64 KiB (§1.2).
    public static let maxBodySize = 65536
    public static let headerSize = 4
    /// The largest JSON payload the device puts in one message: the body limit less room
    /// for the envelope (ids, namespace, protobuf tags). Replies are trimmed to fit it.
    public static let maxPayloadBytes = maxBodySize - 1024

    /// Parses one frame body. Required proto2 fields must be present.
    public static func parse(body: ByteBuffer) throws(CastWireError) -> CastEnvelope {
        guard body.readableBytes > 0 else { throw .emptyFrame }
        let message: Cast_Channel_CastMessage
        do {
            message = try Cast_Channel_CastMessage(serializedBytes: Array(body.readableBytesView))
        } catch {
            throw .invalidMessage(String(describing: error))
        }
        return try CastEnvelope(message)
    }

    /// Serializes an envelope into a complete frame (header + body).
    /// Throws when the body would exceed what any receiver may send.
    public static func frame(_ envelope: CastEnvelope, allocator: ByteBufferAllocator = ByteBufferAllocator())
        throws(CastWireError) -> ByteBuffer
    {
        let body: [UInt8]
        do {
            body = try envelope.castMessage.serializedBytes()
        } catch {
            throw .invalidMessage(String(describing: error))
        }
        guard body.count <= maxBodySize else { throw .frameTooLarge(declared: body.count) }
        var buffer = allocator.buffer(capacity: headerSize + body.count)
        buffer.writeInteger(UInt32(body.count), endianness: .big)
        buffer.writeBytes(body)
        return buffer
    }
}

/// Splits inbound bytes into `CastEnvelope`s. Throws (and so closes the channel) on an
/// oversized declared length, an unparseable body, or a connection that ends mid-frame.
public struct CastFrameDecoder: ByteToMessageDecoder {
    public typealias InboundOut = CastEnvelope

    public init() {}

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let length = buffer.getInteger(at: buffer.readerIndex, endianness: .big, as: UInt32.self) else {
            return .needMoreData
        }
        // Check the declared length before waiting for the body: a 4 GiB claim must not
        // make us buffer 4 GiB.
        guard length <= CastFraming.maxBodySize else {
            throw CastWireError.frameTooLarge(declared: Int(length))
        }
        guard buffer.readableBytes >= CastFraming.headerSize + Int(length) else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: CastFraming.headerSize)
        let body = buffer.readSlice(length: Int(length))!
        let envelope = try CastFraming.parse(body: body)
        context.fireChannelRead(Self.wrapInboundOut(envelope))
        return .continue
    }

    public mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws
        -> DecodingState
    {
        while try decode(context: context, buffer: &buffer) == .continue {}
        if buffer.readableBytes > 0 {
            let expected = buffer.getInteger(at: buffer.readerIndex, endianness: .big, as: UInt32.self)
                .map { Int($0) + CastFraming.headerSize } ?? CastFraming.headerSize
            let received = buffer.readableBytes
            buffer.clear()
            throw CastWireError.truncatedFrame(expected: expected, received: received)
        }
        return .needMoreData
    }
}
