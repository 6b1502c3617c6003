/// A JSON payload with its text, encoded exactly once: a status sent to a hundred
/// senders, or checked against the frame limit and then sent, is not encoded again.
public struct JSONPayload: Sendable, Equatable {
    public let value: JSONValue
    public let text: String

    public init(_ value: JSONValue) {
        self.value = value
        text = value.jsonText()
    }

    /// Bytes of the text, as counted against the frame limit.
    public var byteCount: Int { text.utf8.count }
}
