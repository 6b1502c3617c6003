/// A JSON payload with its text, encoded exactly once: a status sent to a hundred
/// senders, or checked against the frame limit and then sent, is not encoded again.
package struct JSONPayload: Sendable, Equatable {
    package let value: JSONValue
    package let text: String

    package init(_ value: JSONValue) {
        self.value = value
        text = value.jsonText()
    }

    /// Bytes of the text, as counted against the frame limit.
    package var byteCount: Int { text.utf8.count }
}
