/// A JSON payload with its text, encoded exactly once: a status sent to a hundred
/// senders, or checked against the frame limit and then sent, is not encoded again.
package struct JSONPayload: Sendable, Equatable {
    /// The value the payload was built from; nil for one whose text was put together.
    private let built: JSONValue?
    package let text: String

    package init(_ value: JSONValue) {
        built = value
        text = value.jsonText()
    }

    /// A payload whose text the caller put together from parts it had encoded before:
    /// `text` must be exactly what `jsonText()` writes for the value it stands for. No
    /// value is built for it: a reply sent as it is never needs one.
    package init(text: String) {
        built = nil
        self.text = text
    }

    /// The payload as a value; for a payload put together, its text read back (only a
    /// refusal's log line and a broadcast that isolates request ids ask).
    package var value: JSONValue { built ?? (try? JSONValue.parse(text)) ?? .null }

    /// Bytes of the text, as counted against the frame limit.
    package var byteCount: Int { text.utf8.count }

    /// Equal texts are equal payloads: the text is the value, encoded.
    package static func == (lhs: JSONPayload, rhs: JSONPayload) -> Bool { lhs.text == rhs.text }
}
