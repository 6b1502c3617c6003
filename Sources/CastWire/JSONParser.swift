/// A JSON text refused, with the byte where the problem is.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Offset of the offending byte from the start of the text.
    public let offset: Int
    public let reason: String

    package init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    public var description: String { "byte \(offset): \(reason)" }
}

/// How much JSON the parser takes before it refuses: what keeps a hostile payload's cost
/// proportional to its size and its depth far from the stack's limit.
package struct JSONLimits: Sendable {
    /// Arrays and objects inside each other.
    package var maxDepth: Int
    /// Members of one object, elements of one array.
    package var maxElements: Int
    package var maxBytes: Int
    /// Whether a member name given twice in one object is refused. A sender's payload is
    /// read as browsers read it, the last one winning; in a file a person wrote, the
    /// second `"timeline"` would silently drop the first's steps.
    package var refusesDuplicateKeys: Bool

    package init(maxDepth: Int, maxElements: Int, maxBytes: Int, refusesDuplicateKeys: Bool = false) {
        self.maxDepth = maxDepth
        self.maxElements = maxElements
        self.maxBytes = maxBytes
        self.refusesDuplicateKeys = refusesDuplicateKeys
    }

    /// A sender's payload. Real Cast payloads nest under 10 deep. A 64 KiB frame holds at
    /// most 32,768 elements (`[0,0,…]`), and a legitimate one comes close: a
    /// QUEUE_ITEM_IDS trimmed to fit carries some 10,000 ids.
    package static let castPayload = JSONLimits(maxDepth: 32, maxElements: CastFraming.maxBodySize / 2,
                                                maxBytes: CastFraming.maxBodySize)
    /// A file a person wrote (a scenario) or a control API request's body. Larger, a little
    /// deeper for nested steps, and a name given twice in one object is refused.
    package static let document = JSONLimits(maxDepth: 64, maxElements: 1_000_000, maxBytes: 16 << 20, refusesDuplicateKeys: true)
    /// A recording: a document, but its messages' payloads are as senders sent them, and a
    /// sender's duplicate name was read as the last one.
    package static let recording = JSONLimits(maxDepth: 64, maxElements: 1_000_000, maxBytes: 16 << 20)
}

/// Strict RFC 8259 JSON over UTF-8 bytes, in one pass: no trailing commas, no comments,
/// no leading zeros, no control characters in strings, valid UTF-8 and surrogate pairs.
/// The last of duplicate keys wins unless ``JSONLimits/refusesDuplicateKeys``. Recursion is bounded by ``JSONLimits/maxDepth``.
///
/// Written for the device's hot path, where Foundation's JSONDecoder (through Codable)
/// was the largest cost of a request and took any depth.
package struct JSONParser: ~Copyable {
    private let bytes: UnsafeBufferPointer<UInt8>
    private let limits: JSONLimits
    private var index = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>, limits: JSONLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    /// One JSON value, and nothing but whitespace after it. Fragments (a bare number or
    /// string) are values too.
    package static func parse(_ bytes: UnsafeBufferPointer<UInt8>, limits: JSONLimits) throws(JSONParseError) -> JSONValue {
        guard bytes.count <= limits.maxBytes else {
            throw JSONParseError(offset: limits.maxBytes, reason: "\(bytes.count) bytes, over the \(limits.maxBytes)-byte limit")
        }
        var parser = JSONParser(bytes, limits: limits)
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.error("unexpected \(parser.current) after the value") }
        return value
    }

    // MARK: Values

    private mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw error("expected a value, got the end") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error("expected a value, got \(current)")
        }
    }

    private mutating func object(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= limits.maxDepth else { throw error("nesting deeper than \(limits.maxDepth) levels") }
        index += 1  // {
        skipWhitespace()
        if take(UInt8(ascii: "}")) { return .object([:]) }
        // Room for six members at once: a Cast request has two to six at its top level,
        // and a dictionary grown from empty allocates and rehashes again at its first,
        // second and fourth member. Made at that size, not reserved after: reserving on
        // the empty dictionary went through the unspecialized resize, 0.5 % of a loop.
        var members = [String: JSONValue](minimumCapacity: 6)
        while true {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error("expected a member name in quotes, got \(current)")
            }
            let keyStart = index
            let key = try string()
            skipWhitespace()
            guard take(UInt8(ascii: ":")) else { throw error("expected \":\" after a member name, got \(current)") }
            skipWhitespace()
            if members.updateValue(try value(depth: depth), forKey: key) != nil, limits.refusesDuplicateKeys {
                throw JSONParseError(offset: keyStart, reason: "\(JSONValue.string(key).jsonText()) is given twice in one object")
            }
            guard members.count <= limits.maxElements else {
                throw error("more than \(limits.maxElements) members in one object")
            }
            skipWhitespace()
            if take(UInt8(ascii: "}")) { return .object(members) }
            guard take(UInt8(ascii: ",")) else { throw error("expected \",\" or \"}\" in an object, got \(current)") }
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") { throw error("trailing comma before \"}\"") }
        }
    }

    private mutating func array(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= limits.maxDepth else { throw error("nesting deeper than \(limits.maxDepth) levels") }
        index += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if take(UInt8(ascii: "]")) { return .array(elements) }
        while true {
            elements.append(try value(depth: depth))
            guard elements.count <= limits.maxElements else {
                throw error("more than \(limits.maxElements) elements in one array")
            }
            skipWhitespace()
            if take(UInt8(ascii: "]")) { return .array(elements) }
            guard take(UInt8(ascii: ",")) else { throw error("expected \",\" or \"]\" in an array, got \(current)") }
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") { throw error("trailing comma before \"]\"") }
        }
    }

    private mutating func literal(_ word: StaticString, _ value: JSONValue) throws(JSONParseError) -> JSONValue {
        let start = index
        for expected in UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount) {
            guard index < bytes.count, bytes[index] == expected else {
                index = start
                throw error("expected a value, got \(current)")
            }
            index += 1
        }
        return value
    }

    // MARK: Numbers

    private mutating func number() throws(JSONParseError) -> Double {
        let start = index
        let negative = take(UInt8(ascii: "-"))
        let integerStart = index
        guard index < bytes.count, Self.isDigit(bytes[index]) else { throw error("expected a digit, got \(current)") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, Self.isDigit(bytes[index]) { throw error("a number may not start with 0") }
        } else {
            skipDigits()
        }
        let integerDigits = index - integerStart
        var isInteger = true
        if take(UInt8(ascii: ".")) {
            isInteger = false
            guard index < bytes.count, Self.isDigit(bytes[index]) else { throw error("expected a digit after \".\", got \(current)") }
            skipDigits()
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, Self.isDigit(bytes[index]) else { throw error("expected a digit in the exponent, got \(current)") }
            skipDigits()
        }
        // Most numbers are small integers (ids, indexes, levels): exact without a string.
        if isInteger, integerDigits <= 15 {
            var magnitude = 0
            for digit in bytes[integerStart..<index] { magnitude = magnitude * 10 + Int(digit - UInt8(ascii: "0")) }
            return negative ? -Double(magnitude) : Double(magnitude)
        }
        // The rest through the standard library's correctly rounded conversion.
        guard let parsed = Double(String(decoding: bytes[start..<index], as: UTF8.self)), parsed.isFinite else {
            index = start
            throw error("number out of range")
        }
        return parsed
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    private mutating func skipDigits() {
        while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
    }

    // MARK: Strings

    private mutating func string() throws(JSONParseError) -> String {
        let start = index
        index += 1  // "
        // Fast path: no escape, so the text is the bytes between the quotes.
        let contentStart = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let content = UnsafeBufferPointer(rebasing: bytes[contentStart..<index])
                index += 1
                guard let text = String(validatingUTF8: content) else {
                    throw JSONParseError(offset: contentStart + Self.firstInvalidUTF8(content), reason: "invalid UTF-8")
                }
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw error("control character \(current) in a string") }
            index += 1
        }
        guard index < bytes.count else { throw JSONParseError(offset: start, reason: "unterminated string") }
        return try escapedString(start: start, contentStart: contentStart)
    }

    /// The slow path, from the first backslash on: unescaped bytes are copied, escapes
    /// decoded, and the whole checked as UTF-8 at the end.
    private mutating func escapedString(start: Int, contentStart: Int) throws(JSONParseError) -> String {
        var utf8 = Array(bytes[contentStart..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: utf8, as: UTF8.self) else {
                    throw JSONParseError(offset: contentStart, reason: "invalid UTF-8 in the string")
                }
                return text
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { break }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"): utf8.append(contentsOf: String(Character(try unicodeEscape())).utf8)
                default:
                    index -= 1
                    throw error("unknown escape \\\(current) in a string")
                }
            case 0..<0x20:
                throw error("control character \(current) in a string")
            default:
                utf8.append(byte)
                index += 1
            }
        }
        throw JSONParseError(offset: start, reason: "unterminated string")
    }

    /// After `\u`: four hex digits, and a second `\uXXXX` when the first is a high surrogate.
    private mutating func unicodeEscape() throws(JSONParseError) -> Unicode.Scalar {
        let escapeStart = index - 2
        let first = try hex4()
        switch first {
        case 0xD800...0xDBFF:
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw JSONParseError(offset: escapeStart, reason: "unpaired surrogate \\u\(String(first, radix: 16, uppercase: true))")
            }
            index += 2
            let second = try hex4()
            guard (0xDC00...0xDFFF).contains(second) else {
                throw JSONParseError(offset: escapeStart, reason: "unpaired surrogate \\u\(String(first, radix: 16, uppercase: true))")
            }
            return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))!
        case 0xDC00...0xDFFF:
            throw JSONParseError(offset: escapeStart, reason: "unpaired surrogate \\u\(String(first, radix: 16, uppercase: true))")
        default:
            return Unicode.Scalar(first)!
        }
    }

    private mutating func hex4() throws(JSONParseError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count, let digit = Self.hexValue(bytes[index]) else {
                throw error("expected 4 hex digits after \\u, got \(current)")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    /// Where UTF-8 validation fails, for the error (only on the error path; linear).
    private static func firstInvalidUTF8(_ content: UnsafeBufferPointer<UInt8>) -> Int {
        var iterator = content.makeIterator()
        var decoder = UTF8()
        var offset = 0
        while case .scalarValue(let scalar) = decoder.decode(&iterator) { offset += UTF8.width(scalar) }
        return offset
    }

    // MARK: Reading

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): index += 1
            default: return
            }
        }
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// The byte at the current index, for messages: `"]"`, `0x07`, or `the end`.
    private var current: String {
        guard index < bytes.count else { return "the end" }
        let byte = bytes[index]
        return (0x20..<0x7F).contains(byte) ? "\"\(Character(Unicode.Scalar(byte)))\"" : "0x" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
    }

    private func error(_ reason: String) -> JSONParseError {
        JSONParseError(offset: index, reason: reason)
    }
}
