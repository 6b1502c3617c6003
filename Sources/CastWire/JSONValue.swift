import Foundation

/// A JSON value kept as the sender wrote it, for fields the receiver must echo verbatim
/// (`customData`, `metadata`, unknown keys of `media`) and for reading loosely typed payloads.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension JSONValue {
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// An array's element; nil past its end or for a value that is no array.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var doubleValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The value as an integer, when it is a number without a fractional part.
    public var intValue: Int? {
        guard case .number(let value) = self, value.rounded() == value, abs(value) < 9.0e15 else { return nil }
        return Int(value)
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    public var isNull: Bool { self == .null }

    /// The object with `key` set to `value` (other values are returned unchanged).
    public func replacing(_ key: String, with value: JSONValue) -> JSONValue {
        guard case .object(var members) = self else { return self }
        members[key] = value
        return .object(members)
    }

    /// The object without `key` (other values are returned unchanged).
    public func removing(_ key: String) -> JSONValue {
        guard case .object(var members) = self else { return self }
        members.removeValue(forKey: key)
        return .object(members)
    }

    /// A short name of the JSON type, for error messages ("expected a number, got a string").
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue {
    /// Parses JSON text within the limits of a sender's payload (``JSONLimits/castPayload``).
    /// Fragments (a bare number or string) are accepted; callers that need an object check
    /// for one. Throws ``JSONParseError``.
    public static func parse(_ text: String) throws -> JSONValue {
        try text.withUTF8Bytes { bytes throws(JSONParseError) in try JSONParser.parse(bytes, limits: .castPayload) }
    }

    /// Parses UTF-8 JSON bytes within `limits`.
    package static func parse(_ data: some ContiguousBytes, limits: JSONLimits) throws(JSONParseError) -> JSONValue {
        let result: Result<JSONValue, JSONParseError> = data.withUnsafeBytes { raw in
            Result { () throws(JSONParseError) -> JSONValue in
                try JSONParser.parse(raw.assumingMemoryBound(to: UInt8.self), limits: limits)
            }
        }
        return try result.get()
    }

    /// Compact JSON text with sorted keys, so equal values encode to equal bytes.
    ///
    /// Written by hand rather than with JSONEncoder: every status the device sends goes
    /// through here, and this is several times faster.
    public func jsonText() -> String {
        JSONValue.encodingCounter?.count()
        var output: [UInt8] = []
        output.reserveCapacity(512)
        write(to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// JSON text for a person: one member or element a line, indented two spaces a level,
    /// keys sorted; empty arrays and objects stay `[]` and `{}`.
    package func indentedJSONText() -> String {
        var output: [UInt8] = []
        writeIndented(to: &output, depth: 0)
        return String(decoding: output, as: UTF8.self)
    }

    private func writeIndented(to output: inout [UInt8], depth: Int) {
        func newline(_ depth: Int) {
            output.append(UInt8(ascii: "\n"))
            output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
        }
        switch self {
        case .array(let values) where !values.isEmpty:
            output.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                newline(depth + 1)
                value.writeIndented(to: &output, depth: depth + 1)
            }
            newline(depth)
            output.append(UInt8(ascii: "]"))
        case .object(let members) where !members.isEmpty:
            output.append(UInt8(ascii: "{"))
            for (index, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                newline(depth + 1)
                Self.writeString(member.key, to: &output)
                output.append(contentsOf: ": ".utf8)
                member.value.writeIndented(to: &output, depth: depth + 1)
            }
            newline(depth)
            output.append(UInt8(ascii: "}"))
        default:
            write(to: &output)
        }
    }

    /// Writes into bytes, not a String: appending to a String checks its storage and
    /// flags on every append, which was most of the cost of encoding a status.
    package func write(to output: inout [UInt8]) {
        switch self {
        case .null:
            output.append(contentsOf: "null".utf8)
        case .bool(let value):
            output.append(contentsOf: value ? "true".utf8 : "false".utf8)
        case .number(let value):
            Self.writeNumber(value, to: &output)
        case .string(let value):
            Self.writeString(value, to: &output)
        case .array(let values):
            output.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                value.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            // Sorted once as pairs: no hashing to look each value up again.
            for (index, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.writeString(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                member.value.write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    package static func writeNumber(_ value: Double, to output: inout [UInt8]) {
        guard value.isFinite else {
            output.append(contentsOf: "null".utf8)  // JSON has no NaN or infinity
            return
        }
        // Ids, counts, levels of 0 and 1: integers, written digit by digit without a String
        // (up to 2^53, as NumberText.format has it: 16 digits at most).
        if value == value.rounded(), abs(value) < 9.007_199_254_740_992e15 {
            var integer = Int64(value)
            if integer < 0 {
                output.append(UInt8(ascii: "-"))
                integer = -integer
            }
            var digits: (UInt64, UInt64) = (0, 0)  // 16 bytes of scratch, no allocation
            withUnsafeMutableBytes(of: &digits) { scratch in
                var index = scratch.count
                repeat {
                    index -= 1
                    scratch[index] = UInt8(ascii: "0") + UInt8(integer % 10)
                    integer /= 10
                } while integer > 0
                output.append(contentsOf: scratch[index...])
            }
            return
        }
        // Times in seconds to the nanosecond (every line of a recording has one), digit by
        // digit. Swift's shortest text of such a value is its nine decimals without the
        // zeros at the end: within 1e-4...1e6 (no exponent) it has at most 15 significant
        // digits, and no two decimals of 15 digits or fewer are the same Double.
        let magnitude = abs(value)
        let nanoseconds = (magnitude * 1e9).rounded()
        if magnitude >= 1e-4, magnitude < 1e6, nanoseconds / 1e9 == magnitude {
            if value < 0 { output.append(UInt8(ascii: "-")) }
            writeDecimal(nanoseconds: UInt64(nanoseconds), to: &output)
            return
        }
        // The rest as NumberText.format writes them (Swift's shortest text that reads back
        // as the same Double), through a sink over the bytes: a String for each cost an
        // allocation, and every line of a recording has its time.
        var sink = ByteSink()
        swap(&sink.bytes, &output)
        value.write(to: &sink)
        swap(&sink.bytes, &output)
    }

    /// `nanoseconds` (not a whole number of seconds, below 10^15) as seconds with a fraction:
    /// `1.25`, `0.000123`.
    private static func writeDecimal(nanoseconds: UInt64, to output: inout [UInt8]) {
        var scratch: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes of scratch, no allocation
        withUnsafeMutableBytes(of: &scratch) { raw in
            let digits = raw.bindMemory(to: UInt8.self)
            var rest = nanoseconds
            var index = digits.count
            var end = index
            for place in 0..<9 {  // the fraction, right to left; its zeros at the end dropped
                let digit = UInt8(rest % 10)
                rest /= 10
                index -= 1
                digits[index] = UInt8(ascii: "0") + digit
                if digit == 0, end == index + 1, place < 8 { end = index }
            }
            index -= 1
            digits[index] = UInt8(ascii: ".")
            repeat {
                index -= 1
                digits[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            output.append(contentsOf: UnsafeBufferPointer(rebasing: digits[index..<end]))
        }
    }

    package static func writeString(_ value: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        value.withUTF8Bytes { writeEscaped($0, to: &output) }
        output.append(UInt8(ascii: "\""))
    }

    /// A string's UTF-8 bytes, escaped as JSON wants them, without the quotes.
    private static func writeEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        // Most strings (ids, types, URLs, titles) need no escape: copied whole.
        var start = 0
        while true {
            let index = JSONEscapeScan.firstEscaped(in: bytes, from: start)
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
            guard index < bytes.count else { return }
            let byte = bytes[index]
            start = index + 1
            output.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""): output.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): output.append(UInt8(ascii: "\\"))
            case UInt8(ascii: "\n"): output.append(UInt8(ascii: "n"))
            case UInt8(ascii: "\r"): output.append(UInt8(ascii: "r"))
            case UInt8(ascii: "\t"): output.append(UInt8(ascii: "t"))
            case 0x08: output.append(UInt8(ascii: "b"))
            case 0x0C: output.append(UInt8(ascii: "f"))
            default:
                let hex = Array("0123456789abcdef".utf8)
                output.append(contentsOf: "u00".utf8)
                output.append(hex[Int(byte >> 4)])
                output.append(hex[Int(byte & 0x0F)])
            }
        }
    }
}

extension JSONValue {
    /// Counts the JSON texts written in the current task, so a test can check that a
    /// message is encoded once. In every build (CI tests the release build it ships):
    /// when no counter is bound, the cost is one task-local read.
    @TaskLocal package static var encodingCounter: EncodingCounter?
}

/// A count that the task it is bound to bumps; read after the work is done.
package final class EncodingCounter: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value = 0

    package init() {}

    package func count() {
        lock.lock()
        value += 1
        lock.unlock()
    }

    package var total: Int {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}
