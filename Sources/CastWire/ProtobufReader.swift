/// Reads protobuf's wire format (proto2, as cast_channel.proto is) field by field, for the
/// codecs that read Cast's messages by hand (``CastMessageCodec``, ``DeviceAuthMessage``).
/// Every refusal is a ``CastWireError/invalidMessage(_:)`` saying what was wrong; nothing
/// is read past the bytes given.
package struct ProtobufReader {
    // Wire types.
    package static let varint: UInt64 = 0
    package static let fixed64: UInt64 = 1
    package static let lengthDelimited: UInt64 = 2
    package static let startGroup: UInt64 = 3
    package static let endGroup: UInt64 = 4
    package static let fixed32: UInt64 = 5

    let bytes: UnsafeRawBufferPointer
    private(set) var index = 0

    package init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    package var isAtEnd: Bool { index >= bytes.count }

    package mutating func varint() throws(CastWireError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard index < bytes.count else { throw .invalidMessage("truncated varint") }
            let byte = bytes[index]
            index += 1
            // The tenth byte holds the top bit only; a longer varint is malformed.
            if shift == 63, byte > 1 { throw .invalidMessage("varint longer than 64 bits") }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }

    package mutating func tag() throws(CastWireError) -> (field: UInt64, wireType: UInt64) {
        let tag = try varint()
        guard tag <= UInt64(UInt32.max), tag >> 3 != 0 else { throw .invalidMessage("field tag \(tag) is not valid") }
        guard tag & 7 <= 5 else { throw .invalidMessage("wire type \(tag & 7) does not exist") }
        return (tag >> 3, tag & 7)
    }

    /// A singular enum field's value; nil (the field stays as it was) when the proto
    /// does not know it, as proto2 keeps unknown values out of the message.
    package static func enumValue(_ varint: UInt64, known: ClosedRange<Int32>) -> UInt64? {
        let value = Int32(truncatingIfNeeded: varint)
        return known.contains(value) ? UInt64(value) : nil
    }

    /// Where a length-delimited field's bytes are, its tag read.
    package mutating func lengthDelimited() throws(CastWireError) -> Range<Int> {
        let length = try varint()
        guard length <= UInt64(bytes.count - index) else { throw .invalidMessage("a length-delimited field runs past the end of the message") }
        let start = index
        index += Int(length)
        return start..<index
    }

    /// Steps over a field the proto does not have, a group with everything in it.
    package mutating func skip(_ field: UInt64, _ wireType: UInt64) throws(CastWireError) {
        switch wireType {
        case Self.varint: _ = try varint()
        case Self.fixed64: try advance(8, field)
        case Self.lengthDelimited: _ = try lengthDelimited()
        case Self.fixed32: try advance(4, field)
        case Self.startGroup:
            // Nested groups are followed on a stack of their own, not by recursion.
            var open = [field]
            while let innermost = open.last {
                guard index < bytes.count else { throw .invalidMessage("group \(innermost) is not ended") }
                let (inner, innerType) = try tag()
                switch innerType {
                case Self.endGroup:
                    guard inner == innermost else { throw .invalidMessage("group \(innermost) ended as group \(inner)") }
                    open.removeLast()
                case Self.startGroup:
                    // SwiftProtobuf's limit, as deep as a message may nest.
                    guard open.count < 99 else { throw .invalidMessage("groups nested deeper than 99") }
                    open.append(inner)
                default: try skip(inner, innerType)
                }
            }
        default: throw .invalidMessage("end of group \(field) outside any group")
        }
    }

    private mutating func advance(_ count: Int, _ field: UInt64) throws(CastWireError) {
        guard bytes.count - index >= count else { throw .invalidMessage("field \(field) runs past the end of the message") }
        index += count
    }
}

/// Writes protobuf's wire format into bytes, fields in the order they are written (the
/// codecs write them in number order, as the protobuf runtimes do).
package struct ProtobufWriter {
    package private(set) var bytes: [UInt8] = []

    package init() {}

    package mutating func varint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    package mutating func varintField(_ field: UInt64, _ value: UInt64) {
        varint(field << 3 | ProtobufReader.varint)
        varint(value)
    }

    package mutating func bytesField(_ field: UInt64, _ value: some Collection<UInt8>) {
        varint(field << 3 | ProtobufReader.lengthDelimited)
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }
}
