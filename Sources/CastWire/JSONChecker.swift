/// Reads a JSON document with the project's one ``JSONReader``, but goes on past a
/// problem: each is recorded with its path, so one run of `castsim validate` reports them
/// all. The scenario parser and every app's own scenario sections check files with one.
package final class JSONChecker {
    package private(set) var problems: [JSONReadError] = []

    package init() {}

    package var isClean: Bool { problems.isEmpty }

    package func record(_ error: JSONReadError) { problems.append(error) }

    package func fail(_ reader: JSONReader, _ message: String) { record(reader.error(message)) }

    package func fail(path: JSONPath, _ message: String) { record(JSONReadError(path: path, message: message)) }

    /// Runs one read: its value, or nil with the problem recorded.
    package func read<T>(_ body: () throws -> T) -> T? {
        do {
            return try body()
        } catch let error as JSONReadError {
            record(error)
        } catch {
            record(JSONReadError(path: .root, message: "\(error)"))
        }
        return nil
    }

    /// Reads a member that may be absent: nil when it is, or when it has a problem (recorded).
    package func read<T>(_ member: JSONReader?, _ body: (JSONReader) throws -> T) -> T? {
        guard let member else { return nil }
        return read { try body(member) }
    }

    /// The members of an object whose keys must be among `allowed`; an unknown key is
    /// recorded and the rest are still read.
    package func members(_ reader: JSONReader, allowed: Set<String>) -> [String: JSONValue]? {
        guard let members = read({ try reader.object() }) else { return nil }
        for key in members.keys.sorted() where !allowed.contains(key) && !key.hasPrefix("$") {
            record(JSONReadError(path: reader.path.appending(key),
                                 message: "unknown key; expected one of \(allowed.sorted().joined(separator: ", "))"))
        }
        return members
    }

    /// Reads each element of an optional array with `read`, dropping the ones with problems.
    package func elements<T>(_ array: JSONReader?, _ read: (JSONReader) -> T?) -> [T] {
        guard let array, let elements = self.read({ try array.array() }) else { return [] }
        return elements.compactMap(read)
    }
}
