import CastWire

/// Reads a scenario's JSON with the project's one ``JSONReader``, but goes on past a
/// problem: each is recorded with its path, so one run of `castsim validate` reports all.
final class ScenarioReader {
    private(set) var issues: [ScenarioIssue] = []

    func record(_ error: JSONReadError) {
        issues.append(ScenarioIssue(path: error.path.description, message: error.message))
    }

    func fail(_ reader: JSONReader, _ message: String) { record(reader.error(message)) }

    func fail(path: String, _ message: String) { issues.append(ScenarioIssue(path: path, message: message)) }

    /// Runs one read: its value, or nil with the problem recorded.
    func read<T>(_ body: () throws -> T) -> T? {
        do {
            return try body()
        } catch let error as JSONReadError {
            record(error)
        } catch {
            issues.append(ScenarioIssue(path: "", message: "\(error)"))
        }
        return nil
    }

    /// Reads a member that may be absent: nil when it is, or when it has a problem (recorded).
    func read<T>(_ member: JSONReader?, _ body: (JSONReader) throws -> T) -> T? {
        guard let member else { return nil }
        return read { try body(member) }
    }

    /// The members of an object whose keys must be among `allowed`; an unknown key is
    /// recorded and the rest are still read.
    func members(_ reader: JSONReader, allowed: Set<String>) -> [String: JSONValue]? {
        guard let members = read({ try reader.object() }) else { return nil }
        for key in members.keys.sorted() where !allowed.contains(key) && !key.hasPrefix("$") {
            record(JSONReadError(path: reader.path.appending(key),
                                 message: "unknown key; expected one of \(allowed.sorted().joined(separator: ", "))"))
        }
        return members
    }
}
