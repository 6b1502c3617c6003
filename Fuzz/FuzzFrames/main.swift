// libFuzzer target: a sender's byte stream through the CASTV2 framing (length prefix,
// 64 KiB cap, protobuf body), as the device's connection reads it. Build and run with
// scripts/fuzz.sh; in a plain build this executable does nothing.
import CastWire
import NIOCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrames(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var stream = ByteBuffer(bytes: UnsafeRawBufferPointer(start: start, count: count))
    do {
        while let body = try CastFraming.nextBody(from: &stream) {
            // A body that is no CastMessage is refused with an error, never a crash, and
            // castsim's codec accepts exactly what the generated protobuf parser accepts.
            let envelope = try? CastFraming.parse(body: body)
            let reference = (try? Cast_Channel_CastMessage(serializedBytes: Array(body.readableBytesView)))
                .flatMap { try? CastEnvelope($0) }
            precondition(envelope == reference, "castsim's codec and SwiftProtobuf disagree on a body")
            if let envelope {
                // What parses must frame again within the same limit.
                _ = try CastFraming.frame(envelope)
            }
        }
        _ = CastFraming.truncation(of: &stream)
    } catch {
        // Oversized declared lengths and bodies are refused: expected.
    }
    return 0
}
