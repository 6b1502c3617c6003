import CastWire

/// What every JSON request shares: its `type`, its `requestId`, and the rest to read.
package struct RequestHeader: Sendable {
    package let type: String
    /// nil when the sender sent none (or not an integer).
    package let requestId: Int?
    /// The whole payload; a JSON null in it reads as absent.
    package let body: JSONReader

    /// Reads the header of a request, or the rejection a malformed payload gets. The
    /// requestId is read even from a payload with no usable type, so the error reply
    /// carries it (`{"requestId":801,"type":7}` is answered with requestId 801), and from
    /// the text of one the parser refused (nested too deep, a number past a double's range,
    /// a lone surrogate), when `envelope` is given: a sender matches the reply on it, and
    /// would wait out its own timeout instead.
    package static func read(_ payload: JSONValue?, of envelope: CastEnvelope? = nil) -> Result<RequestHeader, MalformedRequest> {
        guard let payload else {
            let requestId = envelope?.utf8.flatMap { JSONMemberScan.integerMember("requestId", of: $0) }
            return .failure(MalformedRequest(requestId: requestId, problem: "the payload is not JSON"))
        }
        guard case .object(let fields) = payload else {
            return .failure(MalformedRequest(requestId: nil, problem: "the payload is \(payload.typeName), not an object"))
        }
        let requestId = fields["requestId"]?.intValue
        guard let type = fields["type"]?.stringValue else {
            let problem: LogMessage = fields["type"].map { "type is \($0.typeName), not a string" } ?? "no type"
            return .failure(MalformedRequest(requestId: requestId, problem: problem))
        }
        return .success(RequestHeader(type: type, requestId: requestId, body: JSONReader(payload, nullIsAbsent: true)))
    }

    /// The id to answer with: the request's, or 0 when it has none.
    package var answerId: Int { requestId ?? 0 }
}

/// A request to `receiver-0` (receiver and multizone namespaces): its header and who asked.
package struct PlatformRequest: Sendable {
    package let header: RequestHeader
    /// Who asked, with the request's id.
    package let requester: Requester
    package var requestId: Int { requester.requestId }

    /// Reads one, or says how to refuse it: a malformed payload, or one without a
    /// requestId (Open Screen answers INVALID_COMMAND then), is refused to its sender with
    /// the id it carried (0 without one).
    package static func read(_ envelope: CastEnvelope, payload: JSONValue?, on connection: ConnectionID)
        -> Result<PlatformRequest, RefusedRequest>
    {
        switch RequestHeader.read(payload, of: envelope) {
        case .failure(let malformed):
            let requester = Requester(connection: connection, senderId: envelope.sourceId, requestId: malformed.requestId ?? 0)
            return .failure(RefusedRequest(rejection: malformed.rejection, type: nil, requester: requester))
        case .success(let header):
            guard let requestId = header.requestId else {
                let requester = Requester(connection: connection, senderId: envelope.sourceId, requestId: 0)
                return .failure(RefusedRequest(rejection: .invalidRequest(.invalidCommand, "\(header.type) without an integer requestId"),
                                               type: header.type, requester: requester))
            }
            return .success(PlatformRequest(
                header: header, requester: Requester(connection: connection, senderId: envelope.sourceId, requestId: requestId)))
        }
    }
}

/// A request refused before any handler reads it: what to answer, the type it named (if
/// any), and to whom.
package struct RefusedRequest: Error, Sendable {
    package let rejection: RequestRejection
    package let type: String?
    package let requester: Requester
}

/// A payload that is not a request at all: INVALID_REQUEST / INVALID_COMMAND.
package struct MalformedRequest: Error, Sendable {
    package let requestId: Int?
    package let problem: LogMessage

    package var rejection: RequestRejection { .invalidRequest(.invalidCommand, problem) }
}

/// The sender endpoint a request came from, so that answers, at once or later (a load
/// that completes, LOAD_FAILED, LOAD_CANCELLED), go back to it.
package struct Requester: Sendable, Equatable {
    package let connection: ConnectionID
    package let senderId: String
    package let requestId: Int

    package init(connection: ConnectionID, senderId: String, requestId: Int) {
        self.connection = connection
        self.senderId = senderId
        self.requestId = requestId
    }
}
