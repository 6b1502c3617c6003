import CastWire

extension SimulatedDevice {
    /// The `status` object of RECEIVER_STATUS (§5.2).
    var receiverStatus: JSONValue {
        var status: [String: JSONValue] = [
            "userEq": [:],
            "volume": [
                "controlType": "attenuation",
                "level": .number(volume.level),
                "muted": .bool(volume.muted),
                "stepInterval": 0.05,
            ],
        ]
        if let running = runningApp {
            // The key is absent, not empty, when nothing runs.
            status["applications"] = [applicationStatus(running)]
        }
        if configuration.identity.supportsVideo {
            status["isActiveInput"] = .bool(!isStandBy)
            status["isStandBy"] = .bool(isStandBy)
        }
        return .object(status)
    }

    private func applicationStatus(_ running: RunningApp) -> JSONValue {
        let definition = running.definition
        let isIdleScreen = running.app.isIdleScreen
        return [
            "appId": .string(definition.appId),
            "appType": "WEB",
            "displayName": .string(definition.displayName),
            "iconUrl": "",
            "isIdleScreen": .bool(isIdleScreen),
            "launchedFromCloud": false,
            // Objects with a `name`, never bare strings: pychromecast reads item["name"].
            "namespaces": .array(definition.namespaces.map { ["name": .string($0)] }),
            "senderConnected": .bool(virtualConnections.hasVisibleSender(on: running.transportId)),
            "sessionId": .string(running.sessionId),
            "statusText": .string(isIdleScreen ? "" : definition.displayName),
            "transportId": .string(running.transportId),
            "universalAppId": .string(definition.appId),
        ]
    }

    func receiverStatusMessage(requestId: Int) -> JSONPayload {
        JSONPayload(["type": "RECEIVER_STATUS", "requestId": .number(Double(requestId)), "status": receiverStatus])
    }

    /// Tells every sender on `receiver-0` about a change, tagged with the id of the request
    /// that caused it (0 for unsolicited changes).
    mutating func broadcastReceiverStatus(answering requester: Requester?) {
        broadcast(from: CastEndpoint.platformReceiver, namespace: CastNamespace.receiver,
                  receiverStatusMessage(requestId: requester?.requestId ?? 0), answering: requester)
    }
}
