// The JSON parser and the path-aware reader over what it parses.
import CastWire

enum FuzzJSON: FuzzTarget {
    static func run(_ input: UnsafeRawBufferPointer) {
        let text = String(decoding: input, as: UTF8.self)
        guard let json = try? JSONValue.parse(text) else { return }
        precondition((try? JSONValue.parse(json.jsonText())) != nil, "re-encoded JSON does not parse")
        // Read it as senders' requests are read: every key at every depth, with its path.
        visit(JSONReader(json, nullIsAbsent: true))
    }

    private static func visit(_ reader: JSONReader) {
        // Every typed read either answers or names the path and what it expected.
        _ = (try? reader.string())?.count
        _ = try? reader.int()
        _ = try? reader.double(in: 0...1)
        _ = try? reader.bool()
        _ = try? reader.intArray()
        _ = try? reader.optionalString("type")
        _ = try? reader.optionalInt("requestId")
        _ = reader.expected("something else").description
        if let items = try? reader.array() { items.forEach(visit) }
        for key in reader.value.objectValue?.keys.sorted() ?? [] {
            if let child = reader[key] { visit(child) }
        }
    }
}
