import CastDevice
import CastWire
import Foundation

/// Which messages a rule or an expectation is about: namespace, type, endpoints and
/// predicates on JSON fields of the payload.
public struct MessagePattern: Sendable, Equatable {
    public var namespace: String?
    public var type: String?
    public var sourceId: String?
    public var destinationId: String?
    /// Dotted paths into the payload (`media.contentId`, `items[0].autoplay`) and what
    /// their value must satisfy.
    public var fields: [(path: String, predicate: FieldPredicate)]

    public init(namespace: String? = nil, type: String? = nil, sourceId: String? = nil, destinationId: String? = nil,
                fields: [(path: String, predicate: FieldPredicate)] = []) {
        self.namespace = namespace
        self.type = type
        self.sourceId = sourceId
        self.destinationId = destinationId
        self.fields = fields
    }

    public static func == (lhs: MessagePattern, rhs: MessagePattern) -> Bool {
        lhs.namespace == rhs.namespace && lhs.type == rhs.type && lhs.sourceId == rhs.sourceId
            && lhs.destinationId == rhs.destinationId && lhs.fields.map(\.path) == rhs.fields.map(\.path)
            && lhs.fields.map(\.predicate) == rhs.fields.map(\.predicate)
    }

    public func matches(_ envelope: CastEnvelope, payload: JSONValue?) -> Bool {
        score(envelope, payload: payload) == maximumScore
    }

    /// How many of the pattern's conditions a message meets, to find the "closest"
    /// message when an expectation fails.
    func score(_ envelope: CastEnvelope, payload: JSONValue?) -> Int {
        var score = 0
        if namespace == nil || namespace == envelope.namespace { score += 1 }
        if sourceId == nil || sourceId == envelope.sourceId { score += 1 }
        if destinationId == nil || destinationId == envelope.destinationId { score += 1 }
        if type == nil || (payload?["type"]?.stringValue == type) { score += 1 }
        for (path, predicate) in fields where predicate.holds(for: payload.flatMap { Self.value(at: path, in: $0) }) {
            score += 1
        }
        return score
    }

    var maximumScore: Int { 4 + fields.count }

    /// Why `path` is no path ``value(at:in:)`` can follow, or nil: member names between dots,
    /// none empty, each with any number of `[N]` after it (N from 0). Checked when a scenario
    /// is read: `items[-1]` or `a..b` would quietly match nothing, or something else.
    static func pathProblem(_ path: String) -> String? {
        let expected = "expected member names between dots, each maybe followed by [N] indices from 0, e.g. items[0].media.contentId"
        guard !path.isEmpty else { return "an empty path; \(expected)" }
        for component in path.split(separator: ".", omittingEmptySubsequences: false) {
            guard !component.isEmpty else { return "\"\(path)\" has an empty member name; \(expected)" }
            var rest = component.drop { $0 != "[" && $0 != "]" }
            guard rest.count < component.count || rest.first == "[" else { return "\"\(path)\": \(expected)" }
            while !rest.isEmpty {
                guard rest.first == "[", let close = rest.firstIndex(of: "]"),
                      let index = Int(rest[rest.index(after: rest.startIndex)..<close]), index >= 0,
                      !rest[rest.index(after: rest.startIndex)..<close].hasPrefix("+")
                else { return "\"\(path)\": \(expected)" }
                rest = rest[rest.index(after: close)...]
            }
        }
        return nil
    }

    /// The value at a dotted path with optional indices: `items[0].media.contentId`.
    static func value(at path: String, in root: JSONValue) -> JSONValue? {
        var current: JSONValue? = root
        for component in path.split(separator: ".") {
            var name = Substring(component)
            var indices: [Int] = []
            while name.hasSuffix("]"), let open = name.lastIndex(of: "[") {
                guard let index = Int(name[name.index(after: open)..<name.index(before: name.endIndex)]) else { return nil }
                indices.insert(index, at: 0)
                name = name[..<open]
            }
            if !name.isEmpty { current = current?[String(name)] }
            for index in indices {
                guard let array = current?.arrayValue, array.indices.contains(index) else { return nil }
                current = array[index]
            }
        }
        return current
    }

    /// The short names scenario files may use for the Cast namespaces, and for the apps'.
    public static let namespaceAliases: [String: String] = [
        "connection": CastNamespace.connection, "heartbeat": CastNamespace.heartbeat,
        "deviceauth": CastNamespace.deviceAuth, "receiver": CastNamespace.receiver, "media": CastNamespace.media,
    ].merging(AppRegistry.builtIn.namespaceAliases) { own, _ in own }

    /// The namespace a short name stands for; any other text as it is.
    public static func namespace(_ text: String) -> String { namespaceAliases[text] ?? text }
}

/// What a field's value must be. A plain JSON value means "equals"; an object with one
/// `$` operator says more (`{"$exists": false}`, `{"$gt": 10}`, `{"$regex": "^http"}`).
public enum FieldPredicate: Sendable, Equatable {
    case equals(JSONValue)
    case notEquals(JSONValue)
    case exists(Bool)
    case matches(CompiledRegex)
    case contains(JSONValue)
    case greaterThan(Double, orEqual: Bool)
    case lessThan(Double, orEqual: Bool)
    case oneOf([JSONValue])

    public func holds(for value: JSONValue?) -> Bool {
        switch self {
        case .equals(let expected): value == expected
        case .notEquals(let unexpected): value != unexpected
        case .exists(let shouldExist): (value != nil) == shouldExist
        case .matches(let regex): value?.stringValue.map(regex.matches) ?? false
        case .contains(let element):
            if let array = value?.arrayValue { array.contains(element) }
            else if let text = value?.stringValue, let needle = element.stringValue { text.contains(needle) }
            else { false }
        case .greaterThan(let bound, let orEqual):
            value?.doubleValue.map { orEqual ? $0 >= bound : $0 > bound } ?? false
        case .lessThan(let bound, let orEqual):
            value?.doubleValue.map { orEqual ? $0 <= bound : $0 < bound } ?? false
        case .oneOf(let values): value.map(values.contains) ?? false
        }
    }
}

/// A `$regex` operand, compiled once when the scenario is read rather than for every
/// message it is tried against.
public final class CompiledRegex: Sendable, Equatable, CustomStringConvertible {
    public let pattern: String
    let regex: NSRegularExpression

    /// nil when `pattern` is not a valid regular expression.
    public init?(_ pattern: String) {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return nil }
        self.pattern = pattern
        self.regex = regex
    }

    public func matches(_ text: String) -> Bool {
        regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    public static func == (lhs: CompiledRegex, rhs: CompiledRegex) -> Bool { lhs.pattern == rhs.pattern }

    public var description: String { pattern }
}
