import CastWire

/// A request on urn:x-cast:com.google.cast.receiver
/// (docs/protocol/platform.md §1), decoded before any handler runs.
package enum ReceiverRequest: Sendable, Equatable {
    case getStatus
    case launch(appId: String)
    /// nil: stop whatever runs (go-chromecast sends no sessionId, pychromecast a null one).
    case stop(sessionId: String?)
    case setVolume(VolumeChange)
    case getAppAvailability(appIds: [String])

    /// Decodes a request whose header has been read. Fields of the wrong type are refused
    /// here, with the reply the protocol gives.
    package init(_ header: RequestHeader) throws(RequestRejection) {
        let body = header.body
        switch header.type {
        case "GET_STATUS":
            self = .getStatus
        case "LAUNCH":
            // Chrome adds `language` and `supportedAppTypes`; any other key is ignored.
            guard let appId = body["appId"]?.value.stringValue, !appId.isEmpty else {
                throw RequestRejection(reply: .launchError(.badParameter, appId: nil), detail: "LAUNCH without an appId")
            }
            do {
                _ = try body.optionalString("language")
                _ = try body.optional("supportedAppTypes") { reader throws(JSONReadError) in
                    try reader.array().map { element throws(JSONReadError) in try element.string() }
                }
            } catch {
                throw RequestRejection(reply: .launchError(.badParameter, appId: appId), detail: "\(error)")
            }
            self = .launch(appId: appId)
        case "STOP":
            guard let value = body["sessionId"] else {
                self = .stop(sessionId: nil)
                return
            }
            guard let sessionId = value.value.stringValue else {
                throw .invalidRequest(.invalidSessionId, "STOP of session \(value.value.jsonText()), which is no session id")
            }
            self = .stop(sessionId: sessionId)
        case "SET_VOLUME":
            self = .setVolume(try params { () throws(JSONReadError) in try VolumeChange(body) })
        case "GET_APP_AVAILABILITY":
            let appIds = try params { () throws(JSONReadError) -> [String] in
                let value = try body.required("appId", "an array of app ids")
                // The appId is an array; a lone string is tolerated.
                if case .string(let appId) = value.value { return [appId] }
                return try value.array().map { element throws(JSONReadError) in try element.string() }
            }
            self = .getAppAvailability(appIds: appIds)
        default:
            throw .invalidRequest(.invalidCommand, "unknown receiver request type \"\(header.type)\"")
        }
    }
}

/// A `volume{level?, muted?}` change, shared by the receiver, media and multizone
/// namespaces. At least one of the two is present; the level is clamped to 0...1 when
/// applied. Public because a group's SET_DEVICE_VOLUME travels in a ``DeviceEvent``.
public struct VolumeChange: Sendable, Equatable {
    public var level: Double?
    public var muted: Bool?

    /// Reads `volume` from a request body.
    package init(_ body: JSONReader) throws(JSONReadError) {
        let volume = try body.required("volume", "an object with level and/or muted")
        _ = try volume.object()
        level = try volume.optionalDouble("level")
        muted = try volume.optionalBool("muted")
        guard level != nil || muted != nil else { throw volume.error("needs level or muted") }
    }

    public init(level: Double?, muted: Bool?) {
        self.level = level
        self.muted = muted
    }

    package func applied(to volume: Volume) -> Volume {
        var result = volume
        if let level { result.level = level.clamped(to: 0...1) }
        if let muted { result.muted = muted }
        return result
    }
}
