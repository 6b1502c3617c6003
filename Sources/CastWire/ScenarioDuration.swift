/// Durations as scenario files, the console and the command line write them: "250ms",
/// "5s", "1h30m", "1.5s".
package enum ScenarioDuration {
    /// The longest duration castsim takes anywhere: ten years of simulated time. Longer
    /// ones are refused with a message rather than carried into clock arithmetic.
    package static let maximum: Double = 87_600 * 3600

    /// Seconds for a duration string, or nil when it is not one. The value may still be
    /// out of range: see ``problem(with:)``.
    package static func parse(_ text: String) -> Double? {
        var total = 0.0
        var rest = Substring(text)
        guard !rest.isEmpty else { return nil }
        var lastUnitRank = Int.max
        while !rest.isEmpty {
            let number = rest.prefix { $0.isNumber || $0 == "." }
            guard !number.isEmpty, number.filter({ $0 == "." }).count <= 1, let value = Double(number) else { return nil }
            rest = rest.dropFirst(number.count)
            let unit = rest.prefix { $0.isLetter }
            rest = rest.dropFirst(unit.count)
            // Units in decreasing order, each at most once: "1h30m", not "30m1h" or "5s5s".
            guard let (rank, seconds) = units[String(unit)], rank < lastUnitRank else { return nil }
            lastUnitRank = rank
            total += value * seconds
        }
        return total.isFinite ? total : nil
    }

    /// Why `seconds` is no duration castsim takes, or nil when it is one.
    package static func problem(with seconds: Double) -> String? {
        if seconds.isNaN { return "not a number of seconds" }
        if seconds < 0 { return "negative: a duration is 0 s or more" }
        guard seconds <= maximum else { return "longer than \(format(maximum)) (ten years), the longest castsim takes" }
        return nil
    }

    /// Parses `text` and checks its range: the seconds, or what is wrong with it.
    package static func read(_ text: String) -> Result<Double, DurationError> {
        guard let seconds = parse(text) else { return .failure(DurationError(text: text, problem: "not a duration like \"90s\" or \"2m\"")) }
        if let problem = problem(with: seconds) { return .failure(DurationError(text: text, problem: problem)) }
        return .success(seconds)
    }

    private static let units: [String: (rank: Int, seconds: Double)] = [
        "h": (4, 3600), "m": (3, 60), "s": (2, 1), "ms": (1, 0.001),
    ]

    /// The shortest text for a number of seconds: 90 → "1m30s", 0.25 → "250ms".
    package static func format(_ seconds: Double) -> String { DurationText.format(seconds) }
}

/// A duration castsim does not take, and why.
package struct DurationError: Error, Sendable, Equatable, CustomStringConvertible {
    package var text: String
    package var problem: String
    package var description: String { "\"\(LogText.escape(text, limit: 64))\" is \(problem)" }
}

extension JSONReader {
    /// A duration string ("250ms", "5s", "1h30m") in seconds, at most ten years.
    package func duration(allowZero: Bool = true) throws(JSONReadError) -> Double {
        guard let text = value.stringValue, let seconds = ScenarioDuration.parse(text), allowZero || seconds > 0 else {
            throw expected("a duration like \"5s\"\(allowZero ? "" : " (more than 0)")")
        }
        if let problem = ScenarioDuration.problem(with: seconds) { throw error("\(JSONReader.describe(value)) is \(problem)") }
        return seconds
    }
}
