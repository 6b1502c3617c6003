import CastWire

/// `reason` of an INVALID_REQUEST reply (docs/protocol/platform.md §4, media.md §3).
package enum InvalidRequestReason: String, Sendable, Equatable, CaseIterable {
    case invalidCommand = "INVALID_COMMAND"
    case invalidParams = "INVALID_PARAMS"
    case invalidSessionId = "INVALID_SESSION_ID"
    case invalidMediaSessionId = "INVALID_MEDIA_SESSION_ID"
    case endOfQueue = "END_OF_QUEUE"
    case languageNotSupported = "LANGUAGE_NOT_SUPPORTED"
    /// CAF's generic "the request is not valid"; castsim gives it when the answer to a
    /// valid request cannot fit in one 64 KiB frame and the protocol allows no shorter one.
    case invalidRequest = "INVALID_REQUEST"
}

/// `reason` of a media ERROR reply (media.md §3): what CAF answers a request it does not take.
package enum ErrorReason: String, Sendable, Equatable, CaseIterable {
    case notSupported = "NOT_SUPPORTED"
}

/// `reason` of a LAUNCH_ERROR reply (platform.md §4).
package enum LaunchErrorReason: String, Sendable, Equatable, CaseIterable {
    case badParameter = "BAD_PARAMETER"
    case notFound = "NOT_FOUND"
    /// The device will not start it (a quirk: `device.quirks.apps.refuse`); pychromecast
    /// launches once more after CANCELLED.
    case notAllowed = "NOT_ALLOWED"
    case cancelled = "CANCELLED"
    /// The app exists but cannot start (its behaviour is not one this device runs).
    case systemError = "SYSTEM_ERROR"
}

/// A request refused: the reply the protocol gives for it, and why, for the log.
package struct RequestRejection: Error, Sendable {
    package enum Reply: Sendable, Equatable {
        /// `{"type":"INVALID_REQUEST","requestId":N,"reason":...}`
        case invalidRequest(InvalidRequestReason)
        /// `{"type":"INVALID_PLAYER_STATE","requestId":N}`: impossible in the current state.
        case invalidPlayerState
        /// `{"type":"LAUNCH_ERROR","requestId":N,"reason":...,"appId"?:...}`
        case launchError(LaunchErrorReason, appId: String?)
        /// `{"type":"ERROR","requestId":N,"reason":...}`
        case error(ErrorReason)
    }

    package var reply: Reply
    package var detail: LogMessage

    package static func invalidRequest(_ reason: InvalidRequestReason, _ detail: LogMessage) -> RequestRejection {
        RequestRejection(reply: .invalidRequest(reason), detail: detail)
    }

    /// A field of the wrong type or value: INVALID_PARAMS, naming the field's path.
    package static func invalidParams(_ detail: LogMessage) -> RequestRejection {
        .invalidRequest(.invalidParams, detail)
    }

    package static func invalidParams(_ error: JSONReadError) -> RequestRejection {
        .invalidRequest(.invalidParams, "\(error)")
    }

    package static func invalidPlayerState(_ detail: LogMessage) -> RequestRejection {
        RequestRejection(reply: .invalidPlayerState, detail: detail)
    }

    /// The reply, carrying `requestId` (0 when the request had none).
    package func payload(requestId: Int) -> JSONPayload {
        let id = JSONValue.number(Double(requestId))
        switch reply {
        case .invalidRequest(let reason):
            return JSONPayload(["type": "INVALID_REQUEST", "requestId": id, "reason": .string(reason.rawValue)])
        case .invalidPlayerState:
            return JSONPayload(["type": "INVALID_PLAYER_STATE", "requestId": id])
        case .launchError(let reason, let appId):
            var fields: [String: JSONValue] = ["type": "LAUNCH_ERROR", "requestId": id, "reason": .string(reason.rawValue)]
            if let appId { fields["appId"] = .string(appId) }
            return JSONPayload(.object(fields))
        case .error(let reason):
            return JSONPayload(["type": "ERROR", "requestId": id, "reason": .string(reason.rawValue)])
        }
    }

    /// The log line: what was refused, why, and the answer.
    package func logLine(namespace: String, type: String?) -> LogMessage {
        let answer: String = switch reply {
        case .invalidRequest(let reason): "INVALID_REQUEST \(reason.rawValue)"
        case .invalidPlayerState: "INVALID_PLAYER_STATE"
        case .launchError(let reason, _): "LAUNCH_ERROR \(reason.rawValue)"
        case .error(let reason): "ERROR \(reason.rawValue)"
        }
        if let type { return "\(namespace) \(type): \(detail) → \(answer)" }
        return "\(namespace): \(detail) → \(answer)"
    }
}

/// Runs a decoding step, turning a field error into INVALID_PARAMS.
package func params<T>(_ body: () throws(JSONReadError) -> T) throws(RequestRejection) -> T {
    do { return try body() } catch { throw .invalidParams(error) }
}
