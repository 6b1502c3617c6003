// A sender's byte stream through the CASTV2 framing (length prefix, 64 KiB cap, protobuf
// body), as the device's connection reads it.
import CastWire
import NIOCore

enum FuzzFrames: FuzzTarget {
    static func run(_ input: UnsafeRawBufferPointer) {
        var stream = ByteBuffer(bytes: input)
        do {
            while let body = try CastFraming.nextBody(from: &stream) {
                // A body that is no CastMessage is refused with an error, never a crash.
                if let envelope = try? CastFraming.parse(body: body) {
                    // What parses frames again within the same limit, and reads back as itself.
                    var frame = try CastFraming.frame(envelope)
                    let again = try CastFraming.nextBody(from: &frame).map { try CastFraming.parse(body: $0) }
                    precondition(again == envelope, "an envelope castsim read does not read back as itself once written")
                }
            }
            _ = CastFraming.truncation(of: &stream)
        } catch {
            // Oversized declared lengths and bodies are refused: expected.
        }
    }
}
