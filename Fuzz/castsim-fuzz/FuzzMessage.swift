// One frame body as a CastMessage (required proto2 fields, payload types, UTF-8), then the
// envelope's JSON payload.
import CastWire

enum FuzzMessage: FuzzTarget {
    static func run(_ input: UnsafeRawBufferPointer) {
        guard let envelope = try? CastFraming.parse(body: Array(input)) else { return }
        if let text = envelope.utf8, let json = try? JSONValue.parse(text) {
            // What castsim parses, it can write back as JSON it parses again.
            precondition((try? JSONValue.parse(json.jsonText())) != nil, "re-encoded JSON does not parse")
        }
    }
}
