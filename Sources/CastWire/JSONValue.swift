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
        var text = text
        return try text.withUTF8 { bytes throws(JSONParseError) in try JSONParser.parse(bytes, limits: .castPayload) }
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
        #if DEBUG
        JSONValue.encodingCounter?.count()
        #endif
        var output = ""
        output.reserveCapacity(256)
        write(to: &output)
        return output
    }

    private func write(to output: inout String) {
        switch self {
        case .null:
            output += "null"
        case .bool(let value):
            output += value ? "true" : "false"
        case .number(let value):
            Self.writeNumber(value, to: &output)
        case .string(let value):
            Self.writeString(value, to: &output)
        case .array(let values):
            output += "["
            for (index, value) in values.enumerated() {
                if index > 0 { output += "," }
                value.write(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            // Sorted once as pairs: no hashing to look each value up again.
            for (index, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { output += "," }
                Self.writeString(member.key, to: &output)
                output += ":"
                member.value.write(to: &output)
            }
            output += "}"
        }
    }

    private static func writeNumber(_ value: Double, to output: inout String) {
        guard value.isFinite else {
            output += "null"  // JSON has no NaN or infinity
            return
        }
        output += NumberText.format(value)
    }

    private static func writeString(_ value: String, to output: inout String) {
        output += "\""
        // Most strings (ids, types, URLs, titles) need no escape: appended whole, not a
        // scalar at a time (which was 40% of the cost of a status).
        guard value.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
            output += value
            output += "\""
            return
        }
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case _ where scalar.value < 0x20:
                output += "\\u00" + String(scalar.value, radix: 16).leftPadded(to: 2)
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}

#if DEBUG
extension JSONValue {
    /// Counts the JSON texts written in the current task, so a test can check that a
    /// message is encoded once (debug builds only).
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
#endif
