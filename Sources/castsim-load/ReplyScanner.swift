#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CastWire
import NIOCore

/// Finds the `requestId` of a Cast frame by a byte search in its body, without parsing
/// the CastMessage or its JSON payload.
///
/// Why not CastWire's parser on the hot path: parsing the protobuf copies its four
/// strings, and parsing the payload builds the whole RECEIVER_STATUS tree — microseconds
/// of the load generator's CPU per reply, on a machine whose other core runs the server,
/// which would show up as the server's latency. The search is exact for what is read
/// here: castsim writes payload keys sorted, so the top-level `"requestId"` comes before
/// `"status"` (and nothing inside a receiver status has that key); the requests this tool
/// sends and the echo server's canned reply have the same shape; and the protobuf fields
/// before the payload (ids, namespace) are ones this tool and castsim choose.
package enum ReplyScanner {
    private static let key: [UInt8] = Array(#""requestId":"#.utf8)

    /// The first `"requestId":` integer in `body`, nil if there is none.
    package static func requestId(in body: ByteBuffer) -> Int? {
        body.withUnsafeReadableBytes { requestId(in: $0) }
    }

    static func requestId(in bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count > key.count else { return nil }
        guard let start = firstIndex(of: key, in: bytes) else { return nil }
        var index = start + key.count
        while index < bytes.count, bytes[index] == UInt8(ascii: " ") { index += 1 }
        var value = 0
        var digits = 0
        // 18 digits at most: no overflow, and more than any requestId a sender sends.
        while index < bytes.count, digits < 18, case let digit = bytes[index] &- UInt8(ascii: "0"), digit < 10 {
            value = value * 10 + Int(digit)
            digits += 1
            index += 1
        }
        return digits > 0 ? value : nil
    }

    /// Where `needle` first starts in `bytes`: a scan for its first byte, then a compare
    /// (memmem is a GNU extension that Swift's Glibc module does not export).
    private static func firstIndex(of needle: [UInt8], in bytes: UnsafeRawBufferPointer) -> Int? {
        guard let first = needle.first, bytes.count >= needle.count else { return nil }
        var index = 0
        let last = bytes.count - needle.count
        while index <= last {
            if bytes[index] == first, needle.indices.allSatisfy({ bytes[index + $0] == needle[$0] }) { return index }
            index += 1
        }
        return nil
    }
}

/// Splits inbound bytes into frame bodies, as slices of the read buffer. The load
/// generator and the echo server look at each body once, at once, and keep nothing, so
/// they need no parse (`CastFrameDecoder`'s); the framing rules (64 KiB limit,
/// truncation) are CastWire's.
struct CastBodySlicer: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let body = try CastFraming.nextBody(from: &buffer) else { return .needMoreData }
        context.fireChannelRead(Self.wrapInboundOut(body))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws
        -> DecodingState
    {
        while try decode(context: context, buffer: &buffer) == .continue {}
        if let truncation = CastFraming.truncation(of: &buffer) { throw truncation }
        return .needMoreData
    }
}
