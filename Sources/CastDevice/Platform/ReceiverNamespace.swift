import CastWire

// urn:x-cast:com.google.cast.receiver (docs/protocol/platform.md): the platform endpoint `receiver-0`.

extension SimulatedDevice {
    mutating func handleReceiverNamespace(_ envelope: CastEnvelope, payload: JSONValue?, on connection: ConnectionID) {
        let request: PlatformRequest
        switch PlatformRequest.read(envelope, payload: payload, on: connection) {
        case .success(let read):
            request = read
        case .failure(let refused):
            rejectReceiverRequest(refused.rejection, type: refused.type, to: refused.requester)
            return
        }
        let header = request.header, requester = request.requester, requestId = request.requestId
        do {
            switch try ReceiverRequest(header) {
            case .getStatus:
                replyReceiver(receiverStatusMessage(requestId: requestId), to: requester)
            case .launch(let appId):
                try handleLaunch(appId, requester)
            case .stop(let sessionId):
                try handleStop(sessionId, requester)
            case .setVolume(let change):
                changeVolume(change, answering: requester)
            case .getAppAvailability(let appIds):
                var availability: [String: JSONValue] = [:]
                for appId in appIds {
                    availability[appId] = availableApp(appId) != nil ? "APP_AVAILABLE" : "APP_UNAVAILABLE"
                }
                replyReceiver(JSONPayload([
                    "type": "GET_APP_AVAILABILITY", "responseType": "GET_APP_AVAILABILITY",
                    "requestId": .number(Double(requestId)), "availability": .object(availability),
                ]), to: requester)
            }
        } catch {
            rejectReceiverRequest(error, type: header.type, to: requester)
        }
    }

    private mutating func replyReceiver(_ payload: JSONPayload, to requester: Requester) {
        reply(payload, to: requester, from: CastEndpoint.platformReceiver, namespace: CastNamespace.receiver)
    }

    private mutating func rejectReceiverRequest(_ rejection: RequestRejection, type: String?, to requester: Requester) {
        log(.info, requester.connection, rejection.logLine(namespace: "receiver", type: type))
        replyReceiver(rejection.payload(requestId: requester.requestId), to: requester)
    }

    /// The app `appId` if this device has it, or can fetch it as a public receiver, and
    /// offers it (a quirk can hide one).
    func availableApp(_ appId: String) -> CastAppDefinition? {
        guard !quirks.apps.unavailable.contains(appId) else { return nil }
        return configuration.app(withId: appId) ?? registry.catalogApp(withId: appId)
    }

    private mutating func handleLaunch(_ appId: String, _ requester: Requester) throws(RequestRejection) {
        guard let definition = availableApp(appId) else {
            throw RequestRejection(reply: .launchError(.notFound, appId: appId), detail: "LAUNCH of unknown app \(appId)")
        }
        if let refusal = quirks.apps.refuse[appId].flatMap(LaunchErrorReason.init(rawValue:)) {
            throw RequestRejection(reply: .launchError(refusal, appId: appId), detail: "LAUNCH of \(appId) refused (quirks.apps.refuse)")
        }
        guard registry.runs(definition.behaviour) else {
            throw RequestRejection(reply: .launchError(.systemError, appId: appId),
                                   detail: "LAUNCH of \(appId): no app of behaviour \(definition.behaviour) is registered")
        }
        // Chrome waits for LAUNCH_STATUS; other senders log it as unhandled.
        replyReceiver(JSONPayload(["type": "LAUNCH_STATUS", "launchRequestId": .number(Double(requester.requestId)),
                                   "status": "USER_ALLOWED"]), to: requester)
        if runningApp?.definition.appId == appId {
            // Already running: the same session, answered so the sender does not hang.
            replyReceiver(receiverStatusMessage(requestId: requester.requestId), to: requester)
            return
        }
        launch(definition)
        // The requestId-tagged status must already list the app with its transportId and
        // namespaces: pychromecast CONNECTs from it before firing its launch callback.
        broadcastReceiverStatus(answering: requester)
    }

    private mutating func handleStop(_ sessionId: String?, _ requester: Requester) throws(RequestRejection) {
        if let sessionId, sessionId != runningApp?.sessionId {
            throw .invalidRequest(.invalidSessionId, "STOP of unknown session \"\(sessionId)\"")
        }
        // STOP without a session id leaves an idle screen running; with its id, it stops it.
        if let running = runningApp, !running.app.isIdleScreen || sessionId != nil {
            stopRunningApp()
            returnToIdleScreen()
        }
        broadcastReceiverStatus(answering: requester)
    }

    /// Changes the device volume as a sender or the remote asked: RECEIVER_STATUS to every
    /// sender (with the request's id), then, when it changed, DEVICE_UPDATED about the
    /// device on the multizone namespace (groups.md §4.3).
    mutating func changeVolume(_ change: VolumeChange, answering requester: Requester?) {
        let before = volume
        var change = change
        // A fixed volume is not the sender's to set: the status answers with the level
        // unchanged (muting still works).
        if configuration.effectiveVolumeControl.controlType == .fixed || quirks.volume.ignoreSet { change.level = nil }
        if quirks.volume.relativeOnly, let level = change.level {
            // One step from where it was, towards the level asked for (a TV driving an
            // amplifier over HDMI-CEC sends a volume key, not a level).
            let step = configuration.effectiveVolumeControl.stepInterval
            change.level = level > volume.level ? min(level, volume.level + step) : max(level, volume.level - step)
        }
        setVolume(change.applied(to: volume))
        broadcastReceiverStatus(answering: requester)
        if volume != before { ownVolumeChanged() }
    }

    /// Sets the device volume, raising the event when it changes.
    mutating func setVolume(_ new: Volume) {
        guard new != volume else { return }
        volume = new
        raise(.volumeChanged(new))
    }

    /// Switches the TV to the device's input or away from it, raising the event when it changes.
    mutating func setActiveInput(_ active: Bool) {
        guard active == isOtherInput else { return }
        isOtherInput = !active
        raise(.activeInputChanged(active))
    }

    /// Puts the TV into or out of standby, raising the event when it changes.
    mutating func setStandby(_ standby: Bool) {
        guard standby != isStandBy else { return }
        isStandBy = standby
        raise(.standbyChanged(standby))
    }
}
