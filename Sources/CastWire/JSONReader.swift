/// A problem found while reading a JSON document, and where it is.
package struct JSONReadError: Error, Sendable, Equatable, CustomStringConvertible {
    package var path: JSONPath
    package var message: String

    package init(path: JSONPath, message: String) {
        self.path = path
        self.message = message
    }

    /// `media.tracks[2].trackId: expected an integer, got "2"`.
    package var description: String { path.isRoot ? message : "\(path): \(message)" }
}

/// Reads typed values out of a JSON document and knows where it is while doing so, so
/// every refusal names its path: `media.tracks[2].trackId: expected an integer, got "2"`.
///
/// The one reader of the project: the receiver and media namespaces read requests with it
/// and the scenario parser reads files with it. Requests stop at the first problem (a
/// sender gets one error reply); the scenario parser catches each error and goes on, so a
/// file's every problem is listed at once.
package struct JSONReader: Sendable {
    package let value: JSONValue
    package let path: JSONPath
    /// In sender payloads a JSON null reads as absent: pychromecast sends
    /// `"sessionId": null`, go-chromecast `"customData": null`. Scenario files are strict.
    package let nullIsAbsent: Bool

    package init(_ value: JSONValue, at path: JSONPath = .root, nullIsAbsent: Bool = false) {
        self.value = value
        self.path = path
        self.nullIsAbsent = nullIsAbsent
    }

    // MARK: Where

    /// The member `key` of an object; nil when this is not an object, when the key is
    /// absent, and (sender payloads) when it is null.
    package subscript(key: String) -> JSONReader? {
        guard case .object(let members) = value, let member = members[key] else { return nil }
        if nullIsAbsent, case .null = member { return nil }
        return JSONReader(member, at: path.appending(key), nullIsAbsent: nullIsAbsent)
    }

    /// The member `key`, which must be there.
    package func required(_ key: String, _ what: String) throws(JSONReadError) -> JSONReader {
        guard case .object = value else { throw expected("an object") }
        guard let member = self[key] else {
            throw JSONReadError(path: path.appending(key), message: "missing; expected \(what)")
        }
        return member
    }

    /// An error at this place.
    package func error(_ message: String) -> JSONReadError {
        JSONReadError(path: path, message: message)
    }

    /// `expected <what>, got <what this is>`.
    package func expected(_ what: String) -> JSONReadError {
        error("expected \(what), got \(Self.describe(value))")
    }

    /// What a value is, for "got ..." in messages: strings quoted (escaped, long ones cut),
    /// scalars with their value, containers by kind.
    package static func describe(_ value: JSONValue) -> String {
        switch value {
        case .string(let text):
            let shown = text.count > 64 ? String(text.prefix(64)) + "…" : text
            return JSONValue.string(shown).jsonText()
        case .null: return "null"
        case .number, .bool: return "\(value.typeName) (\(value.jsonText()))"
        case .array, .object: return value.typeName
        }
    }

    // MARK: Typed values

    package func string(nonEmpty: Bool = false) throws(JSONReadError) -> String {
        guard case .string(let text) = value, !nonEmpty || !text.isEmpty else {
            throw expected(nonEmpty ? "a non-empty string" : "a string")
        }
        return text
    }

    package func bool() throws(JSONReadError) -> Bool {
        guard case .bool(let flag) = value else { throw expected("true or false") }
        return flag
    }

    /// A finite number.
    package func double() throws(JSONReadError) -> Double {
        guard case .number(let number) = value, number.isFinite else { throw expected("a number") }
        return number
    }

    /// A number within `range`.
    package func double(in range: ClosedRange<Double>) throws(JSONReadError) -> Double {
        let number = try double()
        guard range.contains(number) else {
            throw error("expected a number from \(NumberText.format(range.lowerBound)) to \(NumberText.format(range.upperBound)), got \(NumberText.format(number))")
        }
        return number
    }

    /// A number with no fractional part that fits an `Int` exactly.
    package func int() throws(JSONReadError) -> Int {
        guard let number = value.intValue else { throw expected("an integer") }
        return number
    }

    package func int(minimum: Int) throws(JSONReadError) -> Int {
        let number = try int()
        guard number >= minimum else { throw error("expected an integer >= \(minimum), got \(number)") }
        return number
    }

    package func int(in range: ClosedRange<Int>) throws(JSONReadError) -> Int {
        let number = try int()
        guard range.contains(number) else {
            throw error("expected an integer from \(range.lowerBound) to \(range.upperBound), got \(number)")
        }
        return number
    }

    package func object() throws(JSONReadError) -> [String: JSONValue] {
        guard case .object(let members) = value else { throw expected("an object") }
        return members
    }

    /// The elements, each with its own path.
    package func array() throws(JSONReadError) -> [JSONReader] {
        guard case .array(let elements) = value else { throw expected("an array") }
        var readers: [JSONReader] = []
        readers.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            readers.append(JSONReader(element, at: path.appending(index), nullIsAbsent: nullIsAbsent))
        }
        return readers
    }

    package func intArray() throws(JSONReadError) -> [Int] {
        guard case .array(let elements) = value else { throw expected("an array of integers") }
        var numbers: [Int] = []
        numbers.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            guard let number = element.intValue else {
                throw JSONReader(element, at: path.appending(index)).expected("an integer")
            }
            numbers.append(number)
        }
        return numbers
    }

    /// One of a fixed set of strings, by raw value.
    package func oneOf<Choice: RawRepresentable & CaseIterable>(_: Choice.Type) throws(JSONReadError) -> Choice
    where Choice.RawValue == String {
        let text = try oneOf(Choice.allCases.map(\.rawValue))
        return Choice.allCases.first { $0.rawValue == text }!
    }

    /// One of `choices`.
    @discardableResult
    package func oneOf(_ choices: [String]) throws(JSONReadError) -> String {
        guard case .string(let text) = value, choices.contains(text) else {
            throw expected("one of \(choices.map { JSONValue.string($0).jsonText() }.joined(separator: ", "))")
        }
        return text
    }

    // MARK: Optional members

    /// Reads the member `key` with `read` when it is there (and, in sender payloads, not null).
    package func optional<T, E: Error>(_ key: String, _ read: (JSONReader) throws(E) -> T) throws(E) -> T? {
        guard let member = self[key] else { return nil }
        return try read(member)
    }

    package func optionalString(_ key: String) throws(JSONReadError) -> String? {
        try optional(key) { reader throws(JSONReadError) in try reader.string() }
    }

    package func optionalInt(_ key: String) throws(JSONReadError) -> Int? {
        try optional(key) { reader throws(JSONReadError) in try reader.int() }
    }

    package func optionalDouble(_ key: String) throws(JSONReadError) -> Double? {
        try optional(key) { reader throws(JSONReadError) in try reader.double() }
    }

    package func optionalBool(_ key: String) throws(JSONReadError) -> Bool? {
        try optional(key) { reader throws(JSONReadError) in try reader.bool() }
    }

    package func optionalObject(_ key: String) throws(JSONReadError) -> JSONReader? {
        try optional(key) { reader throws(JSONReadError) in
            _ = try reader.object()
            return reader
        }
    }

    package func optionalIntArray(_ key: String) throws(JSONReadError) -> [Int]? {
        try optional(key) { reader throws(JSONReadError) in try reader.intArray() }
    }
}
