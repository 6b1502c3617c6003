// libFuzzer target: the JSON parser and the path-aware reader over what it parses.
// Build and run with scripts/fuzz.sh; in a plain build this executable does nothing.
import CastWire

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    guard let json = try? JSONValue.parse(text) else { return 0 }
    precondition((try? JSONValue.parse(json.jsonText())) != nil, "re-encoded JSON does not parse")
    // Read it as senders' requests are read: every key at every depth, with its path.
    visit(JSONReader(json, nullIsAbsent: true))
    return 0
}

private func visit(_ reader: JSONReader) {
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
