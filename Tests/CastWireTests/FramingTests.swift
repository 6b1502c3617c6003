import CastWire
import Foundation
import NIOCore
import NIOEmbedded
import Testing

@Suite("CASTV2 framing")
struct FramingTests {
    let envelope = CastEnvelope(sourceId: "receiver-0", destinationId: "sender-0",
                                namespace: CastNamespace.heartbeat, payload: .string(#"{"type":"PONG"}"#))

    /// `envelope`'s body: protocol_version CASTV2_1_0, source_id, destination_id, namespace,
    /// `payloadType` (0 STRING, 1 BINARY), payload_utf8.
    static func pongBody(payloadType: UInt64) -> [UInt8] {
        var message = ProtobufWriter()
        message.varintField(1, 0)
        message.bytesField(2, Array("receiver-0".utf8))
        message.bytesField(3, Array("sender-0".utf8))
        message.bytesField(4, Array(CastNamespace.heartbeat.utf8))
        message.varintField(5, payloadType)
        message.bytesField(6, Array(#"{"type":"PONG"}"#.utf8))
        return message.bytes
    }

    @Test("A frame is a 4-byte big-endian length, then a CastMessage with protocol_version 0 and every required field")
    func frameLayout() throws {
        var frame = try CastFraming.frame(envelope)
        let header = frame.readInteger(endianness: .big, as: UInt32.self)
        let length = try #require(header)
        #expect(Int(length) == frame.readableBytes)
        // Field by field, in number order, as protoc's runtimes write them.
        #expect(Array(frame.readableBytesView) == Self.pongBody(payloadType: 0))
        #expect(Array(frame.readableBytesView.prefix(2)) == [0x08, 0x00])
    }

    @Test("Frames split across reads and several frames in one read decode in order")
    func decodesStream() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(CastFrameDecoder()))
        var bytes = try CastFraming.frame(envelope)
        bytes.writeImmutableBuffer(try CastFraming.frame(envelope))
        // One byte at a time.
        while let byte = bytes.readSlice(length: 1) { try channel.writeInbound(byte) }
        #expect(try channel.readInbound(as: CastEnvelope.self) == envelope)
        #expect(try channel.readInbound(as: CastEnvelope.self) == envelope)
        #expect(try channel.readInbound(as: CastEnvelope.self) == nil)
        _ = try channel.finish()
    }

    @Test("A buffer starts with a whole frame only once its body is all there, or once its length is over the limit")
    func wholeFrameAtTheStart() throws {
        let frame = try CastFraming.frame(envelope)
        for cut in 0..<frame.readableBytes {
            #expect(!CastFraming.startsWithWholeFrame(frame.getSlice(at: 0, length: cut)!), "\(cut) of \(frame.readableBytes) bytes")
        }
        #expect(CastFraming.startsWithWholeFrame(frame))
        var twoAndABit = frame
        twoAndABit.writeImmutableBuffer(frame)
        twoAndABit.writeBytes([0, 0])
        #expect(CastFraming.startsWithWholeFrame(twoAndABit))
        var oversized = ByteBuffer()
        oversized.writeInteger(UInt32(CastFraming.maxBodySize + 1), endianness: .big)
        #expect(CastFraming.startsWithWholeFrame(oversized), "taken at once, to be refused")
        #expect(throws: CastWireError.frameTooLarge(declared: CastFraming.maxBodySize + 1)) { _ = try CastFraming.nextBody(from: &oversized) }
    }

    @Test("A declared length over 65536 fails at once, before the body arrives")
    func oversized() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(CastFrameDecoder()))
        var header = ByteBuffer()
        header.writeInteger(UInt32(65537), endianness: .big)
        #expect(throws: CastWireError.frameTooLarge(declared: 65537)) { try channel.writeInbound(header) }
        _ = try? channel.finish()
    }

    @Test("A body of exactly 65536 bytes is accepted")
    func maxSize() throws {
        // Pad the payload so the serialized body is exactly the limit.
        var padded = envelope
        padded.payload = .string(String(repeating: "x", count: 65536 - 80))
        var size = try CastFraming.frame(padded).readableBytes - 4
        padded.payload = .string(String(repeating: "x", count: 65536 - 80 + (65536 - size)))
        size = try CastFraming.frame(padded).readableBytes - 4
        #expect(size == 65536)
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(CastFrameDecoder()))
        try channel.writeInbound(try CastFraming.frame(padded))
        #expect(try channel.readInbound(as: CastEnvelope.self) == padded)
        _ = try channel.finish()
    }

    @Test("Refuses to send a frame over the limit")
    func refusesOversizedOutbound() {
        var big = envelope
        big.payload = .string(String(repeating: "x", count: 70000))
        #expect(throws: CastWireError.self) { try CastFraming.frame(big) }
    }

    @Test("Garbage and messages missing required fields are invalid CastMessages", arguments: [
        [UInt8](repeating: 0xFF, count: 12),
        [0x08, 0x00, 0x12, 0x08] + Array("sender-0".utf8),  // only protocol_version and source_id
        [],
    ])
    func invalidBodies(body: [UInt8]) throws {
        var frame = ByteBuffer()
        frame.writeInteger(UInt32(body.count), endianness: .big)
        frame.writeBytes(body)
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(CastFrameDecoder()))
        #expect(throws: (any Error).self) { try channel.writeInbound(frame) }
        _ = try? channel.finish()
    }

    @Test("A payload type that contradicts the payload field is rejected")
    func payloadMismatch() throws {
        // payload_type BINARY with a payload_utf8 and no payload_binary.
        var frame = ByteBuffer()
        let body = Self.pongBody(payloadType: 1)
        frame.writeInteger(UInt32(body.count), endianness: .big)
        frame.writeBytes(body)
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(CastFrameDecoder()))
        #expect(throws: CastWireError.invalidMessage("BINARY payload without payload_binary")) { try channel.writeInbound(frame) }
        _ = try? channel.finish()
    }

    @Test("A connection that ends inside a frame reports a truncated frame")
    func truncated() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(CastFrameDecoder()))
        let frame = try CastFraming.frame(envelope)
        try channel.writeInbound(frame.getSlice(at: 0, length: 10)!)
        #expect(throws: CastWireError.truncatedFrame(expected: frame.readableBytes, received: 10)) { try channel.finish() }
    }
}

@Suite("JSONValue")
struct JSONValueTests {
    @Test("Round-trips JSON with sorted keys and keeps numbers, strings and nesting")
    func roundTrip() throws {
        let text = #"{"b":[1,2.5,"x",null,true],"a":{"z":false}}"#
        let value = try JSONValue.parse(text)
        #expect(value.jsonText() == #"{"a":{"z":false},"b":[1,2.5,"x",null,true]}"#)
        #expect(value["b"]?.arrayValue?[0].intValue == 1)
        #expect(value["b"]?.arrayValue?[1].intValue == nil)
        #expect(value["b"]?.arrayValue?[4] == true)
    }

    @Test("Booleans stay booleans and numbers stay numbers")
    func boolsAreNotNumbers() throws {
        #expect(try JSONValue.parse("[true, 1, 0]") == [true, 1, 0])
        #expect(try JSONValue.parse("\"false\"") == "false")
    }

    @Test("Malformed JSON throws rather than crashing")
    func malformed() {
        for text in ["{", "", "{\"a\":}", "nul", "[1 2]", "{'a':1}", "[1,]"] {
            #expect(throws: (any Error).self) { try JSONValue.parse(text) }
        }
    }
}

@Suite("JSON text")
struct JSONTextTests {
    @Test("Escapes what JSON requires, keeps Unicode and slashes, writes integral numbers without a fraction")
    func text() {
        let value: JSONValue = ["s": "a\"b\\c\nd\u{01}é/🎬\t\r\u{08}\u{0C}\u{1F}", "n": [1, -2, 0.5, 1e300, 4294967296, -0.25, 0, -9007199254740991]]
        #expect(value.jsonText() == #"{"n":[1,-2,0.5,1e+300,4294967296,-0.25,0,-9007199254740991],"s":"a\"b\\c\nd\u0001é/🎬\t\r\b\f\u001f"}"#)
    }

    @Test("Random values survive text and back", arguments: 0..<20)
    func roundTrip(seed: Int) throws {
        var state = UInt64(seed) &+ 0x9E37_79B9
        func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33
        }
        func make(_ depth: Int) -> JSONValue {
            switch next() % (depth > 3 ? 5 : 7) {
            case 0: return .null
            case 1: return .bool(next() % 2 == 0)
            case 2: return .number(Double(Int64(bitPattern: next() << 20)) / Double(next() % 1000 + 1))
            case 3: return .string(String((0..<next() % 8).map { _ in Character(UnicodeScalar(UInt8(next() % 127 + 1))) }))
            case 4: return .number(Double(next() % 100_000))
            case 5: return .array((0..<next() % 4).map { _ in make(depth + 1) })
            default:
                return .object(Dictionary((0..<next() % 4).map { _ in ("k\(next() % 10)", make(depth + 1)) }, uniquingKeysWith: { first, _ in first }))
            }
        }
        for _ in 0..<50 {
            let value = make(0)
            #expect(try JSONValue.parse(value.jsonText()) == value, "\(value.jsonText())")
        }
    }
}
