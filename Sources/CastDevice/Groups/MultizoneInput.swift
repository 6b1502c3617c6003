import CastWire

/// What the coordinator of a household's groups (``Household``) tells one endpoint, as a
/// speaker group changes around it. A package input of its own, beside ``OperatorInput``
/// (which the scenario and control modules switch over): these are no remote-control
/// actions but news of the other devices of a group.
///
/// Every change is broadcast to the endpoint's senders as a real one would: RECEIVER_STATUS
/// when a member starts or stops mirroring, DEVICE_* on a group endpoint's multizone namespace.
package enum MultizoneInput: Sendable, Equatable {
    /// A member mirrors its group's session as `role`: the leader runs `531A4F84` with the
    /// group's sessionId, a follower `705D30C6` with a fresh one (docs/protocol/groups.md §3.3).
    /// Given again with another role (the leader moved) or session, it relaunches.
    case follow(GroupSession, role: GroupMemberRole)
    /// The group session the member mirrors is over (or the group is gone): back to idle,
    /// its idle screen or nothing. Ignored when it mirrors no session of that group.
    case stopFollowing(groupId: String)
    /// A group endpoint: a member came online (DEVICE_ADDED). One already listed is updated.
    case memberAdded(MultizoneMember)
    /// A group endpoint: a member's name, capabilities or volume changed (DEVICE_UPDATED).
    case memberUpdated(MultizoneMember)
    /// A group endpoint: a member went offline (DEVICE_REMOVED). `uuid` with or without dashes.
    case memberRemoved(uuid: String)
}

extension SimulatedDevice {
    /// Applies a multizone input at `now`.
    package mutating func apply(_ input: MultizoneInput, now: SimTime) -> [DeviceOutput] {
        self.now = max(self.now, now)
        switch input {
        case .follow(let session, let role):
            follow(session, as: role)
        case .stopFollowing(let groupId):
            stopFollowing(groupId)
        case .memberAdded(let member):
            updateMember(member, added: true)
        case .memberUpdated(let member):
            updateMember(member, added: false)
        case .memberRemoved(let uuid):
            removeMember(DeviceIdentity.normalizeUUID(uuid) ?? uuid)
        }
        return drain()
    }

    private mutating func follow(_ session: GroupSession, as role: GroupMemberRole) {
        guard !configuration.multizone.isGroup else {
            log(.warning, nil, "follow of group \(session.groupId) ignored: a group endpoint follows no group")
            return
        }
        let wanted = MultizoneState.Following(session: session, role: role)
        guard multizone.following != wanted else { return }
        // Cleared first: replacing one stand-in with another is no leaving (memberAppStopped).
        multizone.following = nil
        launch(.multizoneMember(role, displayName: session.displayName), sessionId: role == .leader ? session.sessionId : nil)
        guard runningApp?.definition.appId == CastAppDefinition.multizoneAppId(role) else { return }
        multizone.following = wanted
        raise(.multizone(.followingGroup(groupId: session.groupId, role: role)))
        broadcastReceiverStatus(answering: nil)
    }

    private mutating func stopFollowing(_ groupId: String) {
        guard multizone.following?.session.groupId == groupId else { return }
        multizone.following = nil
        stopRunningApp()
        returnToIdleScreen()
        raise(.multizone(.stoppedFollowing(groupId: groupId)))
        broadcastReceiverStatus(answering: nil)
    }

    /// A member's stand-in stopped while the member still mirrored its group: something on
    /// the member's own endpoint (a sender's LAUNCH or STOP, the remote) replaced it. The
    /// member leaves the session; the coordinator learns it from the event.
    mutating func memberAppStopped(_ running: RunningApp) {
        guard let following = multizone.following,
              running.definition.behaviour == .multizoneMember else { return }
        multizone.following = nil
        log(.info, nil, "left the session of group \(following.session.groupId)")
        raise(.multizone(.leftGroupSession(groupId: following.session.groupId)))
    }

    private mutating func updateMember(_ member: MultizoneMember, added: Bool) {
        guard configuration.multizone.isGroup else {
            log(.warning, nil, "member \(member.deviceId) ignored: this endpoint is no group")
            return
        }
        guard let index = multizone.members.firstIndex(where: { $0.uuid == member.uuid }) else {
            guard added else {
                log(.warning, nil, "update of member \(member.deviceId) ignored: it is not online in this group")
                return
            }
            multizone.members.append(member)
            raise(.multizone(.memberAdded(uuid: member.uuid)))
            broadcastMultizone(MultizoneMessages.deviceAdded(member))
            return
        }
        // Only a change is news (one volume change, one DEVICE_UPDATED).
        guard multizone.members[index] != member else { return }
        multizone.members[index] = member
        raise(.multizone(.memberUpdated(uuid: member.uuid)))
        broadcastMultizone(MultizoneMessages.deviceUpdated(member))
    }

    private mutating func removeMember(_ uuid: String) {
        guard let index = multizone.members.firstIndex(where: { $0.uuid == uuid }) else { return }
        let member = multizone.members.remove(at: index)
        raise(.multizone(.memberRemoved(uuid: uuid)))
        broadcastMultizone(MultizoneMessages.deviceRemoved(member))
    }
}
