// libFuzzer target: one frame body as a CastMessage (required proto2 fields, payload
// types, UTF-8), then the envelope's JSON payload. Build and run with scripts/fuzz.sh;
// in a plain build this executable does nothing.
import CastWire

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMessage(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let body = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard let envelope = try? CastFraming.parse(body: body) else { return 0 }
    if let text = envelope.utf8, let json = try? JSONValue.parse(text) {
        // What castsim parses, it can write back as JSON it parses again.
        precondition((try? JSONValue.parse(json.jsonText())) != nil, "re-encoded JSON does not parse")
    }
    return 0
}
