import CastWire

/// Walks a scenario's JSON, reading typed values and collecting every problem with its
/// path, so one run of `castsim validate` reports all of them.
final class ScenarioReader {
    private(set) var issues: [ScenarioIssue] = []

    func fail(_ path: String, _ message: String) {
        issues.append(ScenarioIssue(path: path, message: message))
    }

    /// `got "5 sec"`, `got a number (5)`, ... for error messages.
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): "\"\(text)\""
        case .number, .bool, .null: "\(value.typeName) (\(value.jsonText()))"
        default: value.typeName
        }
    }

    static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
    static func join(_ path: String, _ index: Int) -> String { "\(path)[\(index)]" }

    /// The members of an object, reporting keys outside `allowed` (typos are the most
    /// common mistake in hand-written files).
    func object(_ value: JSONValue?, at path: String, allowed: Set<String>? = nil) -> [String: JSONValue]? {
        guard let value else { return nil }
        guard let members = value.objectValue else {
            fail(path, "expected an object, got \(Self.describe(value))")
            return nil
        }
        if let allowed {
            for key in members.keys.sorted() where !allowed.contains(key) && !key.hasPrefix("$") {
                fail(Self.join(path, key), "unknown key; expected one of \(allowed.sorted().joined(separator: ", "))")
            }
        }
        return members
    }

    func array(_ value: JSONValue?, at path: String) -> [JSONValue]? {
        guard let value else { return nil }
        guard let items = value.arrayValue else {
            fail(path, "expected an array, got \(Self.describe(value))")
            return nil
        }
        return items
    }

    func string(_ value: JSONValue?, at path: String, nonEmpty: Bool = false) -> String? {
        guard let value else { return nil }
        guard let text = value.stringValue, !nonEmpty || !text.isEmpty else {
            fail(path, "expected a \(nonEmpty ? "non-empty " : "")string, got \(Self.describe(value))")
            return nil
        }
        return text
    }

    func bool(_ value: JSONValue?, at path: String) -> Bool? {
        guard let value else { return nil }
        guard let flag = value.boolValue else {
            fail(path, "expected true or false, got \(Self.describe(value))")
            return nil
        }
        return flag
    }

    func number(_ value: JSONValue?, at path: String, range: ClosedRange<Double>? = nil) -> Double? {
        guard let value else { return nil }
        guard let number = value.doubleValue, number.isFinite else {
            fail(path, "expected a number, got \(Self.describe(value))")
            return nil
        }
        if let range, !range.contains(number) {
            fail(path, "expected a number from \(range.lowerBound.compact) to \(range.upperBound.compact), got \(number.compact)")
            return nil
        }
        return number
    }

    func integer(_ value: JSONValue?, at path: String, minimum: Int? = nil) -> Int? {
        guard let value else { return nil }
        guard let number = value.intValue else {
            fail(path, "expected an integer, got \(Self.describe(value))")
            return nil
        }
        if let minimum, number < minimum {
            fail(path, "expected an integer >= \(minimum), got \(number)")
            return nil
        }
        return number
    }

    /// A duration string ("250ms", "5s", "1h30m") in seconds.
    func duration(_ value: JSONValue?, at path: String, allowZero: Bool = true) -> Double? {
        guard let value else { return nil }
        guard let text = value.stringValue, let seconds = ScenarioDuration.parse(text), allowZero || seconds > 0 else {
            fail(path, "expected a duration like \"5s\"\(allowZero ? "" : " (more than 0)"), got \(Self.describe(value))")
            return nil
        }
        return seconds
    }

    /// One of a fixed set of strings.
    func choice(_ value: JSONValue?, at path: String, _ choices: [String]) -> String? {
        guard let value else { return nil }
        guard let text = value.stringValue, choices.contains(text) else {
            fail(path, "expected one of \(choices.map { "\"\($0)\"" }.joined(separator: ", ")), got \(Self.describe(value))")
            return nil
        }
        return text
    }

    func required(_ members: [String: JSONValue], _ key: String, at path: String, what: String) -> JSONValue? {
        guard let value = members[key] else {
            fail(Self.join(path, key), "missing; expected \(what)")
            return nil
        }
        return value
    }
}

extension Double {
    /// 5.0 → "5", 0.25 → "0.25".
    var compact: String { self == rounded() && abs(self) < 1e15 ? "\(Int(self))" : "\(self)" }
}
