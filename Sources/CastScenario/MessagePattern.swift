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

    /// The short names scenario files may use for the Cast namespaces.
    public static let namespaceAliases: [String: String] = [
        "connection": CastNamespace.connection, "heartbeat": CastNamespace.heartbeat,
        "deviceauth": CastNamespace.deviceAuth, "receiver": CastNamespace.receiver, "media": CastNamespace.media,
    ]
}

/// What a field's value must be. A plain JSON value means "equals"; an object with one
/// `$` operator says more (`{"$exists": false}`, `{"$gt": 10}`, `{"$regex": "^http"}`).
public enum FieldPredicate: Sendable, Equatable {
    case equals(JSONValue)
    case notEquals(JSONValue)
    case exists(Bool)
    case matches(String)
    case contains(JSONValue)
    case greaterThan(Double, orEqual: Bool)
    case lessThan(Double, orEqual: Bool)
    case oneOf([JSONValue])

    public func holds(for value: JSONValue?) -> Bool {
        switch self {
        case .equals(let expected): value == expected
        case .notEquals(let unexpected): value != unexpected
        case .exists(let shouldExist): (value != nil) == shouldExist
        case .matches(let pattern):
            if let text = value?.stringValue, let regex = try? NSRegularExpression(pattern: pattern) {
                regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
            } else {
                false
            }
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

extension ScenarioReader {
    static let patternKeys: Set<String> = ["namespace", "type", "from", "to", "fields"]

    func pattern(_ value: JSONValue?, at path: String) -> MessagePattern? {
        guard let members = object(value, at: path, allowed: Self.patternKeys) else { return nil }
        var pattern = MessagePattern()
        if let namespace = string(members["namespace"], at: Self.join(path, "namespace"), nonEmpty: true) {
            pattern.namespace = MessagePattern.namespaceAliases[namespace] ?? namespace
            if MessagePattern.namespaceAliases[namespace] == nil, !namespace.hasPrefix("urn:x-cast:") {
                fail(Self.join(path, "namespace"),
                     "expected \"urn:x-cast:...\" or one of \(MessagePattern.namespaceAliases.keys.sorted().joined(separator: ", ")), got \"\(namespace)\"")
            }
        }
        pattern.type = string(members["type"], at: Self.join(path, "type"), nonEmpty: true)
        pattern.sourceId = string(members["from"], at: Self.join(path, "from"), nonEmpty: true)
        pattern.destinationId = string(members["to"], at: Self.join(path, "to"), nonEmpty: true)
        if let fields = object(members["fields"], at: Self.join(path, "fields")) {
            for key in fields.keys.sorted() {
                if let predicate = predicate(fields[key]!, at: Self.join(Self.join(path, "fields"), key)) {
                    pattern.fields.append((key, predicate))
                }
            }
        }
        return pattern
    }

    private func predicate(_ value: JSONValue, at path: String) -> FieldPredicate? {
        guard let members = value.objectValue, let op = members.keys.first, op.hasPrefix("$") else { return .equals(value) }
        guard members.count == 1, let operand = members[op] else {
            fail(path, "expected one $ operator, got \(members.keys.sorted().joined(separator: ", "))")
            return nil
        }
        let operatorPath = Self.join(path, op)
        switch op {
        case "$eq": return .equals(operand)
        case "$ne": return .notEquals(operand)
        case "$exists": return bool(operand, at: operatorPath).map(FieldPredicate.exists)
        case "$regex":
            guard let pattern = string(operand, at: operatorPath) else { return nil }
            guard (try? NSRegularExpression(pattern: pattern)) != nil else {
                fail(operatorPath, "not a valid regular expression: \"\(pattern)\"")
                return nil
            }
            return .matches(pattern)
        case "$contains": return .contains(operand)
        case "$gt", "$gte":
            return number(operand, at: operatorPath).map { .greaterThan($0, orEqual: op == "$gte") }
        case "$lt", "$lte":
            return number(operand, at: operatorPath).map { .lessThan($0, orEqual: op == "$lte") }
        case "$in": return array(operand, at: operatorPath).map(FieldPredicate.oneOf)
        default:
            fail(path, "unknown operator \(op); expected one of $eq, $ne, $exists, $regex, $contains, $gt, $gte, $lt, $lte, $in")
            return nil
        }
    }
}
