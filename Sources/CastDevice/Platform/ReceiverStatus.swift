import CastWire

/// Everything RECEIVER_STATUS says, and nothing else: the status is a function of this
/// value, so two equal values make the same status, and comparing them (a few fields) is
/// how the device knows it may reuse the status it encoded last time.
struct ReceiverStatusInputs: Equatable {
    struct Application: Equatable {
        var instance: AppInstance
        var namespaces: [String]
        var senderConnected: Bool
    }

    var volume: Volume
    var volumeControl: VolumeControl
    var application: Application?
    /// nil on an audio-only device, which reports neither isActiveInput nor isStandBy.
    var isStandBy: Bool?
    var isOtherInput = false

    /// The `status` object of RECEIVER_STATUS (docs/protocol/platform.md §2).
    var status: JSONValue {
        var status: [String: JSONValue] = [
            "userEq": [:],
            "volume": [
                "controlType": .string(volumeControl.controlType.rawValue),
                "level": .number(volume.level),
                "muted": .bool(volume.muted),
                "stepInterval": .number(volumeControl.stepInterval),
            ],
        ]
        if let application {
            // The key is absent, not empty, when nothing runs.
            status["applications"] = [application.status]
        }
        if let isStandBy {
            status["isActiveInput"] = .bool(!isStandBy && !isOtherInput)
            status["isStandBy"] = .bool(isStandBy)
        }
        return .object(status)
    }
}

/// What the last RECEIVER_STATUS `status` was built from, and its text.
struct ReceiverStatusCache {
    var inputs: ReceiverStatusInputs
    var text: String
}

extension ReceiverStatusInputs.Application {
    var status: JSONValue {
        [
            "appId": .string(instance.appId),
            "appType": "WEB",
            "displayName": .string(instance.displayName),
            "iconUrl": "",
            "isIdleScreen": .bool(instance.isIdleScreen),
            "launchedFromCloud": false,
            // Objects with a `name`, never bare strings: pychromecast reads item["name"].
            "namespaces": .array(namespaces.map { ["name": .string($0)] }),
            "senderConnected": .bool(senderConnected),
            "sessionId": .string(instance.sessionId),
            "statusText": .string(instance.statusText),
            "transportId": .string(instance.transportId),
            "universalAppId": .string(instance.appId),
        ]
    }
}

extension SimulatedDevice {
    var receiverStatusInputs: ReceiverStatusInputs {
        ReceiverStatusInputs(
            volume: volume,
            volumeControl: configuration.effectiveVolumeControl,
            application: runningApp.map { running in
                ReceiverStatusInputs.Application(
                    instance: running.instance, namespaces: running.definition.namespaces,
                    senderConnected: virtualConnections.hasVisibleSender(on: running.transportId))
            },
            isStandBy: configuration.identity.supportsVideo ? isStandBy : nil, isOtherInput: isOtherInput)
    }

    /// RECEIVER_STATUS answering `requestId`. The status is built and encoded again only
    /// when what it says changed since the last one: senders poll GET_STATUS far more
    /// often than anything changes.
    mutating func receiverStatusMessage(requestId: Int) -> JSONPayload {
        let inputs = receiverStatusInputs
        let cached: ReceiverStatusCache
        if let last = receiverStatusCache, last.inputs == inputs {
            cached = last
        } else {
            cached = ReceiverStatusCache(inputs: inputs, text: inputs.status.jsonText())
            receiverStatusCache = cached
        }
        // An id as jsonText() writes the number: digits alone, up to 10^15 (ids are far smaller).
        let idText = abs(requestId) < 1_000_000_000_000_000 ? String(requestId) : JSONValue.number(Double(requestId)).jsonText()
        // Keys in the order jsonText() sorts them: requestId, status, type. Put together in
        // one buffer of the exact size: an interpolation grows its buffer by doubling, and
        // this text is kept, with every spare byte, in the journal and the outbound queues.
        var text = #"{"requestId":"#
        text.reserveCapacity(text.utf8.count + idText.utf8.count + cached.text.utf8.count + Self.receiverStatusTail.utf8.count + 10)
        text += idText
        text += #","status":"#
        text += cached.text
        text += Self.receiverStatusTail
        return JSONPayload(text: text)
    }

    private static let receiverStatusTail = #","type":"RECEIVER_STATUS"}"#

    /// Tells every sender on `receiver-0` about a change, tagged with the id of the request
    /// that caused it (0 for unsolicited changes).
    mutating func broadcastReceiverStatus(answering requester: Requester?) {
        broadcast(from: CastEndpoint.platformReceiver, namespace: CastNamespace.receiver,
                  receiverStatusMessage(requestId: requester?.requestId ?? 0), answering: requester)
    }
}
