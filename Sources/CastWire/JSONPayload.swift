/// A JSON payload with its text, encoded exactly once: a status sent to a hundred
/// senders, or checked against the frame limit and then sent, is not encoded again.
package struct JSONPayload: Sendable, Equatable {
    package let value: JSONValue
    package let text: String

    package init(_ value: JSONValue) {
        self.value = value
        text = value.jsonText()
    }

    /// A payload whose text the caller put together from parts it had encoded before:
    /// `text` must be exactly what `value.jsonText()` gives.
    package init(value: JSONValue, text: String) {
        self.value = value
        self.text = text
    }

    /// Bytes of the text, as counted against the frame limit.
    package var byteCount: Int { text.utf8.count }
}
