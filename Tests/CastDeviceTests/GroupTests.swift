import CastDevice
import CastSimulatorTesting
import CastWire
import Testing

/// A speaker group end to end in the core: three speakers and the group endpoint, each a
/// real SimulatedDevice, coordinated by the Household (docs/protocol/groups.md §3–§5,
/// §7 items 6–13).
@Suite("Speaker groups: members, group endpoint, household")
struct GroupTests {
    typealias F = Fleet

    @Test("The group endpoint starts led by Kitchen on its port, lists its online members and takes the loudest level")
    func groupEndpointStatus() throws {
        var fleet = try Fleet()
        #expect(fleet.directives.count == 1)
        guard case .startGroupEndpoint(F.upstairs, F.kitchen, F.port, let configuration)? = fleet.directives.first else {
            Issue.record("no start directive: \(fleet.directives)")
            return
        }
        #expect(configuration.identity.capabilityBits == 4 | 32 && configuration.identity.friendlyName == "Upstairs")
        let connection = fleet.connect(F.group, 1)
        let status = try need(fleet.multizoneStatus(F.group, connection, requestId: 3))
        #expect(status["requestId"] == 3)
        #expect(status["status"] == [
            "devices": [
                ["capabilities": 4, "deviceId": .string(dashed(F.kitchen)), "name": "Kitchen", "volume": ["level": 0.8, "muted": false]],
                ["capabilities": 4, "deviceId": .string(dashed(F.bedroom)), "name": "Bedroom", "volume": ["level": 0.4, "muted": false]],
                ["capabilities": 4, "deviceId": .string(dashed(F.den)), "name": "Den", "volume": ["level": 0, "muted": false]],
            ],
            "isMultichannel": false, "isVideoGroup": false,
        ])
        #expect(status["status"]?["devices"]?.arrayValue?.first?["deviceId"] == "1a2b3c4d-0000-1111-2222-333344445555")
        let receiver = try need(fleet.send(F.group, connection, CastNamespace.receiver, ["type": "GET_STATUS", "requestId": 4])
            .ofType("RECEIVER_STATUS").first?.json["status"])
        #expect(receiver["volume"]?["level"] == 0.8 && receiver["applications"] == nil)
    }

    @Test("Casting to the group: leader shows 531A4F84 with the group's session, followers 705D30C6 with an empty media status")
    func membersFollowTheGroup() throws {
        var fleet = try Fleet()
        let onGroup = fleet.connect(F.group, 1)
        let onKitchen = fleet.connect(F.device(F.kitchen), 1)
        let onBedroom = fleet.connect(F.device(F.bedroom), 1)
        let transportId = try need(fleet.launch(F.group, onGroup))
        let load = fleet.send(F.group, onGroup, CastNamespace.media,
                              ["type": "LOAD", "requestId": 2, "media": ["contentId": "a.mp3", "duration": 100]], to: transportId)
        #expect(load.from(F.group).ofType("MEDIA_STATUS").last?.json["status"]?.arrayValue?.first?["playerState"] == "PLAYING")
        let groupApp = try need(fleet.device(F.group)?.runningApp)

        // Each member broadcast its new app to its own senders.
        #expect(fleet.wire.from(F.device(F.kitchen)).appIds.last == "531A4F84")
        #expect(fleet.wire.from(F.device(F.bedroom)).appIds.last == "705D30C6")
        #expect(fleet.wire.from(F.device(F.den)).appIds.isEmpty) // nobody connected there

        let leader = try need(fleet.application(F.device(F.kitchen), onKitchen))
        #expect(leader["appId"] == "531A4F84" && leader["sessionId"] == .string(groupApp.sessionId))
        #expect(leader["displayName"] == "Default Media Receiver" && leader["statusText"] == "Default Media Receiver")
        let follower = try need(fleet.application(F.device(F.bedroom), onBedroom))
        #expect(follower["appId"] == "705D30C6" && follower["sessionId"] == follower["transportId"])
        #expect(follower["sessionId"] != .string(groupApp.sessionId))
        #expect(follower["namespaces"] == [["name": .string(CastNamespace.media)]])
        let followerTransport = try #require(follower["transportId"]?.stringValue)
        fleet.send(F.device(F.bedroom), onBedroom, CastNamespace.connection, ["type": "CONNECT"], to: followerTransport)
        let media = fleet.send(F.device(F.bedroom), onBedroom, CastNamespace.media, ["type": "GET_STATUS", "requestId": 7], to: followerTransport)
        #expect(media.map(\.json) == [["type": "MEDIA_STATUS", "status": [], "requestId": 7]])
        #expect(fleet.device(F.device(F.den))?.runningApp?.definition.appId == "705D30C6")

        // The group and its members say a session plays.
        #expect(fleet.multizoneStatus(F.group, onGroup)?["status"]?["playbackSession"]?["appAllowsGrouping"] == true)
        #expect(fleet.multizoneStatus(F.device(F.bedroom), onBedroom)?["status"]?["playbackSession"] != nil)

        // STOP on the group: every member returns to idle (audio devices: no applications).
        let stop = fleet.send(F.group, onGroup, CastNamespace.receiver, ["type": "STOP", "requestId": 9, "sessionId": .string(groupApp.sessionId)])
        #expect(stop.from(F.device(F.kitchen)).appIds == [nil] && stop.from(F.device(F.bedroom)).appIds == [nil])
        #expect(fleet.device(F.device(F.den))?.runningApp == nil)
        #expect(fleet.multizoneStatus(F.group, onGroup)?["status"]?["playbackSession"] == nil)
    }

    @Test("Group SET_VOLUME scales every member (0 stays 0), the group reports the level set, once")
    func groupVolumeScales() throws {
        var fleet = try Fleet()
        let onGroup = fleet.connect(F.group, 1)
        let onBedroom = fleet.connect(F.device(F.bedroom), 1)
        var sent = fleet.send(F.group, onGroup, CastNamespace.receiver, ["type": "SET_VOLUME", "requestId": 5, "volume": ["level": 0.4]])
        #expect(fleet.volume(F.kitchen)?.level == 0.4 && fleet.volume(F.bedroom)?.level == 0.2 && fleet.volume(F.den)?.level == 0)
        let groupStatuses = sent.from(F.group).ofType("RECEIVER_STATUS")
        #expect(groupStatuses.count == 1 && groupStatuses[0].json["requestId"] == 5)
        #expect(groupStatuses[0].json["status"]?["volume"]?["level"] == 0.4)
        // The group tells its senders about each member that changed, Den not.
        let updates = sent.from(F.group).ofType("DEVICE_UPDATED").map(\.json["device"])
        #expect(updates.map { $0?["deviceId"] } == [.string(dashed(F.kitchen)), .string(dashed(F.bedroom))])
        #expect(updates.map { $0?["volume"]?["level"] } == [0.4, 0.2])
        // And each member tells its own senders.
        #expect(sent.from(F.device(F.bedroom)).ofType("DEVICE_UPDATED").first?.json["device"]?["volume"]?["level"] == 0.2)
        #expect(sent.from(F.device(F.bedroom)).ofType("RECEIVER_STATUS").first?.json["status"]?["volume"]?["level"] == 0.2)
        _ = onBedroom

        sent = fleet.send(F.group, onGroup, CastNamespace.receiver, ["type": "SET_VOLUME", "requestId": 6, "volume": ["level": 1]])
        #expect(fleet.volume(F.kitchen)?.level == 1 && fleet.volume(F.bedroom)?.level == 0.5 && fleet.volume(F.den)?.level == 0)
        #expect(sent.from(F.group).ofType("RECEIVER_STATUS").map { $0.json["status"]?["volume"]?["level"] } == [1])

        // Mute belongs to the group: members keep their own.
        sent = fleet.send(F.group, onGroup, CastNamespace.receiver, ["type": "SET_VOLUME", "requestId": 7, "volume": ["muted": true]])
        #expect(fleet.device(F.group)?.volume == Volume(level: 1, muted: true))
        #expect(fleet.volume(F.kitchen)?.muted == false && sent.from(F.device(F.kitchen)).isEmpty)
    }

    @Test("From a group level of 0, every member takes the new level")
    func groupVolumeFromZero() throws {
        var fleet = try Fleet(levels: [0, 0, 0])
        let onGroup = fleet.connect(F.group, 1)
        #expect(fleet.device(F.group)?.volume.level == 0)
        fleet.send(F.group, onGroup, CastNamespace.receiver, ["type": "SET_VOLUME", "requestId": 5, "volume": ["level": 0.3]])
        #expect([F.kitchen, F.bedroom, F.den].map { fleet.volume($0)?.level } == [0.3, 0.3, 0.3])
    }

    @Test("A member's own volume change reaches the group as DEVICE_UPDATED, and the group level follows the loudest")
    func memberVolumeReachesGroup() throws {
        var fleet = try Fleet()
        let onGroup = fleet.connect(F.group, 1)
        let onBedroom = fleet.connect(F.device(F.bedroom), 1)
        let sent = fleet.send(F.device(F.bedroom), onBedroom, CastNamespace.receiver,
                              ["type": "SET_VOLUME", "requestId": 3, "volume": ["level": 0.9]])
        let update = try #require(sent.from(F.group).ofType("DEVICE_UPDATED").first)
        #expect(update.json["requestId"] == 0 && update.message.isBroadcast && update.message.to == [onGroup])
        #expect(update.json["device"]?["deviceId"] == .string(dashed(F.bedroom)) && update.json["device"]?["volume"]?["level"] == 0.9)
        #expect(sent.from(F.group).ofType("RECEIVER_STATUS").map { $0.json["status"]?["volume"]?["level"] } == [0.9])
        // Other members are untouched.
        #expect(fleet.volume(F.kitchen)?.level == 0.8 && sent.from(F.device(F.kitchen)).isEmpty)
    }

    @Test("SET_DEVICE_VOLUME on the group sets that member's volume (level or mute); an unknown deviceId is refused")
    func setDeviceVolume() throws {
        var fleet = try Fleet()
        let onGroup = fleet.connect(F.group, 1)
        var sent = fleet.send(F.group, onGroup, CastNamespace.multizone,
                              ["type": "SET_DEVICE_VOLUME", "requestId": 11, "deviceId": .string(dashed(F.bedroom)), "volume": ["level": 0.3]])
        #expect(fleet.volume(F.bedroom)?.level == 0.3 && fleet.volume(F.kitchen)?.level == 0.8)
        #expect(sent.from(F.group).ofType("DEVICE_UPDATED").first?.json["device"]?["volume"] == ["level": 0.3, "muted": false])
        #expect(fleet.events.contains { $0.0 == F.group && $0.1 == .multizone(.memberVolumeRequested(uuid: F.bedroom, VolumeChange(level: 0.3, muted: nil))) })
        sent = fleet.send(F.group, onGroup, CastNamespace.multizone,
                          ["type": "SET_DEVICE_VOLUME", "requestId": 12, "deviceId": .string(dashed(F.den)), "volume": ["muted": true]])
        #expect(fleet.volume(F.den) == Volume(level: 0, muted: true))
        #expect(sent.from(F.group).ofType("DEVICE_UPDATED").first?.json["device"]?["volume"] == ["level": 0, "muted": true])
        sent = fleet.send(F.group, onGroup, CastNamespace.multizone,
                          ["type": "SET_DEVICE_VOLUME", "requestId": 13, "deviceId": "12345678-0000-1111-2222-333344445555", "volume": ["level": 0.1]])
        #expect(sent.map(\.json) == [["type": "INVALID_REQUEST", "requestId": 13, "reason": "INVALID_PARAMS"]])
        #expect(sent.first?.namespace == CastNamespace.multizone)
    }

    @Test("A member drops out (DEVICE_REMOVED) and comes back while the group plays (DEVICE_ADDED, follows again)")
    func dropOutAndComeBack() throws {
        var fleet = try Fleet()
        let onGroup = fleet.connect(F.group, 1)
        _ = try need(fleet.launch(F.group, onGroup))
        var sent = try fleet.change { try $0.deviceWentOffline(F.bedroom) }
        #expect(sent.from(F.group).map(\.json) == [["type": "DEVICE_REMOVED", "requestId": 0, "deviceId": .string(dashed(F.bedroom))]])
        // Powered off, it lost the stand-in app.
        #expect(fleet.device(F.device(F.bedroom))?.runningApp?.definition.appId != "705D30C6")
        let devices = fleet.multizoneStatus(F.group, onGroup)?["status"]?["devices"]?.arrayValue?.map { $0["name"] }
        #expect(devices == ["Kitchen", "Den"])

        // Meanwhile it rebooted: idle, at another volume; the group still plays, so it follows again.
        sent = try fleet.change { try $0.deviceCameOnline(F.bedroom, volume: Volume(level: 0.5, muted: false)) }
        let added = try #require(sent.from(F.group).ofType("DEVICE_ADDED").first)
        #expect(added.json["device"] == ["capabilities": 4, "deviceId": .string(dashed(F.bedroom)), "name": "Bedroom",
                                         "volume": ["level": 0.5, "muted": false]])
        #expect(fleet.device(F.device(F.bedroom))?.runningApp?.definition.appId == "705D30C6")
        #expect(fleet.multizoneStatus(F.group, onGroup)?["status"]?["devices"]?.arrayValue?.count == 3)
    }

    @Test("The leader moves: the endpoint moves host on the same port, old leader follows, new one leads the same session")
    func leaderMoves() throws {
        var fleet = try Fleet()
        let onGroup = fleet.connect(F.group, 1)
        _ = try need(fleet.launch(F.group, onGroup))
        let sessionId = try need(fleet.device(F.group)?.runningApp?.sessionId)
        try fleet.change { try $0.moveLeader(of: F.upstairs, to: dashed(F.bedroom)) }
        #expect(fleet.directives.last == .moveGroupEndpoint(groupId: F.upstairs, toLeader: F.bedroom, port: F.port))
        #expect(fleet.hosts[F.upstairs] == F.bedroom)
        let kitchen = try need(fleet.device(F.device(F.kitchen))?.runningApp)
        let bedroom = try need(fleet.device(F.device(F.bedroom))?.runningApp)
        #expect(kitchen.definition.appId == "705D30C6" && kitchen.sessionId != sessionId)
        #expect(bedroom.definition.appId == "531A4F84" && bedroom.sessionId == sessionId)
        // The group's session plays on; senders of the old host were cut and reconnect.
        #expect(fleet.device(F.group)?.runningApp?.sessionId == sessionId && fleet.device(F.group)?.openConnections == [])
        #expect(throws: HouseholdError.self) { try fleet.household.moveLeader(of: F.upstairs, to: F.bedroom) }
    }

    @Test("The leader going offline hands the group to the next member; the last one going stops the endpoint")
    func leaderDropsOut() throws {
        var fleet = try Fleet()
        let onGroup = fleet.connect(F.group, 1)
        _ = try need(fleet.launch(F.group, onGroup))
        try fleet.change { try $0.deviceWentOffline(F.kitchen) }
        #expect(fleet.directives.last == .moveGroupEndpoint(groupId: F.upstairs, toLeader: F.bedroom, port: F.port))
        #expect(fleet.device(F.device(F.bedroom))?.runningApp?.definition.appId == "531A4F84")
        // The group level follows the loudest member online: Bedroom's 0.4.
        #expect(fleet.device(F.group)?.volume.level == 0.4)
        try fleet.change { try $0.deviceWentOffline(F.bedroom) }
        try fleet.change { try $0.deviceWentOffline(F.den) }
        #expect(fleet.directives.last == .stopGroupEndpoint(groupId: F.upstairs) && fleet.device(F.group) == nil)
        // The first member back starts it again, led by it.
        try fleet.change { try $0.deviceCameOnline(F.den) }
        guard case .startGroupEndpoint(F.upstairs, F.den, F.port, _)? = fleet.directives.last else {
            Issue.record("not restarted: \(String(describing: fleet.directives.last))")
            return
        }
        #expect(fleet.device(F.group) != nil)
    }

    @Test("A follower that casts its own app leaves the session; the group's end leaves its app alone, its next session takes it back")
    func followerLeaves() throws {
        var fleet = try Fleet()
        let onGroup = fleet.connect(F.group, 1)
        let onDen = fleet.connect(F.device(F.den), 1)
        let groupSession = try need(fleet.launch(F.group, onGroup))
        _ = try need(fleet.launch(F.device(F.den), onDen))
        #expect(fleet.events.contains { $0.0 == F.device(F.den) && $0.1 == .multizone(.leftGroupSession(groupId: F.upstairs)) })
        #expect(fleet.household.devices[F.den]?.following == nil)
        fleet.send(F.group, onGroup, CastNamespace.receiver, ["type": "STOP", "requestId": 3, "sessionId": .string(groupSession)])
        #expect(fleet.device(F.device(F.den))?.runningApp?.definition.appId == "CC1AD845")
        #expect(fleet.device(F.device(F.bedroom))?.runningApp == nil)
        _ = fleet.launch(F.group, onGroup)
        #expect(fleet.device(F.device(F.den))?.runningApp?.definition.appId == "705D30C6")
    }

    @Test("Deleting a playing group stops its endpoint and sends its members back to idle")
    func groupDeleted() throws {
        var fleet = try Fleet()
        let onGroup = fleet.connect(F.group, 1)
        _ = try need(fleet.launch(F.group, onGroup))
        try fleet.change { try $0.deleteGroup(F.upstairs) }
        #expect(fleet.directives.last == .stopGroupEndpoint(groupId: F.upstairs) && fleet.device(F.group) == nil)
        #expect([F.kitchen, F.bedroom, F.den].allSatisfy { fleet.device(F.device($0))?.runningApp == nil })
        #expect(fleet.household.groups.isEmpty)
    }

    @Test("Household refuses groups it cannot make")
    func badGroups() throws {
        var fleet = try Fleet(createGroup: false)
        #expect(throws: HouseholdError.invalidUUID("x")) {
            try fleet.household.createGroup(uuid: "x", name: "X", members: [F.kitchen], leader: F.kitchen, port: 32000)
        }
        #expect(throws: HouseholdError.self) {
            try fleet.household.createGroup(uuid: F.upstairs, name: "X", members: [F.kitchen], leader: F.bedroom, port: 32000)
        }
        #expect(throws: HouseholdError.unknownDevice("00000000000000000000000000000001")) {
            try fleet.household.createGroup(uuid: F.upstairs, name: "X", members: ["00000000000000000000000000000001"],
                                            leader: F.kitchen, port: 32000)
        }
    }
}

@Suite("GroupVolumeRule")
struct GroupVolumeRuleTests {
    @Test("The group level is the loudest member's")
    func level() {
        #expect(GroupVolumeRule.groupLevel(of: [0.2, 0.7, 0], current: 1) == 0.7)
        #expect(GroupVolumeRule.groupLevel(of: [], current: 0.4) == 0.4)
    }

    @Test("Members scale by new/old; 0 stays 0; the loudest lands exactly on the new level; from 0 all take it")
    func scaling() {
        #expect(GroupVolumeRule.memberLevels([0.8, 0.4, 0], from: 0.8, to: 0.4) == [0.4, 0.2, 0])
        #expect(GroupVolumeRule.memberLevels([0.7, 0.35, 0], from: 0.7, to: 0.3)[0] == 0.3)
        #expect(GroupVolumeRule.memberLevels([0.4, 0.2, 0], from: 0.4, to: 1) == [1, 0.5, 0])
        #expect(GroupVolumeRule.memberLevels([0, 0], from: 0, to: 0.5) == [0.5, 0.5])
    }
}
