import CastWire

/// Pieces of a scenario read on their own, with the scenario file's syntax and messages:
/// what the control API takes (`act` is one timeline step without its trigger, `verify`
/// an expectation's pattern), so there is one way to say each thing.
package enum ScenarioFragment {
    /// One timeline action: an object with exactly one action key (`{"remote": "pause"}`).
    /// A step's `at` or `after` is refused: the action happens now.
    package static func action(_ json: JSONValue) throws(ScenarioValidationError) -> TimelineStep.Action {
        try read(json) { parser, root in
            guard let members = parser.reader.members(root, allowed: Set(ScenarioKeys.actions)) else { return nil }
            let present = ScenarioKeys.actions.filter { members[$0] != nil }
            guard present.count == 1, let key = present.first, let member = root[key] else {
                parser.reader.fail(root, present.isEmpty
                    ? "no action; expected one of \(ScenarioKeys.actions.joined(separator: ", "))"
                    : "has \(present.count) actions (\(present.joined(separator: ", "))); one request does one thing")
                return nil
            }
            return parser.action(key, member)
        }
    }

    /// A message pattern, as expectations and rules write it.
    package static func pattern(_ json: JSONValue, at path: JSONPath = .root) throws(ScenarioValidationError) -> MessagePattern {
        try read(json, at: path) { parser, root in parser.pattern(root) }
    }

    private static func read<T>(_ json: JSONValue, at path: JSONPath = .root, _ body: (ScenarioParser, JSONReader) -> T?)
        throws(ScenarioValidationError) -> T
    {
        let reader = JSONChecker()
        let value = body(ScenarioParser(reader: reader), JSONReader(json, at: path))
        guard reader.isClean, let value else {
            throw ScenarioValidationError(file: nil, issues: reader.issues.isEmpty
                ? [ScenarioIssue(path: path.description, message: "not understood")] : reader.issues)
        }
        return value
    }
}
