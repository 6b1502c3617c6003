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

    /// RECEIVER_STATUS answering `requestId`. The `status` text is encoded again only
    /// when the status changed since the last one: senders poll GET_STATUS far more often
    /// than anything changes, and comparing two statuses costs a fraction of encoding one.
    mutating func receiverStatusMessage(requestId: Int) -> JSONPayload {
        let status = receiverStatus
        let statusText: String
        if let cached = receiverStatusCache, cached.status == status {
            statusText = cached.text
        } else {
            statusText = status.jsonText()
            receiverStatusCache = (status, statusText)
        }
        let id = JSONValue.number(Double(requestId))
        // Keys in the order jsonText() sorts them: requestId, status, type.
        return JSONPayload(value: ["type": "RECEIVER_STATUS", "requestId": id, "status": status],
                           text: #"{"requestId":\#(id.jsonText()),"status":\#(statusText),"type":"RECEIVER_STATUS"}"#)
    }

    /// Tells every sender on `receiver-0` about a change, tagged with the id of the request
    /// that caused it (0 for unsolicited changes).
    mutating func broadcastReceiverStatus(answering requester: Requester?) {
        broadcast(from: CastEndpoint.platformReceiver, namespace: CastNamespace.receiver,
                  receiverStatusMessage(requestId: requester?.requestId ?? 0), answering: requester)
    }
}
