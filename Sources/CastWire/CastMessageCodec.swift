import Foundation
import NIOCore

/// `CastMessage` (proto/cast_channel.proto) read from and written to bytes directly, an
/// envelope at a time.
///
/// Every message of every sender passes here twice, and the generic protobuf runtime made
/// each pass a detour: the body copied to an array, a generated message built from
/// it and then copied field by field into an envelope; on the way out the reverse, and the
/// serialized body copied once more into the frame. Here the fields go straight between the
/// frame's bytes and the envelope, and the namespaces senders use all the time are the
/// constants of ``CastNamespace``, not a fresh copy kept with each journal entry.
///
/// The rules are proto2's as SwiftProtobuf applies them (CastMessageCodecTests holds it to
/// what SwiftProtobuf decided, recorded before castsim stopped building it): the five
/// required fields must be there; a field seen twice takes its last value; strings must be
/// UTF-8; an enum value the proto does not know leaves the field unset; unknown fields
/// (groups too) are skipped. The device-auth messages are read the same way
/// (``DeviceAuthMessage``, through the same ``ProtobufReader``).
package enum CastMessageCodec {
    // Field numbers.
    private static let protocolVersion: UInt64 = 1
    private static let sourceId: UInt64 = 2
    private static let destinationId: UInt64 = 3
    private static let namespace: UInt64 = 4
    private static let payloadType: UInt64 = 5
    private static let payloadUtf8: UInt64 = 6
    private static let payloadBinary: UInt64 = 7

    private static let varint = ProtobufReader.varint
    private static let lengthDelimited = ProtobufReader.lengthDelimited

    /// The namespaces that arrive in nearly every message, as their UTF-8 and as the
    /// constant a decoded envelope shares instead of a copy of its own.
    private static let internedNamespaces: [(utf8: [UInt8], name: String)] = [
        CastNamespace.heartbeat, CastNamespace.connection, CastNamespace.receiver, CastNamespace.media,
        CastNamespace.deviceAuth, CastNamespace.multizone,
    ].map { (Array($0.utf8), $0) }

    // MARK: Reading

    /// Reads one frame body.
    package static func decode(_ body: ByteBuffer) throws(CastWireError) -> CastEnvelope {
        try body.withUnsafeReadableBytes(decode).get()
    }

    /// Reads one frame body held in an array, in place.
    package static func decode(_ body: [UInt8]) throws(CastWireError) -> CastEnvelope {
        try body.withUnsafeBytes(decode).get()
    }

    private static func decode(_ bytes: UnsafeRawBufferPointer) -> Result<CastEnvelope, CastWireError> {
        Result { () throws(CastWireError) -> CastEnvelope in
            var reader = Reader(bytes: bytes)
            return try reader.envelope()
        }
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var fields: ProtobufReader

        init(bytes: UnsafeRawBufferPointer) {
            self.bytes = bytes
            fields = ProtobufReader(bytes: bytes)
        }

        mutating func envelope() throws(CastWireError) -> CastEnvelope {
            var hasVersion = false
            var source: String?
            var destination: String?
            var namespace: String?
            var payloadType: UInt64?
            var utf8Payload: String?
            var binary: Range<Int>?
            while !fields.isAtEnd {
                let (field, wireType) = try fields.tag()
                // A field of the proto with a wire type not its own is not that field: it
                // is skipped as one the proto lacks.
                switch (field, wireType) {
                case (protocolVersion, ProtobufReader.varint):
                    // CASTV2_1_0 to CASTV2_1_3; the value is not kept: castsim answers in 1_0.
                    if ProtobufReader.enumValue(try fields.varint(), known: 0...3) != nil { hasVersion = true }
                case (CastMessageCodec.sourceId, ProtobufReader.lengthDelimited): source = try text(in: fields.lengthDelimited(), field)
                case (CastMessageCodec.destinationId, ProtobufReader.lengthDelimited): destination = try text(in: fields.lengthDelimited(), field)
                case (CastMessageCodec.namespace, ProtobufReader.lengthDelimited): namespace = try internedNamespace(field)
                case (CastMessageCodec.payloadType, ProtobufReader.varint):
                    if let value = ProtobufReader.enumValue(try fields.varint(), known: 0...1) { payloadType = value }
                case (payloadUtf8, ProtobufReader.lengthDelimited): utf8Payload = try text(in: fields.lengthDelimited(), field)
                case (payloadBinary, ProtobufReader.lengthDelimited): binary = try fields.lengthDelimited()
                default: try fields.skip(field, wireType)
                }
            }
            guard hasVersion else { throw .invalidMessage("no protocol_version (field 1, required)") }
            guard let source else { throw .invalidMessage("no source_id (field 2, required)") }
            guard let destination else { throw .invalidMessage("no destination_id (field 3, required)") }
            guard let namespace else { throw .invalidMessage("no namespace (field 4, required)") }
            guard let payloadType else { throw .invalidMessage("no payload_type (field 5, required)") }
            let payload: CastEnvelope.Payload
            if payloadType == 0 {
                guard let utf8Payload else { throw .invalidMessage("STRING payload without payload_utf8") }
                payload = .string(utf8Payload)
            } else {
                guard let binary else { throw .invalidMessage("BINARY payload without payload_binary") }
                payload = .binary(Data(UnsafeRawBufferPointer(rebasing: bytes[binary])))
            }
            guard !namespace.isEmpty else { throw .invalidMessage("empty namespace") }
            return CastEnvelope(sourceId: source, destinationId: destination, namespace: namespace, payload: payload)
        }

        func text(in range: Range<Int>, _ field: UInt64) throws(CastWireError) -> String {
            guard let text = String(validatingUTF8: UnsafeRawBufferPointer(rebasing: bytes[range])) else {
                throw .invalidMessage("field \(field) is not valid UTF-8")
            }
            return text
        }

        mutating func internedNamespace(_ field: UInt64) throws(CastWireError) -> String {
            let range = try fields.lengthDelimited()
            let utf8 = UnsafeRawBufferPointer(rebasing: bytes[range])
            for known in internedNamespaces where known.utf8.count == utf8.count && known.utf8.elementsEqual(utf8) {
                return known.name
            }
            return try text(in: range, field)
        }
    }

    // MARK: Writing

    /// The body's size for `envelope`, as ``write(_:into:)`` writes it.
    package static func bodySize(_ envelope: CastEnvelope) -> Int {
        // protocol_version and payload_type: a tag byte and a one-byte value each.
        4 + stringFieldSize(envelope.sourceId.utf8.count) + stringFieldSize(envelope.destinationId.utf8.count)
            + stringFieldSize(envelope.namespace.utf8.count) + stringFieldSize(envelope.payloadByteCount)
    }

    /// Writes the body (`size` bytes, ``bodySize(_:)``), fields in number order and every
    /// required field present, as the protobuf runtimes do. In one pass over the buffer's
    /// bytes: a ByteBuffer write for each tag and length byte checked the buffer's
    /// uniqueness and capacity a dozen times a message (a twentieth of a reply's cost).
    package static func write(_ envelope: CastEnvelope, size: Int, into buffer: inout ByteBuffer) {
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { bytes in
            var writer = Writer(bytes: bytes)
            writer.tag(protocolVersion, varint)
            writer.byte(0)  // CASTV2_1_0
            writer.string(sourceId, envelope.sourceId)
            writer.string(destinationId, envelope.destinationId)
            writer.string(namespace, envelope.namespace)
            writer.tag(payloadType, varint)
            switch envelope.payload {
            case .string(let text):
                writer.byte(0)  // STRING
                writer.string(payloadUtf8, text)
            case .binary(let data):
                writer.byte(1)  // BINARY
                writer.tag(payloadBinary, lengthDelimited)
                writer.varint(UInt64(data.count))
                writer.copy(data)
            }
            precondition(writer.index == size, "CastMessageCodec.bodySize disagrees with write")
            return writer.index
        }
    }

    /// Fills bytes the caller made room for.
    private struct Writer {
        let bytes: UnsafeMutableRawBufferPointer
        var index = 0

        mutating func byte(_ value: UInt8) {
            precondition(index < bytes.count, "CastMessageCodec.bodySize disagrees with write")
            bytes[index] = value
            index += 1
        }

        mutating func varint(_ value: UInt64) {
            var rest = value
            while rest >= 0x80 {
                byte(UInt8(truncatingIfNeeded: rest) | 0x80)
                rest >>= 7
            }
            byte(UInt8(rest))
        }

        mutating func tag(_ field: UInt64, _ wireType: UInt64) { varint(field << 3 | wireType) }

        mutating func string(_ field: UInt64, _ text: String) {
            tag(field, lengthDelimited)
            text.withUTF8Bytes { utf8 in
                varint(UInt64(utf8.count))
                copy(UnsafeRawBufferPointer(utf8))
            }
        }

        mutating func copy(_ source: some DataProtocol) {
            for region in source.regions {
                region.withUnsafeBytes { region in copy(region) }
            }
        }

        mutating func copy(_ source: UnsafeRawBufferPointer) {
            precondition(source.count <= bytes.count - index, "CastMessageCodec.bodySize disagrees with write")
            UnsafeMutableRawBufferPointer(rebasing: self.bytes[index...]).copyMemory(from: source)
            index += source.count
        }
    }

    private static func stringFieldSize(_ length: Int) -> Int { 1 + varintSize(UInt64(length)) + length }

    private static func varintSize(_ value: UInt64) -> Int {
        var size = 1
        var rest = value >> 7
        while rest > 0 { size += 1; rest >>= 7 }
        return size
    }
}
