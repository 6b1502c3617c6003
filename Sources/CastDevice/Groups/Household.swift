/// The coordinator of a household's speaker groups: the one place that knows which
/// devices make which group, who leads, who is online and what each plays, and turns what
/// one endpoint did into what the others must do (docs/protocol/groups.md §3–§5).
///
/// Pure and deterministic like ``SimulatedDevice``: no clock, no I/O. Every endpoint (a
/// device's 8009 and each group's port) is its own ``SimulatedDevice``, held by the
/// runtime; a group endpoint cannot reach its members, so this type carries news between them.
///
/// How the runtime uses it:
/// 1. ``addDevice(_:)`` for every device that can be a member, then
///    ``createGroup(uuid:name:members:leader:port:)``; carry out the actions it returns
///    (``HouseholdAction/startGroupEndpoint(groupId:leaderId:port:configuration:)``).
/// 2. Feed every ``DeviceEvent`` of every endpoint to ``handle(_:from:)`` and carry out
///    the actions it returns: apply each ``MultizoneInput`` / ``OperatorInput`` to that
///    endpoint's device at the current time, and feed the events *that* raises back in,
///    until no action is left. The loop ends: an input whose result is already the state
///    raises nothing (volume echoes are recognized, member updates are deduplicated).
/// 3. Tell it of the world: ``deviceWentOffline(_:)``, ``deviceCameOnline(_:volume:)``,
///    ``moveLeader(of:to:)``, ``deleteGroup(_:)``; carry out what they return the same way.
///
/// What it does with events:
/// * the group endpoint launches an app → every online member follows (leader `531A4F84`,
///   followers `705D30C6`); the app stops → they return to idle;
/// * a member's volume changes → the group hears DEVICE_UPDATED and its own level follows
///   ``GroupVolumeRule``; a sender's SET_VOLUME on the group → every member is scaled;
///   SET_DEVICE_VOLUME on the group → that member's volume;
/// * a member leaves the session by itself (its own app) → it is left alone until the
///   group's next session.
package struct Household: Sendable {
    /// A speaker group as the household knows it.
    package struct Group: Sendable, Equatable {
        package let uuid: String
        package var name: String
        /// Members' UUIDs, in the order the group lists them.
        package var memberIds: [String]
        package var leaderId: String
        /// The group's Cast port, kept across leader moves (groups.md §1.3).
        package var port: Int
        /// Whether the group endpoint runs (some member is online to host it).
        package var isEndpointRunning: Bool
        /// The group endpoint's device volume, as last set or heard.
        package var volume: Volume
        /// The app the group endpoint runs, which its members mirror.
        package var session: GroupSession?
        /// Two speakers as left and right channels (members in that order).
        package var isStereoPair = false
    }

    /// A device that can be a member, as the household knows it.
    package struct Device: Sendable, Equatable {
        package var configuration: DeviceConfiguration
        /// Its own device volume, as last heard (or asked for, while the answer is on its way).
        package var volume: Volume
        package var isOnline: Bool
        /// The group whose session it mirrors now.
        package var following: String?

        /// Its entry in a group's MULTIZONE_STATUS and DEVICE_* messages.
        package var member: MultizoneMember { MultizoneMember(identity: configuration.identity, volume: volume) }
    }

    package internal(set) var groups: [String: Group] = [:]
    package internal(set) var devices: [String: Device] = [:]

    package init() {}

    // MARK: Membership

    /// A device that can join groups, online, at its configured volume.
    package mutating func addDevice(_ configuration: DeviceConfiguration) {
        devices[configuration.identity.uuid] = Device(
            configuration: configuration,
            volume: Volume(level: configuration.initialVolume.clamped(to: 0...1), muted: configuration.initiallyMuted),
            isOnline: true)
    }

    /// A new group. Its endpoint starts at once when a member is online (the leader given,
    /// or the first member online when the leader is not).
    package mutating func createGroup(uuid: String, name: String, members: [String], leader: String, port: Int,
                                      stereoPair: Bool = false) throws(HouseholdError) -> [HouseholdAction]
    {
        guard let groupId = DeviceIdentity.normalizeUUID(uuid) else { throw .invalidUUID(uuid) }
        guard groups[groupId] == nil else { throw .groupExists(groupId) }
        var memberIds: [String] = []
        for member in members {
            guard let id = DeviceIdentity.normalizeUUID(member) else { throw .invalidUUID(member) }
            guard devices[id] != nil else { throw .unknownDevice(id) }
            if !memberIds.contains(id) { memberIds.append(id) }
        }
        guard let leaderId = DeviceIdentity.normalizeUUID(leader), memberIds.contains(leaderId) else {
            throw .badMembership("the leader \(leader) is not among the members")
        }
        var group = Group(uuid: groupId, name: name, memberIds: memberIds, leaderId: leaderId, port: port,
                          isEndpointRunning: false, volume: Volume(level: 1, muted: false), session: nil, isStereoPair: stereoPair)
        group.volume.level = GroupVolumeRule.groupLevel(of: onlineMembers(of: group).map { devices[$0]!.volume.level },
                                                        current: 1)
        groups[groupId] = group
        if devices[leaderId]!.isOnline { return startEndpoint(groupId) }
        if let other = onlineMembers(of: group).first {
            groups[groupId]!.leaderId = other
            return startEndpoint(groupId)
        }
        return []
    }

    /// The group is gone: members mirroring it return to idle, its endpoint stops.
    package mutating func deleteGroup(_ uuid: String) throws(HouseholdError) -> [HouseholdAction] {
        let group = try existingGroup(uuid)
        var actions = stopMirroring(group.uuid)
        if group.isEndpointRunning { actions.append(.stopGroupEndpoint(groupId: group.uuid)) }
        groups[group.uuid] = nil
        return actions
    }

    // MARK: Devices coming and going

    /// A member is gone (powered off, off the network). Its groups list it no more
    /// (DEVICE_REMOVED; which message firmware uses is open, groups.md §5.2) and their level is
    /// recomputed; a group it led moves to the next member online, or stops with none.
    /// The device's own endpoint is the runtime's business: no input goes to it.
    package mutating func deviceWentOffline(_ uuid: String) throws(HouseholdError) -> [HouseholdAction] {
        let id = try existingDevice(uuid)
        guard devices[id]!.isOnline else { return [] }
        devices[id]!.isOnline = false
        var actions: [HouseholdAction] = []
        if let followed = devices[id]!.following {
            // Powered off, it loses the group's stand-in app: back online, it is idle
            // until its group (if it still plays) takes it back.
            actions.append(.multizone(.stopFollowing(groupId: followed), to: .device(id)))
        }
        devices[id]!.following = nil
        for groupId in groupIds(containing: id) where groups[groupId]!.isEndpointRunning {
            let group = groups[groupId]!
            if group.leaderId == id {
                guard let next = onlineMembers(of: group).first else {
                    // Nobody left to host it: the endpoint and its session go.
                    groups[groupId]!.isEndpointRunning = false
                    groups[groupId]!.session = nil
                    actions.append(.stopGroupEndpoint(groupId: groupId))
                    continue
                }
                actions += handOver(groupId, to: next)
            }
            actions.append(.multizone(.memberRemoved(uuid: id), to: .group(groupId)))
            actions += followMembers(groupId)
        }
        return actions
    }

    /// A member is back, at `volume` (nil: as it was). Its groups list it again; a group
    /// that plays takes it back as a follower (a speaker powered on rejoins by itself,
    /// groups.md §5.2); a group whose endpoint had stopped starts again, led by it.
    package mutating func deviceCameOnline(_ uuid: String, volume: Volume? = nil) throws(HouseholdError) -> [HouseholdAction] {
        let id = try existingDevice(uuid)
        guard !devices[id]!.isOnline else { return [] }
        devices[id]!.isOnline = true
        if let volume { devices[id]!.volume = volume }
        var actions: [HouseholdAction] = []
        for groupId in groupIds(containing: id) {
            guard groups[groupId]!.isEndpointRunning else {
                groups[groupId]!.leaderId = id
                groups[groupId]!.volume.level = devices[id]!.volume.level
                actions += startEndpoint(groupId)
                continue
            }
            actions.append(.multizone(.memberAdded(devices[id]!.member), to: .group(groupId)))
            actions += followMembers(groupId)
            if let session = groups[groupId]!.session, devices[id]!.following == nil {
                devices[id]!.following = groupId
                let role: GroupMemberRole = groups[groupId]!.leaderId == id ? .leader : .follower
                actions.append(.multizone(.follow(session, role: role), to: .device(id)))
            }
        }
        return actions
    }

    /// Leadership moves to `member` (which must be online): the group endpoint moves host
    /// on the same port, and while the group plays the old leader becomes a follower and
    /// the new one the leader (groups.md §1.4, §7 item 13).
    package mutating func moveLeader(of group: String, to member: String) throws(HouseholdError) -> [HouseholdAction] {
        let group = try existingGroup(group)
        let id = try existingDevice(member)
        guard group.memberIds.contains(id) else { throw .cannotLead("\(id) is no member of \(group.uuid)") }
        guard devices[id]!.isOnline, group.isEndpointRunning else { throw .cannotLead("\(id) is offline") }
        guard id != group.leaderId else { throw .cannotLead("\(id) leads \(group.uuid) already") }
        return handOver(group.uuid, to: id)
    }

    // MARK: Queries

    /// The configuration the group's endpoint starts with: led by its leader, listing the
    /// members online at the group's volume.
    package func endpointConfiguration(of groupId: String) -> DeviceConfiguration? {
        guard let group = groups[groupId], let leader = devices[group.leaderId] else { return nil }
        return try? DeviceConfiguration.groupEndpoint(
            uuid: group.uuid, name: group.name, leader: leader.configuration,
            members: onlineMembers(of: group).map { devices[$0]!.member }, volume: group.volume, stereoPair: group.isStereoPair)
    }

    /// The groups `uuid` belongs to, sorted so that every run does the same in the same order.
    package func groupIds(containing uuid: String) -> [String] {
        groups.values.filter { $0.memberIds.contains(uuid) }.map(\.uuid).sorted()
    }

    func onlineMembers(of group: Group) -> [String] {
        group.memberIds.filter { devices[$0]?.isOnline == true }
    }

    // MARK: Building blocks

    private func existingGroup(_ uuid: String) throws(HouseholdError) -> Group {
        guard let id = DeviceIdentity.normalizeUUID(uuid) else { throw .invalidUUID(uuid) }
        guard let group = groups[id] else { throw .unknownGroup(id) }
        return group
    }

    private func existingDevice(_ uuid: String) throws(HouseholdError) -> String {
        guard let id = DeviceIdentity.normalizeUUID(uuid) else { throw .invalidUUID(uuid) }
        guard devices[id] != nil else { throw .unknownDevice(id) }
        return id
    }

    private mutating func startEndpoint(_ groupId: String) -> [HouseholdAction] {
        groups[groupId]!.isEndpointRunning = true
        guard let configuration = endpointConfiguration(of: groupId) else { return [] }
        let group = groups[groupId]!
        return [.startGroupEndpoint(groupId: groupId, leaderId: group.leaderId, port: group.port, configuration: configuration)]
    }

    /// The endpoint moves to `newLeader`; the members' roles follow while the group plays.
    /// A new leader that had left the session for its own app keeps its app.
    private mutating func handOver(_ groupId: String, to newLeader: String) -> [HouseholdAction] {
        let oldLeader = groups[groupId]!.leaderId
        groups[groupId]!.leaderId = newLeader
        var actions: [HouseholdAction] = [.moveGroupEndpoint(groupId: groupId, toLeader: newLeader, port: groups[groupId]!.port)]
        guard let session = groups[groupId]!.session else { return actions }
        if devices[oldLeader]!.isOnline, devices[oldLeader]!.following == groupId {
            actions.append(.multizone(.follow(session, role: .follower), to: .device(oldLeader)))
        }
        if devices[newLeader]!.following == groupId {
            actions.append(.multizone(.follow(session, role: .leader), to: .device(newLeader)))
        }
        return actions
    }

    /// Members mirroring `groupId` return to idle.
    mutating func stopMirroring(_ groupId: String) -> [HouseholdAction] {
        var actions: [HouseholdAction] = []
        for (id, device) in devices.sorted(by: { $0.key < $1.key }) where device.following == groupId {
            devices[id]!.following = nil
            actions.append(.multizone(.stopFollowing(groupId: groupId), to: .device(id)))
        }
        return actions
    }

    /// The group's level after its members changed, per ``GroupVolumeRule``: set on the
    /// group endpoint when it moved (its RECEIVER_STATUS then says so).
    mutating func followMembers(_ groupId: String) -> [HouseholdAction] {
        let group = groups[groupId]!
        let level = GroupVolumeRule.groupLevel(of: onlineMembers(of: group).map { devices[$0]!.volume.level },
                                               current: group.volume.level)
        guard level != group.volume.level else { return [] }
        groups[groupId]!.volume.level = level
        return [.operatorInput(.setDeviceVolume(level: level, muted: nil), to: .group(groupId))]
    }
}
