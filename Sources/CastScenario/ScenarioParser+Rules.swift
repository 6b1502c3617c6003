import CastDevice
import CastWire

// Rules on incoming messages, expectations, and the message patterns both use.

extension ScenarioParser {
    // MARK: rules and expectations

    func rule(_ value: JSONReader) -> Rule? {
        guard reader.members(value, allowed: ScenarioKeys.rule) != nil else { return nil }
        let pattern = reader.read { try value.required("match", "a message pattern") }.flatMap(pattern)
        let times = reader.read(value["times"]) { try $0.int(minimum: 1) }
        let occurrence = reader.read(value["occurrence"]) { try $0.int(minimum: 1) }
        let name = reader.read(value["name"]) { try $0.string(nonEmpty: true) } ?? value.path.description
        let kind = reader.read {
            try value.required("action", "\"reply\", \"replyAlso\", \"respond\", \"delay\" or \"drop\"")
                .oneOf(["reply", "replyAlso", "respond", "delay", "drop"])
        }
        var action: Rule.Action?
        switch kind {
        case "reply", "replyAlso":
            if let reply = reader.read({ try value.required("reply", "the JSON object to answer with") }) {
                if reply.value["type"]?.stringValue == nil {
                    reader.fail(reply, "expected an object with a \"type\"")
                } else {
                    action = kind == "reply" ? .reply(reply.value) : .replyAlso(reply.value)
                }
            }
        case "delay":
            action = reader.read { try value.required("delay", "how long, e.g. \"2s\"").duration(allowZero: false) }
                .map(Rule.Action.delay)
        case "drop":
            action = .drop
        case "respond":
            if let list = reader.read({ try value.required("respond", "the messages to answer with").array() }) {
                if list.isEmpty { reader.fail(value["respond"]!, "expected at least one message") }
                let responses = list.compactMap(response)
                if responses.count == list.count, !responses.isEmpty { action = .respond(responses) }
            }
        default:
            break
        }
        for key in ["reply", "delay", "respond"] where value[key] != nil && kind != nil && kind != key && !(key == "reply" && kind == "replyAlso") {
            reader.fail(value[key]!, "goes with \"action\": \"\(key)\", not \"\(kind!)\"")
        }
        guard let pattern, let action else { return nil }
        return Rule(name: name, pattern: pattern, action: action, times: times, occurrence: occurrence)
    }

    /// One message of a `respond` rule: `{"after": "2s", "payload": {...}}`, optionally
    /// `namespace`, `from`, `sender` (the destination endpoint) and `"to": "all"`.
    private func response(_ value: JSONReader) -> Rule.Response? {
        guard reader.members(value, allowed: ScenarioKeys.response) != nil else { return nil }
        let after = reader.read(value["after"]) { try $0.duration(allowZero: true) } ?? 0
        let payload = reader.read { try value.required("payload", "the JSON object to send") }
        if let payload, payload.value["type"]?.stringValue == nil {
            reader.fail(payload, "expected an object with a \"type\"")
            return nil
        }
        var namespace: String?
        if let member = value["namespace"], let name = reader.read({ try member.string(nonEmpty: true) }) {
            namespace = MessagePattern.namespace(name)
        }
        let source = reader.read(value["from"]) { try $0.string(nonEmpty: true) }
        let destination = reader.read(value["sender"]) { try $0.string(nonEmpty: true) }
        let to = reader.read(value["to"]) { try $0.oneOf(["sender", "all"]) }
        guard let payload else { return nil }
        return Rule.Response(after: after, namespace: namespace, source: source, destination: destination, toAll: to == "all",
                             payload: payload.value)
    }

    func expectation(_ value: JSONReader) -> Expectation? {
        guard let members = reader.members(value, allowed: ScenarioKeys.expectation) else { return nil }
        let name = reader.read { try value.required("name", "a name for the report").string(nonEmpty: true) }
        let within = reader.read(value["within"]) { try $0.duration(allowZero: false) }
        let kinds = ["message", "sequence", "never", "streaming"].filter { members[$0] != nil }
        guard kinds.count == 1, let key = kinds.first, let member = value[key] else {
            reader.fail(value, kinds.isEmpty ? "expected one of message, sequence, never, streaming" : "has \(kinds.joined(separator: " and ")); expected exactly one")
            return nil
        }
        var kind: Expectation.Kind?
        switch key {
        case "message": kind = pattern(member).map(Expectation.Kind.message)
        case "never": kind = pattern(member).map(Expectation.Kind.never)
        case "streaming": kind = streamingCondition(member).map(Expectation.Kind.streaming)
        default:
            guard let items = reader.read({ try member.array() }) else { break }
            if items.isEmpty { reader.fail(member, "expected at least one pattern") }
            let patterns = items.compactMap(pattern)
            if patterns.count == items.count, !patterns.isEmpty { kind = .sequence(patterns) }
        }
        guard let name, let kind else { return nil }
        return Expectation(name: name, kind: kind, within: within)
    }

    /// `{"kind": "video", "framesReceived": {"$gte": 100}}`: predicates on one stream's figures.
    private func streamingCondition(_ value: JSONReader) -> StreamingCondition? {
        guard let members = reader.members(value, allowed: StreamingCondition.keys) else { return nil }
        if members.isEmpty {
            reader.fail(value, "expected at least one of a stream's figures, e.g. {\"kind\": \"video\", \"framesReceived\": {\"$gte\": 100}}")
            return nil
        }
        var fields: [(key: String, predicate: FieldPredicate)] = []
        for key in members.keys.sorted() {
            guard let member = value[key] else { continue }
            // `members` reported the other unknown keys, and lets "$" keys through (they are
            // operators in a pattern); here they are not.
            guard StreamingCondition.keys.contains(key) else {
                if key.hasPrefix("$") { reader.fail(member, "unknown key; expected one of \(StreamingCondition.keys.sorted().joined(separator: ", "))") }
                continue
            }
            if let predicate = predicate(member) { fields.append((key, predicate)) }
        }
        return fields.count == members.count ? StreamingCondition(fields: fields) : nil
    }

    // MARK: patterns

    func pattern(_ value: JSONReader) -> MessagePattern? {
        guard reader.members(value, allowed: ScenarioKeys.pattern) != nil else { return nil }
        var pattern = MessagePattern()
        if let member = value["namespace"], let namespace = reader.read({ try member.string(nonEmpty: true) }) {
            pattern.namespace = MessagePattern.namespace(namespace)
            if MessagePattern.namespaceAliases[namespace] == nil, !namespace.hasPrefix("urn:x-cast:") {
                reader.fail(member,
                            "expected \"urn:x-cast:...\" or one of \(MessagePattern.namespaceAliases.keys.sorted().joined(separator: ", ")), got \"\(namespace)\"")
            }
        }
        pattern.type = reader.read(value["type"]) { try $0.string(nonEmpty: true) }
        pattern.sourceId = reader.read(value["from"]) { try $0.string(nonEmpty: true) }
        pattern.destinationId = reader.read(value["to"]) { try $0.string(nonEmpty: true) }
        if let fields = value["fields"], let members = reader.read({ try fields.object() }) {
            for key in members.keys.sorted() {
                guard let field = fields[key] else { continue }
                if let problem = MessagePattern.pathProblem(key) {
                    reader.fail(field, problem)
                    continue
                }
                if let predicate = predicate(field) { pattern.fields.append((key, predicate)) }
            }
        }
        return pattern
    }

    private func predicate(_ value: JSONReader) -> FieldPredicate? {
        guard case .object(let members) = value.value, let op = members.keys.first, op.hasPrefix("$") else {
            return .equals(value.value)
        }
        guard members.count == 1, let operand = value[op] else {
            reader.fail(value, "expected one $ operator, got \(members.keys.sorted().joined(separator: ", "))")
            return nil
        }
        switch op {
        case "$eq": return .equals(operand.value)
        case "$ne": return .notEquals(operand.value)
        case "$exists": return reader.read { try operand.bool() }.map(FieldPredicate.exists)
        case "$regex":
            guard let text = reader.read({ try operand.string() }) else { return nil }
            guard let regex = CompiledRegex(text) else {
                reader.fail(operand, "not a valid regular expression: \"\(text)\"")
                return nil
            }
            return .matches(regex)
        case "$contains": return .contains(operand.value)
        case "$gt", "$gte":
            return reader.read { try operand.double() }.map { .greaterThan($0, orEqual: op == "$gte") }
        case "$lt", "$lte":
            return reader.read { try operand.double() }.map { .lessThan($0, orEqual: op == "$lte") }
        case "$in": return reader.read { try operand.array() }.map { .oneOf($0.map(\.value)) }
        default:
            reader.fail(value, "unknown operator \(op); expected one of $eq, $ne, $exists, $regex, $contains, $gt, $gte, $lt, $lte, $in")
            return nil
        }
    }
}
