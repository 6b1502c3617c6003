import CastDevice
import CastWire
import Foundation
import NIOCore
import Testing

/// castsim reads and writes `CastMessage` itself. SwiftProtobuf, generated from the same
/// proto, was the reference it was held to until castsim stopped building it: what it
/// decided on the mangled bodies below is recorded here, and castsim must decide the same.
@Suite("CastMessage codec")
struct CastMessageCodecTests {
    /// FNV-1a over a run of decisions: 0 for a body refused, 1 and the envelope's body as
    /// castsim writes it for a body accepted.
    static func digest(_ hash: inout UInt64, _ decision: CastEnvelope?) throws {
        func add(_ bytes: some Sequence<UInt8>) {
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        }
        guard let decision else { return add([0]) }
        add([1])
        add(try body(of: decision))
    }

    static func body(of envelope: CastEnvelope) throws -> [UInt8] {
        var frame = try CastFraming.frame(envelope)
        frame.moveReaderIndex(forwardBy: CastFraming.headerSize)
        return Array(frame.readableBytesView)
    }

    static func randomText(_ random: inout IdentifierGenerator, maxLength: Int) -> String {
        let pieces = ["a", "Z", "0", "-", "\"", "\\", "é", "☃", "𝄞", "\u{0}", "{\"type\":\"PING\"}", String(repeating: "x", count: 200)]
        var text = ""
        let count = Int.random(in: 0...maxLength, using: &random)
        while text.utf8.count < count { text += pieces.randomElement(using: &random)! }
        return text
    }

    static func randomEnvelope(_ random: inout IdentifierGenerator) -> CastEnvelope {
        let namespaces = [CastNamespace.heartbeat, CastNamespace.connection, CastNamespace.receiver, CastNamespace.media,
                          "urn:x-cast:com.example.custom", "urn:x-cast:é"]
        let payload: CastEnvelope.Payload = Bool.random(using: &random)
            ? .string(randomText(&random, maxLength: 3000))
            : .binary(Data((0..<Int.random(in: 0...300, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }))
        return CastEnvelope(sourceId: randomText(&random, maxLength: 40), destinationId: randomText(&random, maxLength: 40),
                            namespace: namespaces.randomElement(using: &random)!, payload: payload)
    }

    @Test("What castsim writes is every field in number order, the required ones always, as protobuf runtimes write them, and reads back as the same envelope")
    func writesAsTheReference() throws {
        var random = IdentifierGenerator(seed: 27)
        for _ in 0..<2_000 {
            let envelope = Self.randomEnvelope(&random)
            let body = try Self.body(of: envelope)
            var expected = ProtobufWriter()
            expected.varintField(1, 0)  // CASTV2_1_0
            expected.bytesField(2, Array(envelope.sourceId.utf8))
            expected.bytesField(3, Array(envelope.destinationId.utf8))
            expected.bytesField(4, Array(envelope.namespace.utf8))
            switch envelope.payload {
            case .string(let text):
                expected.varintField(5, 0)
                expected.bytesField(6, Array(text.utf8))
            case .binary(let data):
                expected.varintField(5, 1)
                expected.bytesField(7, Array(data))
            }
            #expect(body == expected.bytes, "\(envelope)")
            #expect(try CastFraming.parse(body: body) == envelope)
        }
    }

    @Test("On mangled bodies castsim accepts exactly what SwiftProtobuf 1.39 accepted, and reads the same envelopes")
    func acceptsAsTheReference() throws {
        var random = IdentifierGenerator(seed: 28)
        var accepted = 0
        var refused = 0
        var decisions: UInt64 = 0xCBF2_9CE4_8422_2325
        // Fields the proto lacks, of every wire type, and fields it has, with odd values.
        let extras: [[UInt8]] = [
            [0x50, 0x96, 0x01], [0x59, 1, 2, 3, 4, 5, 6, 7, 8], [0x62, 2, 0xFF, 0xFE], [0x6D, 1, 2, 3, 4],
            [0x73, 0x08, 0x01, 0x74], [0x73, 0x74], [0x74], [0x0B, 0x0C], [0x08, 0x03], [0x08, 0x09], [0x08, 0x80, 0x80, 0x80, 0x80, 0x10],
            [0x28, 0x01], [0x28, 0x05], [0x2A, 0x01, 0x01], [0x0A, 0x01, 0x02], [0x10, 0x01], [0x38, 0x01], [0x40, 0x01], [0x48, 0xFF, 0x01], [0x3A, 0x01, 0x00], [0x32, 0x01, 0xC3], [0x22, 0x00],
            [0x12, 0x02, 0xC3, 0xA9], [0x0A, 0x00], [0x10, 0x00], [0x07], [0x00], [0xF8, 0xFF, 0xFF, 0xFF, 0x0F, 0x00],
            [0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0x00], [0x2A, 0x00], [0x0D, 0, 0, 0, 0],
        ]
        for _ in 0..<20_000 {
            var body = try Self.body(of: Self.randomEnvelope(&random))
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                switch Int.random(in: 0..<5, using: &random) {
                case 0: body[Int.random(in: 0..<body.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                case 1: body.removeLast(Int.random(in: 0...min(body.count - 1, 8), using: &random))
                case 2: body.insert(contentsOf: extras.randomElement(using: &random)!, at: 0)
                case 3: body.append(contentsOf: extras.randomElement(using: &random)!)
                default: body = Array(body.prefix(Int.random(in: 1...body.count, using: &random)))
                }
                if body.isEmpty { body = [0] }
            }
            let envelope = try? CastFraming.parse(body: body)
            try Self.digest(&decisions, envelope)
            if let envelope {
                accepted += 1
                #expect(try CastFraming.parse(body: Self.body(of: envelope)) == envelope)
            } else {
                refused += 1
            }
        }
        // SwiftProtobuf's decisions on these very bodies, recorded with it beside castsim's
        // codec (which agreed on every one): how many it accepted, and the digest of all.
        #expect(accepted == 5_418 && refused == 20_000 - 5_418, "\(accepted) accepted, \(refused) refused")
        #expect(decisions == 0x472A_3A1D_33B9_55A0, "castsim decides otherwise than SwiftProtobuf on some body")
    }

    @Test("A refused body says which rule it broke")
    func refusalsAreSpecific() {
        let missingSource: [UInt8] = [0x08, 0x00, 0x1A, 0x01, 0x61, 0x22, 0x01, 0x62, 0x28, 0x00, 0x32, 0x00]
        #expect(throws: CastWireError.invalidMessage("no source_id (field 2, required)")) { try CastFraming.parse(body: missingSource) }
        let unknownVersion: [UInt8] = [0x08, 0x07, 0x12, 0x01, 0x61, 0x1A, 0x01, 0x61, 0x22, 0x01, 0x62, 0x28, 0x00, 0x32, 0x00]
        #expect(throws: CastWireError.invalidMessage("no protocol_version (field 1, required)")) { try CastFraming.parse(body: unknownVersion) }
        let badUTF8: [UInt8] = [0x08, 0x00, 0x12, 0x01, 0xC3, 0x1A, 0x01, 0x61, 0x22, 0x01, 0x62, 0x28, 0x00, 0x32, 0x00]
        #expect(throws: CastWireError.invalidMessage("field 2 is not valid UTF-8")) { try CastFraming.parse(body: badUTF8) }
        let pastTheEnd: [UInt8] = [0x08, 0x00, 0x12, 0x05, 0x61]
        #expect(throws: CastWireError.invalidMessage("a length-delimited field runs past the end of the message")) { try CastFraming.parse(body: pastTheEnd) }
    }

    @Test("Groups nested deep in a field the proto lacks are skipped as SwiftProtobuf skips them (99 deep at most), without recursion")
    func deepGroups() throws {
        let valid = try Self.body(of: CastEnvelope(sourceId: "a", destinationId: "b", namespace: "c", payload: .string("{}")))
        for depth in [1, 10, 99, 100, 101, 1_000, 30_000] {
            let body = [UInt8](repeating: 0x0B, count: depth) + [UInt8](repeating: 0x0C, count: depth) + valid
            #expect(((try? CastFraming.parse(body: body)) != nil) == (depth <= 99), "depth \(depth)")
            let unended = [UInt8](repeating: 0x0B, count: depth) + valid
            #expect((try? CastFraming.parse(body: unended)) == nil, "depth \(depth)")
        }
    }

    @Test("A namespace senders use all the time is the constant, not a copy kept with each message")
    func namespacesAreShared() throws {
        let envelope = try CastFraming.parse(body: Self.body(of: CastEnvelope(
            sourceId: "sender-0", destinationId: "receiver-0", namespace: CastNamespace.receiver, payload: .string("{}"))))
        let decoded = envelope.namespace.utf8.withContiguousStorageIfAvailable { $0.baseAddress }
        let constant = CastNamespace.receiver.utf8.withContiguousStorageIfAvailable { $0.baseAddress }
        #expect(decoded != nil && decoded == constant)
        let custom = try CastFraming.parse(body: Self.body(of: CastEnvelope(
            sourceId: "sender-0", destinationId: "receiver-0", namespace: "urn:x-cast:com.example.custom", payload: .string("{}"))))
        #expect(custom.namespace == "urn:x-cast:com.example.custom")
    }
}
