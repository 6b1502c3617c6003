import CastDevice
import CastWire

/// Checks the journal against a pattern, as the control API's `verify` does: how many
/// messages match, or whether patterns match in order; on a failure, the messages that
/// came nearest and what each lacks.
package enum JournalVerification {
    /// How many matching messages pass.
    package struct Count: Sendable, Equatable, CustomStringConvertible {
        package var atLeast: Int
        package var atMost: Int?

        package init(atLeast: Int = 1, atMost: Int? = nil) {
            self.atLeast = atLeast
            self.atMost = atMost
        }

        package static func exactly(_ count: Int) -> Count { Count(atLeast: count, atMost: count) }

        func admits(_ count: Int) -> Bool { count >= atLeast && atMost.map { count <= $0 } ?? true }

        package var description: String {
            switch atMost {
            case let most? where atLeast == 0: "at most \(most)"
            case atLeast?: "exactly \(atLeast)"
            case let most?: "from \(atLeast) to \(most)"
            case nil: "at least \(atLeast)"
            }
        }
    }

    package struct Nearest: Sendable, Equatable {
        package var entry: JournalEntry
        package var differences: [String]
    }

    package struct Result: Sendable, Equatable {
        package var passed: Bool
        /// Matching messages; for a sequence, how many patterns matched in order.
        package var count: Int
        package var expected: String
        package var matches: [JournalEntry]
        package var nearest: [Nearest]
        package var message: String
    }

    static let shownMatches = 50
    static let shownNearest = 3

    /// Counts the entries that match `pattern`.
    package static func count(_ pattern: MessagePattern, _ count: Count, in entries: [JournalEntry]) -> Result {
        var matches: [JournalEntry] = []
        var total = 0
        var misses: [(entry: JournalEntry, payload: JSONValue?, score: Int)] = []
        for entry in entries {
            let payload = entry.payload
            let score = pattern.score(entry.envelope, payload: payload)
            if score == pattern.maximumScore {
                total += 1
                if matches.count < shownMatches { matches.append(entry) }
            } else {
                misses.append((entry, payload, score))
            }
        }
        let passed = count.admits(total)
        let nearest = passed ? [] : nearestMisses(misses, pattern)
        var message = "\(total) message\(total == 1 ? "" : "s") matched \(pattern); expected \(count)"
        if let first = nearest.first, total < count.atLeast {
            message += "; nearest: #\(first.entry.sequence) (\(first.differences.joined(separator: "; ")))"
        }
        return Result(passed: passed, count: total, expected: count.description, matches: matches, nearest: nearest,
                      message: passed ? "passed: \(message)" : message)
    }

    /// Whether messages match `patterns` in that order (others may come between).
    package static func sequence(_ patterns: [MessagePattern], in entries: [JournalEntry]) -> Result {
        var matched: [JournalEntry] = []
        var misses: [(entry: JournalEntry, payload: JSONValue?, score: Int)] = []
        for entry in entries where matched.count < patterns.count {
            let payload = entry.payload
            let pattern = patterns[matched.count]
            let score = pattern.score(entry.envelope, payload: payload)
            if score == pattern.maximumScore {
                matched.append(entry)
                misses.removeAll()
            } else {
                misses.append((entry, payload, score))
            }
        }
        let passed = matched.count == patterns.count
        let expected = "\(patterns.count) patterns in order"
        guard !passed else {
            return Result(passed: true, count: matched.count, expected: expected, matches: matched, nearest: [],
                          message: "passed: \(patterns.count) patterns matched in order")
        }
        let missing = patterns[matched.count]
        let nearest = nearestMisses(misses, missing)
        var message = "\(matched.count) of \(patterns.count) patterns matched in order; no message after "
            + (matched.last.map { "#\($0.sequence)" } ?? "the start") + " matched pattern \(matched.count + 1) \(missing)"
        if let first = nearest.first {
            message += "; nearest: #\(first.entry.sequence) (\(first.differences.joined(separator: "; ")))"
        }
        return Result(passed: false, count: matched.count, expected: expected, matches: matched, nearest: nearest, message: message)
    }

    private static func nearestMisses(_ misses: [(entry: JournalEntry, payload: JSONValue?, score: Int)], _ pattern: MessagePattern)
        -> [Nearest]
    {
        // The highest scores, the newest first among equals.
        misses.enumerated().sorted { ($0.element.score, $0.offset) > ($1.element.score, $1.offset) }
            .prefix(shownNearest)
            .map { Nearest(entry: $0.element.entry, differences: pattern.differences($0.element.entry.envelope, payload: $0.element.payload)) }
    }
}

extension MessagePattern: CustomStringConvertible {
    /// The pattern as a person wrote it: `{namespace: media, type: LOAD, customData.token = "abc"}`.
    public var description: String {
        var parts: [String] = []
        if let namespace { parts.append("namespace \(Self.shortName(namespace))") }
        if let type { parts.append("type \(type)") }
        if let sourceId { parts.append("from \(sourceId)") }
        if let destinationId { parts.append("to \(destinationId)") }
        for (path, predicate) in fields { parts.append("\(path) \(predicate)") }
        return "{" + parts.joined(separator: ", ") + "}"
    }

    /// What a message lacks to match, one line per condition it fails.
    package func differences(_ envelope: CastEnvelope, payload: JSONValue?) -> [String] {
        var lines: [String] = []
        func quoted(_ text: String?) -> String { text.map { JSONValue.string($0).jsonText() } ?? "nothing" }
        if let namespace, namespace != envelope.namespace {
            lines.append("namespace: expected \(Self.shortName(namespace)), got \(Self.shortName(envelope.namespace))")
        }
        if let type, payload?["type"]?.stringValue != type {
            lines.append("type: expected \(quoted(type)), got \(quoted(payload?["type"]?.stringValue))")
        }
        if let sourceId, sourceId != envelope.sourceId { lines.append("from: expected \(quoted(sourceId)), got \(quoted(envelope.sourceId))") }
        if let destinationId, destinationId != envelope.destinationId {
            lines.append("to: expected \(quoted(destinationId)), got \(quoted(envelope.destinationId))")
        }
        for (path, predicate) in fields {
            let value = payload.flatMap { Self.value(at: path, in: $0) }
            if !predicate.holds(for: value) {
                lines.append("\(path): expected \(predicate), got \(value.map { LogText.escape($0.jsonText(), limit: 200) } ?? "nothing")")
            }
        }
        return lines
    }

    /// `media` for the media namespace, and so on; other namespaces in full.
    static func shortName(_ namespace: String) -> String {
        namespaceAliases.first { $0.value == namespace }?.key ?? namespace
    }
}

extension FieldPredicate: CustomStringConvertible {
    public var description: String {
        func text(_ value: JSONValue) -> String { LogText.escape(value.jsonText(), limit: 200) }
        return switch self {
        case .equals(let value): "= \(text(value))"
        case .notEquals(let value): "≠ \(text(value))"
        case .exists(let exists): exists ? "present" : "absent"
        case .matches(let regex): "matching /\(regex.pattern)/"
        case .contains(let value): "containing \(text(value))"
        case .greaterThan(let bound, let orEqual): "\(orEqual ? "≥" : ">") \(NumberText.format(bound))"
        case .lessThan(let bound, let orEqual): "\(orEqual ? "≤" : "<") \(NumberText.format(bound))"
        case .oneOf(let values): "one of \(text(.array(values)))"
        }
    }
}
