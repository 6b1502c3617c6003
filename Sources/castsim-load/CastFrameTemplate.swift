import CastWire
import NIOCore

/// A Cast frame encoded once by CastWire, then stamped with each use's requestId. The
/// load generator sends hundreds of thousands of the same request and the echo server
/// sends as many of the same reply; encoding each anew would cost more client CPU than
/// the server's TLS does.
///
/// One encoding per number of digits: a requestId of d digits always makes a body of the
/// same length, so the 4-byte header and the protobuf lengths stay right and only the
/// digits change. What goes on the wire is byte for byte what `CastFraming.frame` makes.
package struct CastFrameTemplate: Sendable {
    private struct Encoding: Sendable {
        var bytes: [UInt8]
        /// Where the requestId's digits start.
        var digitsAt: Int
    }

    /// Indexed by the number of digits less one: 1 to 15 digits. JSON numbers are doubles,
    /// exact to 2^53; past 15 digits castsim would write an exponent.
    private let encodings: [Encoding]

    package static let maximumRequestId = 999_999_999_999_999

    /// `envelope` makes the message for a requestId; its payload must hold the id as
    /// `"requestId":N`.
    init(_ envelope: (Int) -> CastEnvelope) throws {
        var encodings: [Encoding] = []
        var sample = 1
        for _ in 1...15 {
            let frame = try CastFraming.frame(envelope(sample))
            let bytes = Array(frame.readableBytesView)
            guard let digitsAt = Self.digitsOffset(in: bytes) else {
                throw LoadError("internal: a frame template has no requestId")
            }
            encodings.append(Encoding(bytes: bytes, digitsAt: digitsAt))
            sample &*= 10
        }
        self.encodings = encodings
    }

    private static func digitsOffset(in bytes: [UInt8]) -> Int? {
        let key = Array(#""requestId":"#.utf8)
        guard bytes.count >= key.count else { return nil }
        for start in 0...(bytes.count - key.count) where bytes[start..<start + key.count].elementsEqual(key) {
            return start + key.count
        }
        return nil
    }

    /// Body bytes (without the 4-byte header) of the frame for a 1-digit requestId.
    package var bodyBytes: Int { encodings[0].bytes.count - CastFraming.headerSize }

    /// The frame for `requestId` (1 or more), ready to write.
    package func frame(requestId: Int, allocator: ByteBufferAllocator) -> ByteBuffer {
        precondition(requestId > 0 && requestId <= Self.maximumRequestId, "requestIds are 1 to 15 digits")
        var digits = 1
        var rest = requestId / 10
        while rest > 0 { digits += 1; rest /= 10 }
        let encoding = encodings[digits - 1]
        var buffer = allocator.buffer(capacity: encoding.bytes.count)
        buffer.writeBytes(encoding.bytes)
        var value = requestId
        var position = encoding.digitsAt + digits - 1
        repeat {
            buffer.setInteger(UInt8(ascii: "0") + UInt8(value % 10), at: position)
            value /= 10
            position -= 1
        } while value > 0
        return buffer
    }
}

/// The Cast messages the load generator sends, as a sender-0 talking to receiver-0.
package enum CastLoadMessages {
    /// CONNECT to receiver-0; castsim answers nothing (no protocolVersion is offered).
    package static let connect: ByteBuffer = try! CastFraming.frame(
        CastEnvelope(sourceId: CastEndpoint.platformSender, destinationId: CastEndpoint.platformReceiver,
                     namespace: CastNamespace.connection,
                     payload: .string(JSONValue.object(["type": "CONNECT", "userAgent": "castsim-load"]).jsonText())))

    /// GET_STATUS on the receiver namespace: castsim answers the sender alone.
    package static let getStatus = try! CastFrameTemplate { requestId in
        receiverRequest(["type": "GET_STATUS", "requestId": .number(Double(requestId))])
    }

    /// SET_VOLUME to `level`: castsim broadcasts the new RECEIVER_STATUS, tagged with the
    /// requestId, to every sender connected to receiver-0. Levels of equal text length
    /// keep the status the same size from one round to the next.
    static func setVolume(level: Double) -> CastFrameTemplate {
        try! CastFrameTemplate { requestId in
            receiverRequest(["type": "SET_VOLUME", "requestId": .number(Double(requestId)), "volume": ["level": .number(level)]])
        }
    }

    private static func receiverRequest(_ payload: JSONValue) -> CastEnvelope {
        CastEnvelope(sourceId: CastEndpoint.platformSender, destinationId: CastEndpoint.platformReceiver,
                     namespace: CastNamespace.receiver, payload: .string(payload.jsonText()))
    }
}
