import CastWire

/// A request on urn:x-cast:com.google.cast.multizone (docs/protocol/groups.md §4.1), decoded
/// before any handler runs, as ``ReceiverRequest`` is for the receiver namespace.
package enum MultizoneRequest: Sendable, Equatable {
    /// MULTIZONE_STATUS to the requester.
    case getStatus
    /// pychromecast sends it and reads nothing of the answer.
    case getCastingGroups
    /// One member's volume, asked on a group endpoint. `uuid` is the `deviceId` made
    /// 32 lower-case hex (dashes and case are not held against the sender).
    case setDeviceVolume(uuid: String, VolumeChange)

    package init(_ header: RequestHeader) throws(RequestRejection) {
        let body = header.body
        switch header.type {
        case "GET_STATUS":
            self = .getStatus
        case "GET_CASTING_GROUPS":
            self = .getCastingGroups
        case "SET_DEVICE_VOLUME":
            // iOS `setDeviceVolume:forMultizoneDevice:` / `setDeviceMuted:…`: a level or a mute flag.
            let (deviceId, change) = try params { () throws(JSONReadError) in
                (try body.required("deviceId", "a device UUID").string(), try VolumeChange(body))
            }
            guard let uuid = DeviceIdentity.normalizeUUID(deviceId) else {
                throw .invalidParams("SET_DEVICE_VOLUME: deviceId \"\(deviceId)\" is no device UUID")
            }
            self = .setDeviceVolume(uuid: uuid, change)
        default:
            // OpenCastSwift's SET_VOLUME with a deviceId lands here too: the reference
            // guesses firmware refuses it (groups.md §4.1).
            throw .invalidRequest(.invalidCommand, "unknown multizone request type \"\(header.type)\"")
        }
    }
}
