/// Durations as scenario files write them: "250ms", "5s", "1h30m", "1.5s".
public enum ScenarioDuration {
    /// Seconds for a duration string, or nil when it is not one.
    public static func parse(_ text: String) -> Double? {
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

    private static let units: [String: (rank: Int, seconds: Double)] = [
        "h": (4, 3600), "m": (3, 60), "s": (2, 1), "ms": (1, 0.001),
    ]

    /// The shortest text for a number of seconds: 90 → "1m30s", 0.25 → "250ms".
    public static func format(_ seconds: Double) -> String {
        guard seconds > 0 else { return "0s" }
        var rest = (seconds * 1000).rounded()
        var text = ""
        for (unit, size) in [("h", 3_600_000.0), ("m", 60_000.0), ("s", 1000.0)] where rest >= size {
            let count = (rest / size).rounded(.down)
            text += "\(Int(count))\(unit)"
            rest -= count * size
        }
        if rest > 0 { text += "\(Int(rest))ms" }
        return text
    }
}
