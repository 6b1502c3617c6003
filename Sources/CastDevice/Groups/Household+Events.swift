extension Household {
    /// What the other endpoints must do because `endpoint` raised `event`. Events that
    /// concern no group give nothing.
    package mutating func handle(_ event: DeviceEvent, from endpoint: HouseholdEndpoint) -> [HouseholdAction] {
        switch (endpoint, event.kind) {
        case (.device(let id), .volumeChanged(let volume)):
            return memberVolumeChanged(id, to: volume)
        case (.device(let id), .multizone(.leftGroupSession(let groupId))):
            // It plays for itself now; the group's end must not stop its app.
            if devices[id]?.following == groupId { devices[id]!.following = nil }
            return []
        case (.group(let groupId), .volumeChanged(let volume)):
            return groupVolumeChanged(groupId, to: volume)
        case (.group(let groupId), .multizone(.memberVolumeRequested(let id, let change))):
            guard groups[groupId]?.memberIds.contains(id) == true, devices[id]?.isOnline == true else { return [] }
            return [.operatorInput(.setDeviceVolume(level: change.level, muted: change.muted), to: .device(id))]
        case (.group(let groupId), .appLaunched(let app)) where !app.isIdleScreen:
            return groupSessionStarted(groupId, GroupSession(groupId: groupId, sessionId: app.sessionId, displayName: app.displayName))
        case (.group(let groupId), .appStopped(let app)) where !app.isIdleScreen:
            guard groups[groupId]?.session?.sessionId == app.sessionId else { return [] }
            groups[groupId]!.session = nil
            return stopMirroring(groupId)
        default:
            return []
        }
    }

    /// A member's own volume changed (its SET_VOLUME, the remote, or one of ours): its
    /// groups hear DEVICE_UPDATED and their level follows.
    private mutating func memberVolumeChanged(_ id: String, to volume: Volume) -> [HouseholdAction] {
        guard devices[id] != nil else { return [] }
        devices[id]!.volume = volume
        guard devices[id]!.isOnline else { return [] }
        var actions: [HouseholdAction] = []
        for groupId in groupIds(containing: id) where groups[groupId]!.isEndpointRunning {
            actions.append(.multizone(.memberUpdated(devices[id]!.member), to: .group(groupId)))
            actions += followMembers(groupId)
        }
        return actions
    }

    /// The group endpoint's volume changed. Our own setting of its level (``followMembers(_:)``)
    /// comes back here as an echo and does nothing; a sender's SET_VOLUME scales the members.
    private mutating func groupVolumeChanged(_ groupId: String, to volume: Volume) -> [HouseholdAction] {
        guard let group = groups[groupId], group.isEndpointRunning, volume != group.volume else { return [] }
        groups[groupId]!.volume = volume
        // Mute belongs to the group (GroupVolumeRule): nothing for the members.
        guard volume.level != group.volume.level else { return [] }
        let members = onlineMembers(of: group)
        let levels = GroupVolumeRule.memberLevels(members.map { devices[$0]!.volume.level },
                                                  from: group.volume.level, to: volume.level)
        var actions: [HouseholdAction] = []
        for (id, level) in zip(members, levels) where level != devices[id]!.volume.level {
            // Noted at once, so that the group level recomputed as each member's change
            // comes back sees the others' new levels too, not a mix that would bounce it.
            devices[id]!.volume.level = level
            actions.append(.operatorInput(.setDeviceVolume(level: level, muted: nil), to: .device(id)))
        }
        return actions
    }

    /// The group endpoint launched an app: every online member mirrors it
    /// (docs/protocol/groups.md §3.3).
    private mutating func groupSessionStarted(_ groupId: String, _ session: GroupSession) -> [HouseholdAction] {
        guard let group = groups[groupId], group.isEndpointRunning else { return [] }
        groups[groupId]!.session = session
        var actions: [HouseholdAction] = []
        for id in onlineMembers(of: group) {
            devices[id]!.following = groupId
            actions.append(.multizone(.follow(session, role: id == group.leaderId ? .leader : .follower), to: .device(id)))
        }
        return actions
    }
}
