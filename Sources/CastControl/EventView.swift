import CastDevice
import CastWire

/// A typed device event as the event stream sends it: its kind's name, its time, a line a
/// person reads, and its fields.
package enum EventView {
    package static func json(_ event: DeviceEvent) -> JSONValue {
        var fields = self.fields(event.kind)
        fields["time"] = .number(event.time.seconds)
        fields["text"] = .string(LogText.escape(event.kind.description, limit: 2000))
        return .object(fields)
    }

    private static func number(_ value: Int) -> JSONValue { .number(Double(value)) }
    private static func connection(_ id: ConnectionID) -> JSONValue { .number(Double(id.rawValue)) }

    private static func app(_ app: AppInstance) -> JSONValue {
        ["appId": .string(app.appId), "displayName": .string(app.displayName), "sessionId": .string(app.sessionId),
         "transportId": .string(app.transportId), "idleScreen": .bool(app.isIdleScreen)]
    }

    private static func fields(_ kind: DeviceEvent.Kind) -> [String: JSONValue] {
        switch kind {
        case .connectionOpened(let id):
            return ["kind": "connectionOpened", "connection": connection(id)]
        case .connectionClosed(let id, let reason):
            return ["kind": "connectionClosed", "connection": connection(id), "reason": reason == .idleTimeout ? "idleTimeout" : "closed"]
        case .senderConnected(let link, let type, let userAgent):
            return ["kind": "senderConnected", "connection": connection(link.connection), "senderId": .string(link.peerId),
                    "endpoint": .string(link.localId), "type": .string(type.name), "userAgent": userAgent.map(JSONValue.string) ?? nil]
        case .senderDisconnected(let link):
            return ["kind": "senderDisconnected", "connection": connection(link.connection), "senderId": .string(link.peerId),
                    "endpoint": .string(link.localId)]
        case .appLaunched(let instance):
            return ["kind": "appLaunched", "app": app(instance)]
        case .appStopped(let instance):
            return ["kind": "appStopped", "app": app(instance)]
        case .mediaSessionStarted(let session, let itemId):
            return ["kind": "mediaSessionStarted", "mediaSessionId": number(session), "itemId": number(itemId)]
        case .mediaSessionEnded(let session, let reason):
            return ["kind": "mediaSessionEnded", "mediaSessionId": number(session), "idleReason": .string(reason.rawValue)]
        case .itemChanged(let session, let itemId):
            return ["kind": "itemChanged", "mediaSessionId": number(session), "itemId": number(itemId)]
        case .playerStateChanged(let session, let from, let to):
            return ["kind": "playerStateChanged", "mediaSessionId": number(session), "from": .string(from.rawValue), "to": .string(to.rawValue)]
        case .volumeChanged(let volume):
            return ["kind": "volumeChanged", "volume": volume.json]
        case .streamVolumeChanged(let session, let volume):
            return ["kind": "streamVolumeChanged", "mediaSessionId": number(session), "volume": volume.json]
        case .playbackRateChanged(let session, let rate):
            return ["kind": "playbackRateChanged", "mediaSessionId": number(session), "rate": .number(rate)]
        case .activeTracksChanged(let session, let trackIds):
            return ["kind": "activeTracksChanged", "mediaSessionId": number(session), "trackIds": .array(trackIds.map(number))]
        case .textTrackStyleChanged(let session, let style):
            return ["kind": "textTrackStyleChanged", "mediaSessionId": number(session), "style": style ?? nil]
        case .sessionTransferred(let peer, let outgoing):
            return ["kind": "sessionTransferred", "direction": outgoing ? "out" : "in", "peer": .string(peer)]
        case .adBreakChanged(let session, let breakId, let clipId):
            return ["kind": "adBreakChanged", "mediaSessionId": number(session), "breakId": breakId.map(JSONValue.string) ?? nil,
                    "breakClipId": clipId.map(JSONValue.string) ?? nil]
        case .standbyChanged(let standby):
            return ["kind": "standbyChanged", "standby": .bool(standby)]
        case .activeInputChanged(let active):
            return ["kind": "activeInputChanged", "activeInput": .bool(active)]
        case .advertisementChanged(.withdraw):
            return ["kind": "advertisementChanged", "advertised": false]
        case .advertisementChanged(.dropCast):
            return ["kind": "advertisementChanged", "advertised": false, "otherServices": true]
        case .advertisementChanged(.restore(let host, let port)):
            return ["kind": "advertisementChanged", "advertised": true, "host": host.map(JSONValue.string) ?? nil,
                    "port": port.map(number) ?? nil]
        case .faultApplied(let fault):
            return ["kind": "faultApplied", "fault": self.fault(fault)]
        case .messageUnhandled(let id, let namespace, let reason):
            return ["kind": "messageUnhandled", "connection": connection(id), "namespace": .string(namespace), "reason": .string(reason)]
        case .multizone(let event):
            return ["kind": "multizone", "multizone": event.json]
        case .streaming(let event):
            return ["kind": "streaming", "streaming": event.json]
        }
    }

    private static func fault(_ fault: Fault) -> JSONValue {
        switch fault {
        case .closeConnection(let id, let reset):
            ["type": "closeConnection", "connection": connection(id), "mode": reset ? "reset" : "clean"]
        case .sendFrame(let id, let frame):
            ["type": "sendFrame", "connection": connection(id), "kind": .string(frame.rawValue)]
        case .stopHeartbeats(let until):
            ["type": "stopHeartbeats", "until": .number(until.seconds)]
        case .unresponsive(let until):
            ["type": "unresponsive", "until": .number(until.seconds)]
        case .delayReplies(let by, let until, let id):
            ["type": "delayReplies", "by": .number(by), "until": .number(until.seconds), "connection": id.map(connection) ?? nil]
        }
    }
}
