import CastDiscovery
import Testing

@Suite("The DNS message codec: round trips, compression, and malformed packets refused")
struct DNSCodecTests {
    static let instance = DNSName(labels: ["Living Room.TV", "_googlecast", "_tcp", "local"])
    static let host = DNSName("0123-4567.local")

    static let sample = DNSMessage(
        id: 0x1234, flags: DNSMessage.responseFlags,
        questions: [DNSQuestion(name: DNSName("_googlecast._tcp.local"), type: .ptr, unicastResponse: true)],
        answers: [
            DNSRecord(name: DNSName("_googlecast._tcp.local"), data: .ptr(instance), ttl: 4500),
            DNSRecord(name: instance, data: .srv(priority: 0, weight: 0, port: 8009, target: host), ttl: 120, cacheFlush: true),
            DNSRecord(name: instance, data: .txt([Array("id=abc".utf8), Array("fn=Living Room".utf8), []]), ttl: 4500, cacheFlush: true),
        ],
        authorities: [DNSRecord(name: host, data: .a([10, 0, 0, 1]), ttl: 120, cacheFlush: true)],
        additionals: [
            DNSRecord(name: host, data: .aaaa([0xFE, 0x80] + [UInt8](repeating: 0, count: 13) + [1]), ttl: 120, cacheFlush: true),
            DNSRecord(name: host, data: .nsec(next: host, types: [.a, .aaaa]), ttl: 120, cacheFlush: true),
            DNSRecord(name: host, data: .other(type: DNSType(rawValue: 99), bytes: [1, 2, 3]), ttl: 7),
        ])

    @Test("Every record type, flags, QU and cache-flush bits survive a round trip")
    func roundTrip() throws {
        let bytes = Self.sample.encoded()
        let decoded = try DNSMessage(decoding: bytes)
        #expect(decoded == Self.sample)
        #expect(decoded.isResponse && decoded.questions[0].unicastResponse && decoded.answers[1].cacheFlush && !decoded.answers[0].cacheFlush)
        #expect(decoded.answers[0].data == .ptr(Self.instance))
        // Case does not matter to DNS.
        #expect(DNSName("_GoogleCast._TCP.local") == DNSName("_googlecast._tcp.local"))
    }

    @Test("Names are compressed: the second _googlecast._tcp.local is a pointer to the first")
    func compression() throws {
        let message = DNSMessage(answers: [
            DNSRecord(name: DNSName("_googlecast._tcp.local"), data: .ptr(DNSName(labels: ["X", "_googlecast", "_tcp", "local"])), ttl: 1),
        ])
        let bytes = message.encoded()
        // Header 12 bytes, then the owner name at offset 12; the PTR's rdata ("X" + pointer to 12)
        // is the last 4 bytes.
        #expect(Array(bytes.suffix(4)) == [1, UInt8(ascii: "X"), 0xC0, 12])
        let uncompressed = 12 + 23 + 10 + (2 + 23)
        #expect(bytes.count < uncompressed)
        #expect(try DNSMessage(decoding: bytes) == message)
    }

    @Test("A hand-built packet with a pointer into the question decodes")
    func handBuiltPointer() throws {
        var bytes: [UInt8] = [0, 0, 0x84, 0, 0, 1, 0, 1, 0, 0, 0, 0]
        bytes += [5] + Array("local".utf8) + [0]             // question name at 12
        bytes += [0, 12, 0, 1]                               // PTR IN
        bytes += [3] + Array("abc".utf8) + [0xC0, 12]        // answer name abc.local
        bytes += [0, 1, 0x80, 1, 0, 0, 0, 60, 0, 4, 10, 0, 0, 2]  // A flush ttl 60 10.0.0.2
        let message = try DNSMessage(decoding: bytes)
        #expect(message.questions == [DNSQuestion(name: DNSName("local"), type: .ptr)])
        #expect(message.answers == [DNSRecord(name: DNSName("abc.local"), data: .a([10, 0, 0, 2]), ttl: 60, cacheFlush: true)])
    }

    @Test("Every truncation of a valid packet is refused")
    func truncated() {
        let bytes = Self.sample.encoded()
        for length in 0..<bytes.count {
            #expect(throws: DNSDecodeError.self) { try DNSMessage(decoding: Array(bytes.prefix(length))) }
        }
        #expect(throws: DNSDecodeError.trailingBytes(1)) { try DNSMessage(decoding: bytes + [0]) }
    }

    @Test("Pointer loops and forward pointers are refused, not followed")
    func loops() {
        let header: [UInt8] = [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]
        // A pointer to itself.
        #expect(throws: DNSDecodeError.pointerOutOfRange(at: 12, target: 12)) { try DNSMessage(decoding: header + [0xC0, 12, 0, 1, 0, 1]) }
        // Two pointers to each other: 14 → 12, and 12 → 14.
        let pair = header + [0xC0, 14, 0xC0, 12, 0, 1, 0, 1]
        #expect(throws: DNSDecodeError.self) { try DNSMessage(decoding: pair) }
        // A label, then a pointer back to that same name's start: a loop.
        let back = header + [1, UInt8(ascii: "a"), 0xC0, 12, 0, 1, 0, 1]
        #expect(throws: DNSDecodeError.pointerLoop(at: 14)) { try DNSMessage(decoding: back) }
        // The reserved label types 0x40 and 0x80.
        #expect(throws: DNSDecodeError.badLabel(at: 12, byte: 0x40)) { try DNSMessage(decoding: header + [0x40, 0, 0, 1, 0, 1]) }
    }

    @Test("Counts the packet cannot hold are refused before anything is read")
    func counts() {
        let bytes: [UInt8] = [0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        #expect(throws: DNSDecodeError.self) { try DNSMessage(decoding: bytes) }
    }

    @Test("Names over 255 bytes are refused")
    func longName() {
        var bytes: [UInt8] = [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]
        for _ in 0..<5 { bytes += [63] + [UInt8](repeating: 0x61, count: 63) }
        bytes += [0, 0, 1, 0, 1]
        #expect(throws: DNSDecodeError.nameTooLong(at: 12 + 3 * 64)) { try DNSMessage(decoding: bytes) }
    }

    @Test("Mutated packets either decode into something that round-trips or are refused; never a crash or a hang")
    func mutations() {
        var generator = SplitMix(seed: 0xCA57)
        let valid = Self.sample.encoded()
        var decoded = 0
        for _ in 0..<20_000 {
            var bytes = valid
            for _ in 0..<(1 + Int(generator.next() % 4)) {
                let index = Int(generator.next() % UInt64(bytes.count))
                switch generator.next() % 3 {
                case 0: bytes[index] = UInt8(truncatingIfNeeded: generator.next())
                case 1: bytes.remove(at: index)
                default: bytes.insert(UInt8(truncatingIfNeeded: generator.next()), at: index)
                }
                if bytes.isEmpty { break }
            }
            guard let message = try? DNSMessage(decoding: bytes) else { continue }
            decoded += 1
            #expect((try? DNSMessage(decoding: message.encoded())) == message, "\(bytes)")
        }
        #expect(decoded > 0)
    }
}

/// A small seeded generator: the same mutations on every run.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
