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
        if let app = runningApp {
            // The key is absent, not empty, when nothing runs.
            status["applications"] = [applicationStatus(app)]
        }
        if configuration.identity.supportsVideo {
            status["isActiveInput"] = .bool(!isStandBy)
            status["isStandBy"] = .bool(isStandBy)
        }
        return .object(status)
    }

    private func applicationStatus(_ app: RunningApp) -> JSONValue {
        let definition = app.definition
        return [
            "appId": .string(definition.appId),
            "appType": "WEB",
            "displayName": .string(definition.displayName),
            "iconUrl": "",
            "isIdleScreen": .bool(definition.behaviour == .idleScreen),
            "launchedFromCloud": false,
            // Objects with a `name`, never bare strings: pychromecast reads item["name"].
            "namespaces": .array(definition.namespaces.map { ["name": .string($0)] }),
            "senderConnected": .bool(virtualConnections.hasVisibleSender(on: app.transportId)),
            "sessionId": .string(app.sessionId),
            "statusText": .string(definition.behaviour == .idleScreen ? "" : definition.displayName),
            "transportId": .string(app.transportId),
            "universalAppId": .string(definition.appId),
        ]
    }

    func receiverStatusMessage(requestId: Int) -> JSONValue {
        ["type": "RECEIVER_STATUS", "requestId": .number(Double(requestId)), "status": receiverStatus]
    }

    /// Tells every sender on `receiver-0` about a change; `requestId` is the causing
    /// request's id, or 0 for unsolicited changes.
    mutating func broadcastReceiverStatus(requestId: Int) {
        broadcast(from: CastEndpoint.platformReceiver, namespace: CastNamespace.receiver,
                  receiverStatusMessage(requestId: requestId))
    }
}
