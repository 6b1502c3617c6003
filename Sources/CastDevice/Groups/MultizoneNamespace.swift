import CastWire

// urn:x-cast:com.google.cast.multizone on `receiver-0` (docs/protocol/groups.md §4): every
// endpoint answers it, a device about itself, a group endpoint about its members.

extension SimulatedDevice {
    /// The devices this endpoint reports: a group endpoint's members online, or the device itself.
    var multizoneDevices: [MultizoneMember] {
        configuration.multizone.isGroup ? multizone.members : [MultizoneMember(identity: configuration.identity, volume: volume)]
    }

    /// Whether `playbackSession` goes into MULTIZONE_STATUS: an app other than the idle
    /// screen runs here (a member's stand-in for its group's app included).
    var multizoneIsPlaying: Bool { runningApp.map { !$0.app.isIdleScreen } ?? false }

    mutating func handleMultizoneNamespace(_ envelope: CastEnvelope, payload: JSONValue?, on connection: ConnectionID) {
        // Malformed payloads and missing requestIds are refused as on the receiver namespace.
        let request: PlatformRequest
        switch PlatformRequest.read(envelope, payload: payload, on: connection) {
        case .success(let read):
            request = read
        case .failure(let refused):
            rejectMultizoneRequest(refused.rejection, type: refused.type, to: refused.requester)
            return
        }
        let header = request.header, requester = request.requester, requestId = request.requestId
        do {
            switch try MultizoneRequest(header) {
            case .getStatus:
                replyMultizone(MultizoneMessages.status(requestId: requestId, devices: multizoneDevices, playing: multizoneIsPlaying,
                                                        multichannel: multizone.isMultichannel),
                               to: requester)
            case .getCastingGroups:
                replyMultizone(MultizoneMessages.castingGroups(requestId: requestId), to: requester)
            case .setDeviceVolume(let uuid, let change):
                try setDeviceVolume(uuid, change)
            }
        } catch {
            rejectMultizoneRequest(error, type: header.type, to: requester)
        }
    }

    /// SET_DEVICE_VOLUME. A group endpoint cannot reach its member's device: it raises
    /// ``MultizoneEvent/memberVolumeRequested(uuid:_:)`` and the member's change comes back
    /// as DEVICE_UPDATED (what, if anything, a real group answers is open, groups.md §8). A device
    /// asked about itself changes its own volume, as SET_VOLUME would.
    private mutating func setDeviceVolume(_ uuid: String, _ change: VolumeChange) throws(RequestRejection) {
        guard multizoneDevices.contains(where: { $0.uuid == uuid }) else {
            throw .invalidParams("SET_DEVICE_VOLUME: deviceId \(DeviceIdentity.dashed(uuid)) is no device of this endpoint")
        }
        if configuration.multizone.isGroup {
            raise(.multizone(.memberVolumeRequested(uuid: uuid, change)))
        } else {
            changeVolume(change, answering: nil)
        }
    }

    /// A device's own volume changed (``changeVolume(_:answering:)``): DEVICE_UPDATED about
    /// itself to its senders (HA #38535: within a second on the speaker's 8009 and on its
    /// groups' ports). A group endpoint's own level is the group's, not a device's: it
    /// says nothing here; its members' changes reach it as ``MultizoneInput/memberUpdated(_:)``.
    mutating func ownVolumeChanged() {
        guard !configuration.multizone.isGroup else { return }
        broadcastMultizone(MultizoneMessages.deviceUpdated(MultizoneMember.json(ownMultizoneEntry, volume: volume)))
    }

    /// To every sender with a virtual connection to `receiver-0` (destination `*`).
    mutating func broadcastMultizone(_ payload: JSONPayload) {
        broadcast(from: CastEndpoint.platformReceiver, namespace: CastNamespace.multizone, payload, answering: nil)
    }

    private mutating func replyMultizone(_ payload: JSONPayload, to requester: Requester) {
        reply(payload, to: requester, from: CastEndpoint.platformReceiver, namespace: CastNamespace.multizone)
    }

    private mutating func rejectMultizoneRequest(_ rejection: RequestRejection, type: String?, to requester: Requester) {
        log(.info, requester.connection, rejection.logLine(namespace: "multizone", type: type))
        replyMultizone(rejection.payload(requestId: requester.requestId), to: requester)
    }

    /// A group's playback session began or ended (MULTIZONE_STATUS's `playbackSession`
    /// comes or goes): PLAYBACK_SESSION_UPDATED to the group's senders, with nothing else
    /// in it. Its payload and timing are in no source (groups.md §4.1 [?]); pychromecast
    /// reads only `type`.
    mutating func groupPlaybackSessionUpdated() {
        guard configuration.multizone.isGroup else { return }
        broadcastMultizone(MultizoneMessages.playbackSessionUpdated)
    }
}
