// A sender's byte stream through the CASTV2 framing (length prefix, 64 KiB cap, protobuf
// body), as the device's connection reads it.
import CastWire
import NIOCore

enum FuzzFrames: FuzzTarget {
    static func run(_ input: UnsafeRawBufferPointer) {
        var stream = ByteBuffer(bytes: input)
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
    }
}
