import Foundation

/// One CASTV2 message with its routing header, independent of the protobuf type.
///
/// `protocol_version` is not part of the envelope: castsim always sends 0 (CASTV2_1_0),
/// because sender-side protos define no other value and fail to parse anything else.
public struct CastEnvelope: Sendable, Equatable {
    public enum Payload: Sendable, Equatable {
        case string(String)
        case binary(Data)
    }

    public var sourceId: String
    public var destinationId: String
    public var namespace: String
    public var payload: Payload

    public init(sourceId: String, destinationId: String, namespace: String, payload: Payload) {
        self.sourceId = sourceId
        self.destinationId = destinationId
        self.namespace = namespace
        self.payload = payload
    }

    /// An answer to this message: same namespace, source and destination swapped
    /// (docs/protocol/castv2.md §1.5).
    public func reply(_ payload: Payload) -> CastEnvelope {
        CastEnvelope(sourceId: destinationId, destinationId: sourceId, namespace: namespace, payload: payload)
    }

    /// The payload's length in bytes, as it goes on the wire.
    public var payloadByteCount: Int {
        switch payload {
        case .string(let text): text.utf8.count
        case .binary(let data): data.count
        }
    }

    /// The text of a STRING payload, nil for BINARY.
    public var utf8: String? {
        if case .string(let text) = payload { return text }
        return nil
    }

    /// What a payload no handler could read as a JSON object is, for a log line and the
    /// journal's reason.
    package var payloadDescription: String {
        if case .binary = payload { return "the payload is binary, not JSON" }
        return "the payload is not a JSON object"
    }
}
