import CastWire

// urn:x-cast:com.google.cast.receiver (§5): the platform endpoint `receiver-0`.

extension SimulatedDevice {
    mutating func handleReceiverNamespace(_ decoded: Result<Request, Request.Malformed>, _ envelope: CastEnvelope,
                                 on connection: ConnectionID) {
        let request: Request
        switch decoded {
        case .success(let decoded):
            request = decoded
        case .failure(let malformed):
            log(.info, connection, "receiver: \(malformed) → INVALID_REQUEST")
            reply(to: envelope, on: connection, ["type": "INVALID_REQUEST", "requestId": 0, "reason": "INVALID_COMMAND"])
            return
        }
        // Open Screen answers INVALID_COMMAND when a known request has no requestId.
        guard request.hasRequestId else {
            rejectReceiverRequest(request, "INVALID_COMMAND", because: "\(request.type) without an integer requestId")
            return
        }
        switch request.type {
        case "GET_STATUS":
            reply(to: envelope, on: connection, receiverStatusMessage(requestId: request.requestId))
        case "LAUNCH":
            handleLaunch(request)
        case "STOP":
            handleStop(request)
        case "SET_VOLUME":
            handleSetDeviceVolume(request)
        case "GET_APP_AVAILABILITY":
            handleGetAppAvailability(request)
        default:
            rejectReceiverRequest(request, "INVALID_COMMAND", because: "unknown receiver request type \"\(request.type)\"")
        }
    }

    private mutating func rejectReceiverRequest(_ request: Request, _ reason: String, because detail: String) {
        log(.info, request.connection, "receiver: \(detail) → INVALID_REQUEST \(reason)")
        reply(to: request.envelope, on: request.connection,
              ["type": "INVALID_REQUEST", "requestId": .number(Double(request.requestId)), "reason": .string(reason)])
    }

    private mutating func handleLaunch(_ request: Request) {
        let requestId = JSONValue.number(Double(request.requestId))
        guard let appId = request["appId"]?.stringValue, !appId.isEmpty else {
            log(.info, request.connection, "LAUNCH without an appId → LAUNCH_ERROR BAD_PARAMETER")
            reply(to: request.envelope, on: request.connection,
                  ["type": "LAUNCH_ERROR", "requestId": requestId, "reason": "BAD_PARAMETER"])
            return
        }
        guard let definition = configuration.app(withId: appId) else {
            log(.info, request.connection, "LAUNCH of unknown app \(appId) → LAUNCH_ERROR NOT_FOUND")
            reply(to: request.envelope, on: request.connection,
                  ["type": "LAUNCH_ERROR", "requestId": requestId, "reason": "NOT_FOUND", "appId": .string(appId)])
            return
        }
        // Chrome waits for LAUNCH_STATUS; other senders log it as unhandled.
        reply(to: request.envelope, on: request.connection,
              ["type": "LAUNCH_STATUS", "launchRequestId": requestId, "status": "USER_ALLOWED"])
        if runningApp?.definition.appId == appId {
            // Already running: the same session, answered so the sender does not hang.
            reply(to: request.envelope, on: request.connection, receiverStatusMessage(requestId: request.requestId))
            return
        }
        launch(definition)
        // The requestId-tagged status must already list the app with its transportId and
        // namespaces: pychromecast CONNECTs from it before firing its launch callback.
        broadcastReceiverStatus(requestId: request.requestId)
    }

    private mutating func handleStop(_ request: Request) {
        // A missing or null sessionId stops whatever runs (go-chromecast, pychromecast).
        if let value = request["sessionId"] {
            guard let sessionId = value.stringValue, sessionId == runningApp?.sessionId else {
                rejectReceiverRequest(request, "INVALID_SESSION_ID", because: "STOP of unknown session \(value.jsonText())")
                return
            }
        }
        if let app = runningApp, app.definition.behaviour != .idleScreen || request["sessionId"] != nil {
            stopRunningApp()
            returnToIdleScreen()
        }
        broadcastReceiverStatus(requestId: request.requestId)
    }

    private mutating func handleSetDeviceVolume(_ request: Request) {
        let change: Volume
        do {
            change = try volumeChange(from: request, current: volume)
        } catch {
            rejectReceiverRequest(request, "INVALID_PARAMS", because: "SET_VOLUME: \(error)")
            return
        }
        volume = change
        broadcastReceiverStatus(requestId: request.requestId)
    }

    private mutating func handleGetAppAvailability(_ request: Request) {
        // The appId is an array; a lone string is tolerated.
        let appIds: [String]
        switch request["appId"] {
        case .array(let values)?: appIds = values.compactMap(\.stringValue)
        case .string(let value)?: appIds = [value]
        default:
            rejectReceiverRequest(request, "INVALID_PARAMS", because: "GET_APP_AVAILABILITY: appId must be an array of app ids")
            return
        }
        var availability: [String: JSONValue] = [:]
        for appId in appIds {
            availability[appId] = configuration.app(withId: appId) != nil ? "APP_AVAILABLE" : "APP_UNAVAILABLE"
        }
        reply(to: request.envelope, on: request.connection, [
            "type": "GET_APP_AVAILABILITY", "responseType": "GET_APP_AVAILABILITY",
            "requestId": .number(Double(request.requestId)), "availability": .object(availability),
        ])
    }
}

/// Reads a `volume{level?, muted?}` change, shared by the receiver and media namespaces.
/// The level is clamped to 0...1; at least one of the two must be present.
func volumeChange(from request: Request, current: Volume) throws(InvalidParams) -> Volume {
    guard let volume = try request.object("volume") else { throw InvalidParams("volume: missing") }
    var result = current
    var changed = false
    if let level = volume["level"], !level.isNull {
        guard let number = level.doubleValue, number.isFinite else {
            throw InvalidParams("volume.level: expected a number, got \(level.typeName)")
        }
        result.level = number.clamped(to: 0...1)
        changed = true
    }
    if let muted = volume["muted"], !muted.isNull {
        guard let flag = muted.boolValue else { throw InvalidParams("volume.muted: expected a boolean, got \(muted.typeName)") }
        result.muted = flag
        changed = true
    }
    guard changed else { throw InvalidParams("volume: needs level or muted") }
    return result
}
