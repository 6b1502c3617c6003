/// One problem in a scenario file: where (a JSON path like `timeline[3].after.delay`)
/// and what was expected.
public struct ScenarioIssue: Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

/// A scenario file that cannot be run, with every problem found in it.
public struct ScenarioValidationError: Error, Sendable, CustomStringConvertible {
    public var file: String?
    public var issues: [ScenarioIssue]

    public var description: String {
        let header = "\(file.map { "\($0): " } ?? "")\(issues.count) problem\(issues.count == 1 ? "" : "s")"
        return ([header] + issues.map { "  \($0)" }).joined(separator: "\n")
    }
}
