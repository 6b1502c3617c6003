import CastWire

/// The payloads the multizone namespace sends (docs/protocol/groups.md §4.1–§4.2),
/// built in one place so the status, the broadcasts and the tests agree on their shape.
enum MultizoneMessages {
    /// `{"requestId":N,"type":"MULTIZONE_STATUS","status":{…}}`. `playbackSession` only
    /// while an app other than an idle screen runs on the endpoint (notes-1: present only
    /// while something plays). `streamTransferSupported` is false: castsim has no
    /// STORE_SESSION / RESUME_SESSION (groups.md §6).
    /// `isMultichannel` is true on a stereo pair's group (groups.md §9: what real pairs say
    /// is open; the field's name is the one place that tells).
    static func status(requestId: Int, devices: [MultizoneMember], playing: Bool, multichannel: Bool = false) -> JSONPayload {
        var status: [String: JSONValue] = [
            "devices": .array(devices.map(\.json)),
            // Never a video group.
            "isMultichannel": .bool(multichannel),
            "isVideoGroup": false,
        ]
        if playing {
            status["playbackSession"] = ["appAllowsGrouping": true, "isVideoContent": false, "streamTransferSupported": false]
        }
        return JSONPayload(["requestId": .number(Double(requestId)), "type": "MULTIZONE_STATUS", "status": .object(status)])
    }

    /// `{"type":"CASTING_GROUPS","requestId":N,"groups":[]}`. The payload has never been
    /// seen (groups.md §4.1, §8): the shape is a guess that pychromecast, which reads nothing of it,
    /// accepts.
    static func castingGroups(requestId: Int) -> JSONPayload {
        JSONPayload(["type": "CASTING_GROUPS", "requestId": .number(Double(requestId)), "groups": []])
    }

    /// `{"type":"PLAYBACK_SESSION_UPDATED","requestId":0}`, broadcast by a group endpoint.
    static let playbackSessionUpdated = JSONPayload(["type": "PLAYBACK_SESSION_UPDATED", "requestId": 0])

    /// `{"type":"DEVICE_ADDED","requestId":0,"device":{…}}`, broadcast.
    static func deviceAdded(_ member: MultizoneMember) -> JSONPayload {
        JSONPayload(["type": "DEVICE_ADDED", "requestId": 0, "device": member.json])
    }

    /// `{"type":"DEVICE_UPDATED","requestId":0,"device":{…}}`, broadcast.
    static func deviceUpdated(_ member: MultizoneMember) -> JSONPayload {
        deviceUpdated(member.json)
    }

    /// DEVICE_UPDATED with an entry made already.
    static func deviceUpdated(_ device: JSONValue) -> JSONPayload {
        JSONPayload(["type": "DEVICE_UPDATED", "requestId": 0, "device": device])
    }

    /// `{"type":"DEVICE_REMOVED","requestId":0,"deviceId":"…"}`: the id at the top level,
    /// no `device` object (pychromecast reads `data["deviceId"]`).
    static func deviceRemoved(_ member: MultizoneMember) -> JSONPayload {
        JSONPayload(["type": "DEVICE_REMOVED", "requestId": 0, "deviceId": .string(member.deviceId)])
    }
}
