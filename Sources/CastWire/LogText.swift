/// Text from senders made safe for a log line.
///
/// A namespace, an endpoint id or a payload is whatever a sender chose to send: a newline
/// in it would forge log lines, an escape byte would drive the operator's terminal.
package enum LogText {
    /// `text` with control characters (C0, DEL, C1), line and paragraph separators, bidi
    /// overrides and backslashes escaped, and cut after `limit` characters when one is given.
    package static func escape(_ text: String, limit: Int? = nil) -> String {
        let tooLong = limit.map { text.utf8.count > $0 } ?? false
        if !tooLong, !text.unicodeScalars.contains(where: needsEscape) { return text }
        var output = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if let limit, count >= limit {
                output += "…"
                break
            }
            count += 1
            guard needsEscape(scalar) else {
                output.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            default: output += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return output
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x5C: true
        case 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}

/// A log line in which everything interpolated is escaped with ``LogText/escape(_:limit:)``
/// (and cut after 300 characters), while the literal text is kept: the core writes its log
/// lines as these, so no sender-supplied string reaches a log unescaped.
package struct LogMessage: Sendable, Equatable, CustomStringConvertible, ExpressibleByStringInterpolation {
    package private(set) var description: String

    package init(stringLiteral value: String) { description = value }

    package init(stringInterpolation: StringInterpolation) { description = stringInterpolation.text }

    package struct StringInterpolation: StringInterpolationProtocol {
        var text = ""

        package init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + 16 * interpolationCount)
        }

        package mutating func appendLiteral(_ literal: String) { text += literal }

        package mutating func appendInterpolation(_ value: some Any) {
            text += LogText.escape(String(describing: value), limit: 300)
        }

        /// Another log message is already safe: kept as it is.
        package mutating func appendInterpolation(_ message: LogMessage) { text += message.description }
    }
}
