/// A DNS message (RFC 1035 §4) as mDNS uses it.
public struct DNSMessage: Sendable, Hashable {
    public var id: UInt16
    public var flags: UInt16
    public var questions: [DNSQuestion]
    public var answers: [DNSRecord]
    public var authorities: [DNSRecord]
    public var additionals: [DNSRecord]

    public init(id: UInt16 = 0, flags: UInt16 = 0, questions: [DNSQuestion] = [], answers: [DNSRecord] = [],
                authorities: [DNSRecord] = [], additionals: [DNSRecord] = []) {
        self.id = id
        self.flags = flags
        self.questions = questions
        self.answers = answers
        self.authorities = authorities
        self.additionals = additionals
    }

    /// QR and AA: an mDNS response (RFC 6762 §18).
    public static let responseFlags: UInt16 = 0x8400

    public var isResponse: Bool { flags & 0x8000 != 0 }
    public var opcode: UInt16 { (flags >> 11) & 0xF }
    public var rcode: UInt16 { flags & 0xF }
    /// TC in a query: more known answers follow in another packet.
    public var isTruncated: Bool { flags & 0x0200 != 0 }
}

public enum DNSDecodeError: Error, Sendable, Equatable, CustomStringConvertible {
    case truncated(at: Int, reading: String)
    case pointerLoop(at: Int)
    case pointerOutOfRange(at: Int, target: Int)
    case badLabel(at: Int, byte: UInt8)
    case nameTooLong(at: Int)
    case badRecordData(at: Int, String)
    case trailingBytes(Int)

    public var description: String {
        switch self {
        case .truncated(let at, let reading): "truncated at byte \(at) reading \(reading)"
        case .pointerLoop(let at): "compression pointer loop at byte \(at)"
        case .pointerOutOfRange(let at, let target): "compression pointer at byte \(at) points to \(target), not before it"
        case .badLabel(let at, let byte): "label type 0x\(String(byte, radix: 16)) at byte \(at)"
        case .nameTooLong(let at): "name over 255 bytes at byte \(at)"
        case .badRecordData(let at, let text): "bad record data at byte \(at): \(text)"
        case .trailingBytes(let count): "\(count) bytes after the last record"
        }
    }
}

// MARK: Decoding

extension DNSMessage {
    /// Decodes a packet; any malformation is an error naming where, never a crash or a
    /// loop: every read is bounds-checked, and compression pointers must point backwards.
    public init(decoding bytes: [UInt8]) throws(DNSDecodeError) {
        var reader = DNSReader(bytes: bytes)
        id = try reader.u16("header")
        flags = try reader.u16("header")
        let counts = [try reader.u16("header"), try reader.u16("header"), try reader.u16("header"), try reader.u16("header")]
        // Each question takes at least 5 bytes and each record 11: counts larger than the
        // packet can hold are refused before anything is allocated for them.
        let least = Int(counts[0]) * 5 + (Int(counts[1]) + Int(counts[2]) + Int(counts[3])) * 11
        guard least <= bytes.count - 12 else { throw .truncated(at: 12, reading: "\(counts) entries") }
        questions = []
        for _ in 0..<counts[0] {
            let name = try reader.name()
            let type = DNSType(rawValue: try reader.u16("question type"))
            let rawClass = try reader.u16("question class")
            questions.append(DNSQuestion(name: name, type: type, unicastResponse: rawClass & 0x8000 != 0, recordClass: rawClass & 0x7FFF))
        }
        answers = try (0..<counts[1]).map { _ throws(DNSDecodeError) in try reader.record() }
        authorities = try (0..<counts[2]).map { _ throws(DNSDecodeError) in try reader.record() }
        additionals = try (0..<counts[3]).map { _ throws(DNSDecodeError) in try reader.record() }
        if reader.offset != bytes.count { throw .trailingBytes(bytes.count - reader.offset) }
    }
}

struct DNSReader {
    let bytes: [UInt8]
    var offset = 0

    mutating func u8(_ what: String) throws(DNSDecodeError) -> UInt8 {
        guard offset < bytes.count else { throw .truncated(at: offset, reading: what) }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func u16(_ what: String) throws(DNSDecodeError) -> UInt16 {
        guard offset + 2 <= bytes.count else { throw .truncated(at: offset, reading: what) }
        defer { offset += 2 }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    mutating func u32(_ what: String) throws(DNSDecodeError) -> UInt32 {
        let high = try u16(what)
        return UInt32(high) << 16 | UInt32(try u16(what))
    }

    mutating func take(_ count: Int, _ what: String) throws(DNSDecodeError) -> [UInt8] {
        guard count >= 0, offset + count <= bytes.count else { throw .truncated(at: offset, reading: what) }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    /// A name at the current offset, following compression pointers (each to an earlier
    /// byte than the pointer itself, so they can never loop).
    mutating func name() throws(DNSDecodeError) -> DNSName {
        var labels: [String] = []
        var length = 1
        var position = offset
        var jumped = false
        var lowestPointer = offset
        while true {
            guard position < bytes.count else { throw .truncated(at: position, reading: "name") }
            let byte = bytes[position]
            switch byte & 0xC0 {
            case 0x00:
                if byte == 0 {
                    if !jumped { offset = position + 1 }
                    return DNSName(labels: labels)
                }
                let count = Int(byte)
                guard position + 1 + count <= bytes.count else { throw .truncated(at: position, reading: "label") }
                length += 1 + count
                guard length <= 255 else { throw .nameTooLong(at: position) }
                // mDNS names are UTF-8 (RFC 6762 §16); anything else is refused, not mangled.
                guard let label = String(validating: bytes[position + 1...position + count], as: UTF8.self) else {
                    throw .badRecordData(at: position, "a label that is not UTF-8")
                }
                labels.append(label)
                position += 1 + count
            case 0xC0:
                guard position + 1 < bytes.count else { throw .truncated(at: position, reading: "compression pointer") }
                let target = Int(byte & 0x3F) << 8 | Int(bytes[position + 1])
                // Strictly backwards of every pointer followed so far: a loop is impossible.
                guard target < lowestPointer else {
                    throw target >= position ? .pointerOutOfRange(at: position, target: target) : .pointerLoop(at: position)
                }
                if !jumped { offset = position + 2 }
                jumped = true
                lowestPointer = target
                position = target
            default:
                throw .badLabel(at: position, byte: byte)
            }
        }
    }

    mutating func record() throws(DNSDecodeError) -> DNSRecord {
        let owner = try name()
        let type = DNSType(rawValue: try u16("record type"))
        let rawClass = try u16("record class")
        let ttl = try u32("TTL")
        let length = Int(try u16("rdata length"))
        let start = offset
        guard start + length <= bytes.count else { throw .truncated(at: start, reading: "\(type) rdata") }
        let end = start + length
        let data: DNSRecordData
        switch type {
        case .a:
            guard length == 4 else { throw .badRecordData(at: start, "A of \(length) bytes") }
            data = .a(try take(4, "A"))
        case .aaaa:
            guard length == 16 else { throw .badRecordData(at: start, "AAAA of \(length) bytes") }
            data = .aaaa(try take(16, "AAAA"))
        case .ptr:
            data = .ptr(try name())
        case .srv:
            let priority = try u16("SRV"), weight = try u16("SRV"), port = try u16("SRV")
            data = .srv(priority: priority, weight: weight, port: port, target: try name())
        case .txt:
            var strings: [[UInt8]] = []
            while offset < end {
                let count = Int(try u8("TXT"))
                guard offset + count <= end else { throw .badRecordData(at: offset, "TXT string past its record") }
                strings.append(try take(count, "TXT"))
            }
            // No strings at all is one empty string (RFC 6763 §6.1).
            data = .txt(strings.isEmpty ? [[]] : strings)
        case .nsec:
            let next = try name()
            var types: [DNSType] = []
            while offset < end {
                let window = try u8("NSEC window"), count = Int(try u8("NSEC bitmap length"))
                guard (1...32).contains(count), offset + count <= end else { throw .badRecordData(at: offset, "NSEC bitmap") }
                for (index, byte) in try take(count, "NSEC bitmap").enumerated() {
                    for bit in 0..<8 where byte & (0x80 >> bit) != 0 {
                        types.append(DNSType(rawValue: UInt16(window) << 8 | UInt16(index * 8 + bit)))
                    }
                }
            }
            data = .nsec(next: next, types: Array(Set(types)).sorted { $0.rawValue < $1.rawValue })
        default:
            data = .other(type: type, bytes: try take(length, "rdata"))
        }
        guard offset == end else { throw .badRecordData(at: start, "\(type) rdata is \(length) bytes, its contents \(offset - start)") }
        return DNSRecord(name: owner, data: data, ttl: ttl, cacheFlush: rawClass & 0x8000 != 0, recordClass: rawClass & 0x7FFF)
    }
}

// MARK: Encoding

extension DNSMessage {
    /// The packet, names compressed against every name (and name suffix) written before.
    public func encoded() -> [UInt8] {
        var writer = DNSWriter()
        for value in [id, flags, UInt16(questions.count), UInt16(answers.count), UInt16(authorities.count), UInt16(additionals.count)] {
            writer.u16(value)
        }
        for question in questions {
            writer.name(question.name)
            writer.u16(question.type.rawValue)
            writer.u16(question.recordClass | (question.unicastResponse ? 0x8000 : 0))
        }
        for record in answers + authorities + additionals { writer.record(record) }
        return writer.bytes
    }
}

struct DNSWriter {
    var bytes: [UInt8] = []
    /// Where each name suffix already written starts (pointers can reach 14 bits).
    var written: [[[UInt8]]: Int] = [:]

    mutating func u16(_ value: UInt16) {
        bytes.append(UInt8(value >> 8))
        bytes.append(UInt8(value & 0xFF))
    }

    mutating func name(_ name: DNSName) {
        let folded = name.folded
        for index in name.labels.indices {
            let suffix = Array(folded[index...])
            if let earlier = written[suffix] {
                u16(0xC000 | UInt16(earlier))
                return
            }
            if bytes.count < 0x4000 { written[suffix] = bytes.count }
            let label = Array(name.labels[index].utf8.prefix(63))
            bytes.append(UInt8(label.count))
            bytes.append(contentsOf: label)
        }
        bytes.append(0)
    }

    mutating func record(_ record: DNSRecord) {
        name(record.name)
        u16(record.type.rawValue)
        u16(record.recordClass | (record.cacheFlush ? 0x8000 : 0))
        u16(UInt16(record.ttl >> 16))
        u16(UInt16(record.ttl & 0xFFFF))
        let lengthAt = bytes.count
        u16(0)
        switch record.data {
        case .a(let address), .aaaa(let address):
            bytes.append(contentsOf: address)
        case .ptr(let target):
            name(target)
        case .srv(let priority, let weight, let port, let target):
            u16(priority)
            u16(weight)
            u16(port)
            // RFC 2782 forbids compressing the target; mDNS allows it, but some decoders
            // (and RFC 6762 §18.14's advice for old ones) are happier without.
            for label in target.labels {
                let bytesOfLabel = Array(label.utf8.prefix(63))
                bytes.append(UInt8(bytesOfLabel.count))
                bytes.append(contentsOf: bytesOfLabel)
            }
            bytes.append(0)
        case .txt(let strings):
            // An empty TXT record is one empty string (RFC 6763 §6.1).
            for string in strings.isEmpty ? [[]] : strings {
                let clipped = Array(string.prefix(255))
                bytes.append(UInt8(clipped.count))
                bytes.append(contentsOf: clipped)
            }
        case .nsec(let next, let types):
            // Not compressed (RFC 4034 §6.2 form, as RFC 6762 §18.14 asks).
            for label in next.labels {
                let bytesOfLabel = Array(label.utf8.prefix(63))
                bytes.append(UInt8(bytesOfLabel.count))
                bytes.append(contentsOf: bytesOfLabel)
            }
            bytes.append(0)
            // One bitmap per 256-type window, in window order (RFC 4034 §4.1.2).
            let windows = Dictionary(grouping: Set(types.map(\.rawValue)), by: { $0 >> 8 })
            for window in windows.keys.sorted() {
                let low = windows[window]!.map { $0 & 0xFF }
                var bitmap = [UInt8](repeating: 0, count: Int(low.max()!) / 8 + 1)
                for type in low { bitmap[Int(type) / 8] |= 0x80 >> (type % 8) }
                bytes.append(UInt8(window))
                bytes.append(UInt8(bitmap.count))
                bytes.append(contentsOf: bitmap)
            }
        case .other(_, let raw):
            bytes.append(contentsOf: raw)
        }
        let length = bytes.count - lengthAt - 2
        bytes[lengthAt] = UInt8(length >> 8)
        bytes[lengthAt + 1] = UInt8(length & 0xFF)
    }
}
