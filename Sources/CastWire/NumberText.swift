/// Numbers and durations as people read them, written the same way everywhere: JSON
/// output, log lines, scenario messages and reports.
package enum NumberText {
    /// `5` for 5.0 (ids and counts print without a fraction, as senders expect), `0.25`,
    /// `9.2e+18`. Non-finite values print as Swift spells them; JSON callers handle those.
    package static func format(_ value: Double) -> String {
        // 2^53: beyond it not every integer is a Double, and Int64 conversion is still safe.
        if value == value.rounded(), abs(value) < 9.007_199_254_740_992e15 { return String(Int64(value)) }
        return "\(value)"
    }
}

/// Durations in the form scenario files use: `1h30m`, `5s`, `250ms`.
package enum DurationText {
    /// The shortest text for a number of seconds: 90 → `1m30s`, 0.25 → `250ms`. Any value
    /// is accepted (a huge or odd one prints in plain seconds rather than trapping).
    package static func format(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds < 1e15 else { return NumberText.format(seconds) + "s" }
        guard seconds > 0 else { return seconds == 0 ? "0s" : "-" + format(-seconds) }
        var rest = (seconds * 1000).rounded()
        guard rest >= 1 else { return NumberText.format(seconds * 1000) + "ms" }
        var text = ""
        for (unit, size) in [("h", 3_600_000.0), ("m", 60_000.0), ("s", 1000.0)] where rest >= size {
            let count = (rest / size).rounded(.down)
            text += NumberText.format(count) + unit
            rest -= count * size
        }
        if rest > 0 { text += NumberText.format(rest) + "ms" }
        return text
    }
}
