import CastWire

/// Everything RECEIVER_STATUS says, and nothing else: the status is a function of this
/// value, so two equal values make the same status, and comparing them (a few fields) is
/// how the device knows it may reuse the status it encoded last time.
struct ReceiverStatusInputs: Equatable, Sendable {
    struct Application: Equatable, Sendable {
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

/// What the last RECEIVER_STATUS `status` was built from, and what follows the requestId
/// in the message: `,"status":{…},"type":"RECEIVER_STATUS"}`. A class: the device holds it
/// across every GET_STATUS, and a reference is one count to take where a copy of its
/// strings was a dozen.
final class ReceiverStatusCache: Sendable {
    let inputs: ReceiverStatusInputs
    let tail: String

    init(inputs: ReceiverStatusInputs) {
        self.inputs = inputs
        // Keys in the order jsonText() sorts them: requestId, status, type.
        let status = inputs.status.jsonText()
        var tail = #","status":"#
        tail.reserveCapacity(tail.utf8.count + status.utf8.count + Self.typeMember.utf8.count)
        tail += status
        tail += Self.typeMember
        self.tail = tail
    }

    private static let typeMember = #","type":"RECEIVER_STATUS"}"#

    /// The message answering `requestId`, in one buffer of the exact size: it is kept, with
    /// any spare byte, in the journal and the outbound queues.
    func message(requestId: Int) -> String {
        // An id as jsonText() writes the number: digits alone, up to 10^15 (ids are far smaller).
        let idText = abs(requestId) < 1_000_000_000_000_000 ? String(requestId) : JSONValue.number(Double(requestId)).jsonText()
        let head = #"{"requestId":"#
        var text = head
        text.reserveCapacity(head.utf8.count + idText.utf8.count + tail.utf8.count)
        text += idText
        text += tail
        return text
    }
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

    /// Whether RECEIVER_STATUS would say what the cached one does: ``receiverStatusInputs``
    /// == `cache.inputs`, compared where the values lie. Asked on every GET_STATUS:
    /// gathering the inputs first copied the running app's strings and namespaces to
    /// compare them (a tenth of the request's time in the session). Debug builds check the
    /// two agree on every call.
    func receiverStatusUnchanged(since cache: ReceiverStatusCache) -> Bool {
        guard volume == cache.inputs.volume, configuration.effectiveVolumeControl == cache.inputs.volumeControl,
              (configuration.identity.supportsVideo ? isStandBy : nil) == cache.inputs.isStandBy,
              isOtherInput == cache.inputs.isOtherInput
        else { return false }
        guard let running = runningApp, let application = cache.inputs.application else {
            return runningApp == nil && cache.inputs.application == nil
        }
        let instance = application.instance
        guard running.sessionId == instance.sessionId, running.transportId == instance.transportId,
              running.definition.appId == instance.appId, running.definition.displayName == instance.displayName,
              running.app.isIdleScreen == instance.isIdleScreen,
              AppInstance.statusText(running.app.statusText, isIdleScreen: instance.isIdleScreen, displayName: instance.displayName)
                == instance.statusText,
              running.definition.namespaces == application.namespaces
        else { return false }
        return virtualConnections.hasVisibleSender(on: instance.transportId) == application.senderConnected
    }

    /// RECEIVER_STATUS answering `requestId`. The status is built and encoded again only
    /// when what it says changed since the last one: senders poll GET_STATUS far more
    /// often than anything changes.
    mutating func receiverStatusMessage(requestId: Int) -> JSONPayload {
        if let cache = receiverStatusCache, receiverStatusUnchanged(since: cache) {
            assert(receiverStatusInputs == cache.inputs, "receiverStatusUnchanged(since:) disagrees with receiverStatusInputs")
            return JSONPayload(text: cache.message(requestId: requestId))
        }
        assert(receiverStatusCache.map { receiverStatusInputs == $0.inputs } != true,
               "receiverStatusUnchanged(since:) disagrees with receiverStatusInputs")
        let cache = ReceiverStatusCache(inputs: receiverStatusInputs)
        receiverStatusCache = cache
        return JSONPayload(text: cache.message(requestId: requestId))
    }

    /// Tells every sender on `receiver-0` about a change, tagged with the id of the request
    /// that caused it (0 for unsolicited changes).
    mutating func broadcastReceiverStatus(answering requester: Requester?) {
        broadcast(from: CastEndpoint.platformReceiver, namespace: CastNamespace.receiver,
                  receiverStatusMessage(requestId: requester?.requestId ?? 0), answering: requester)
    }
}
