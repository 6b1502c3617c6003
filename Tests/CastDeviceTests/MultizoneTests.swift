import Foundation
import CastDevice
import CastSimulatorTesting
import CastWire
import Testing

/// urn:x-cast:com.google.cast.multizone on one endpoint: a lone device, a group endpoint's
/// configuration, a member's stand-in apps (docs/protocol/groups.md §3.3, §4, §7 items 7,
/// 10–12).
@Suite("urn:x-cast:com.google.cast.multizone on one endpoint")
struct MultizoneTests {
    static let speakerUUID = "1a2b3c4d000011112222333344445555"
    static let bedroomUUID = "9f8e7d6c555544443333222211110000"
    static let groupId = "6f1c0e2a9b3d4c5e8f7a1b2c3d4e5f60"

    private func speaker(level: Double = 0.25) -> CastTestDevice {
        CastTestDevice { configuration in
            configuration = DeviceConfiguration(identity: try! DeviceIdentity(
                uuid: Self.speakerUUID.uppercased(), friendlyName: "Kitchen", modelName: "Google Home", supportsVideo: false))
            configuration.initialVolume = level
            configuration.heartbeatInterval = nil
            configuration.idleTimeout = nil
        }
    }

    private func connected(_ device: inout CastTestDevice, _ id: UInt64 = 1) -> ConnectionID {
        let connection = device.open(id)
        device.connect(connection)
        return connection
    }

    private func multizone(_ device: inout CastTestDevice, _ connection: ConnectionID, _ payload: JSONValue) -> [SentMessage] {
        device.send(connection, CastNamespace.multizone, payload)
    }

    @Test("A lone device answers GET_STATUS with itself: dashed lower-case deviceId, its ca bits, name and volume")
    func loneDeviceStatus() throws {
        var device = speaker()
        let connection = connected(&device)
        let watcher = connected(&device, 2)
        let replies = multizone(&device, connection, ["type": "GET_STATUS", "requestId": 5])
        try #require(replies.count == 1)
        let reply = replies[0]
        #expect(reply.to == [connection] && !reply.isBroadcast && reply.to != [watcher])
        #expect(reply.envelope.sourceId == "receiver-0" && reply.envelope.namespace == CastNamespace.multizone)
        #expect(reply.json == [
            "requestId": 5, "type": "MULTIZONE_STATUS",
            "status": [
                "devices": [["capabilities": 4, "deviceId": "1a2b3c4d-0000-1111-2222-333344445555", "name": "Kitchen",
                             "volume": ["level": 0.25, "muted": false]]],
                "isMultichannel": false, "isVideoGroup": false,
            ],
        ])
    }

    @Test("playbackSession appears while an app other than the idle screen runs, and goes with it")
    func playbackSession() throws {
        var tv = CastTestDevice { $0.heartbeatInterval = nil; $0.idleTimeout = nil }
        let connection = connected(&tv)
        var status = try need(multizone(&tv, connection, ["type": "GET_STATUS", "requestId": 1]).first?.json["status"])
        // Backdrop runs: that is no playback.
        #expect(status["playbackSession"] == nil && status["devices"]?.arrayValue?.first?["capabilities"] == 5)
        _ = tv.launch()
        status = try need(multizone(&tv, connection, ["type": "GET_STATUS", "requestId": 2]).first?.json["status"])
        #expect(status["playbackSession"] == ["appAllowsGrouping": true, "isVideoContent": false, "streamTransferSupported": false])
        tv.apply(.stopApp)
        status = try need(multizone(&tv, connection, ["type": "GET_STATUS", "requestId": 3]).first?.json["status"])
        #expect(status["playbackSession"] == nil)
    }

    @Test("GET_CASTING_GROUPS is answered with an empty group list")
    func castingGroups() {
        var device = speaker()
        let connection = connected(&device)
        let replies = multizone(&device, connection, ["type": "GET_CASTING_GROUPS", "requestId": 12])
        #expect(replies.count == 1 && replies.first?.json == ["type": "CASTING_GROUPS", "requestId": 12, "groups": []])
    }

    static let badPayloadCases: [(String, JSONValue)] = [
        (#"[1,2]"#, ["type": "INVALID_REQUEST", "requestId": 0, "reason": "INVALID_COMMAND"]),
        (#"{"requestId":801,"type":7}"#, ["type": "INVALID_REQUEST", "requestId": 801, "reason": "INVALID_COMMAND"]),
        (#"{"type":"GET_STATUS"}"#, ["type": "INVALID_REQUEST", "requestId": 0, "reason": "INVALID_COMMAND"]),
        (#"{"type":"SET_GROUP_NAME","requestId":3}"#, ["type": "INVALID_REQUEST", "requestId": 3, "reason": "INVALID_COMMAND"]),
        (#"{"type":"SET_DEVICE_VOLUME","requestId":4,"deviceId":"nope","volume":{"level":0.5}}"#,
         ["type": "INVALID_REQUEST", "requestId": 4, "reason": "INVALID_PARAMS"]),
        (#"{"type":"SET_DEVICE_VOLUME","requestId":5,"deviceId":"1a2b3c4d-0000-1111-2222-333344445555"}"#,
         ["type": "INVALID_REQUEST", "requestId": 5, "reason": "INVALID_PARAMS"]),
        (#"{"type":"SET_DEVICE_VOLUME","requestId":6,"deviceId":"1a2b3c4d-0000-1111-2222-333344445555","volume":{"level":"loud"}}"#,
         ["type": "INVALID_REQUEST", "requestId": 6, "reason": "INVALID_PARAMS"]),
        (#"{"type":"SET_DEVICE_VOLUME","requestId":7,"deviceId":"ffffffff-0000-1111-2222-333344445555","volume":{"level":0.5}}"#,
         ["type": "INVALID_REQUEST", "requestId": 7, "reason": "INVALID_PARAMS"]),
    ]

    @Test("Bad payloads get the receiver namespace's error replies, on the multizone namespace", arguments: badPayloadCases)
    func badPayloads(text: String, answer: JSONValue) throws {
        var device = speaker()
        let connection = connected(&device)
        let replies = device.sendRaw(connection, CastEnvelope(sourceId: "sender-0", destinationId: "receiver-0",
                                                              namespace: CastNamespace.multizone, payload: .string(text)))
        try #require(replies.count == 1)
        #expect(replies[0].json == answer && replies[0].envelope.namespace == CastNamespace.multizone)
        #expect(replies[0].to == [connection] && replies[0].envelope.destinationId == "sender-0")
        #expect(device.snapshot.volume.level == 0.25)
    }

    @Test("A device's own volume change is broadcast as DEVICE_UPDATED about itself, whatever changed it")
    func ownVolumeUpdates() throws {
        var device = speaker()
        let connection = connected(&device)
        let watcher = connected(&device, 2)
        var sent = device.send(connection, CastNamespace.receiver, ["type": "SET_VOLUME", "volume": ["level": 0.5], "requestId": 3])
        let update = try #require(sent.ofType("DEVICE_UPDATED").first)
        #expect(update.isBroadcast && update.to == [connection, watcher] && update.envelope.namespace == CastNamespace.multizone)
        #expect(update.json == ["type": "DEVICE_UPDATED", "requestId": 0, "device": [
            "capabilities": 4, "deviceId": "1a2b3c4d-0000-1111-2222-333344445555", "name": "Kitchen",
            "volume": ["level": 0.5, "muted": false]]])
        sent = device.apply(.setDeviceVolume(level: nil, muted: true))
        #expect(sent.ofType("DEVICE_UPDATED").first?.json["device"]?["volume"] == ["level": 0.5, "muted": true])
        // SET_DEVICE_VOLUME about itself works like SET_VOLUME; no change, no update.
        sent = multizone(&device, connection, ["type": "SET_DEVICE_VOLUME", "requestId": 4,
                                               "deviceId": "1A2B3C4D-0000-1111-2222-333344445555", "volume": ["level": 0.75]])
        #expect(device.snapshot.volume.level == 0.75 && sent.ofType("DEVICE_UPDATED").count == 1)
        #expect(sent.ofType("RECEIVER_STATUS").first?.json["status"]?["volume"]?["level"] == 0.75)
        sent = device.apply(.setDeviceVolume(level: 0.75, muted: nil))
        #expect(sent.ofType("DEVICE_UPDATED").isEmpty)
    }

    @Test("A group endpoint's configuration: the group's identity, ca = leader's | 32, audio-only, no idle screen")
    func groupEndpointConfiguration() throws {
        let leader = DeviceConfiguration(identity: try DeviceIdentity(uuid: String(repeating: "ab", count: 16), friendlyName: "TV"))
        let member = MultizoneMember(identity: leader.identity, volume: Volume(level: 0.3, muted: false))
        let configuration = try DeviceConfiguration.groupEndpoint(
            uuid: "6f1c0e2a-9b3d-4c5e-8f7a-1b2c3d4e5f60", name: "Upstairs", leader: leader, members: [member],
            volume: Volume(level: 0.3, muted: false))
        #expect(configuration.identity.capabilityBits == 5 | 32 && configuration.identity.modelName == "Google Cast Group")
        #expect(configuration.identity.friendlyName == "Upstairs" && configuration.identity.dashedUUID == "6f1c0e2a-9b3d-4c5e-8f7a-1b2c3d4e5f60")
        #expect(configuration.multizone == .group(members: [member]) && DeviceConfiguration(identity: leader.identity).multizone == .device)
        var group = CastTestDevice { $0 = configuration }
        let connection = connected(&group)
        let status = try need(group.send(connection, CastNamespace.receiver, ["type": "GET_STATUS", "requestId": 1]).first?.json["status"])
        #expect(status["applications"] == nil && status["isStandBy"] == nil && status["volume"]?["level"] == 0.3)
        let devices = group.send(connection, CastNamespace.multizone, ["type": "GET_STATUS", "requestId": 2]).first?.json["status"]?["devices"]
        #expect(devices == [["capabilities": 5, "deviceId": "abababab-abab-abab-abab-abababababab", "name": "TV",
                             "volume": ["level": 0.3, "muted": false]]])
        // The group's own level is no device's: it tells nobody DEVICE_UPDATED.
        #expect(group.apply(.setDeviceVolume(level: 0.6, muted: nil)).ofType("DEVICE_UPDATED").isEmpty)
        // Plain data: written and read back, the same configuration.
        let decoded = try JSONDecoder().decode(DeviceConfiguration.self, from: try JSONEncoder().encode(configuration))
        #expect(decoded == configuration)
    }

    @Test("A leader's stand-in: 531A4F84 with the group's session and app name; media GET_STATUS gives an empty list")
    func leaderStandIn() throws {
        var device = speaker()
        let connection = connected(&device)
        var core = device.device
        let session = GroupSession(groupId: Self.groupId, sessionId: "5e55-group", displayName: "Spotify")
        let outputs = core.apply(MultizoneInput.follow(session, role: .leader), now: .zero)
        let sent = outputs.compactMap(SentMessage.init)
        let app = try #require(sent.ofType("RECEIVER_STATUS").first?.json["status"]?["applications"]?.arrayValue?.first)
        #expect(app["appId"] == "531A4F84" && app["sessionId"] == "5e55-group" && app["transportId"] == "5e55-group")
        #expect(app["displayName"] == "Spotify" && app["statusText"] == "Spotify" && app["isIdleScreen"] == false)
        #expect(app["namespaces"] == [["name": .string(CastNamespace.media)]])
        #expect(outputs.compactMap(\.event).map(\.kind).contains(.multizone(.followingGroup(groupId: Self.groupId, role: .leader))))
        // Its transport answers media GET_STATUS with nothing playing there.
        var replies = core.receive(CastEnvelope(sourceId: "sender-0", destinationId: "5e55-group", namespace: CastNamespace.connection,
                                                payload: .string(#"{"type":"CONNECT"}"#)), on: connection, now: .zero)
        replies = core.receive(CastEnvelope(sourceId: "sender-0", destinationId: "5e55-group", namespace: CastNamespace.media,
                                            payload: .string(#"{"type":"GET_STATUS","requestId":7}"#)), on: connection, now: .zero)
        #expect(replies.compactMap(SentMessage.init).map(\.json) == [["type": "MEDIA_STATUS", "status": [], "requestId": 7]])
        // Told to stop, it goes back to idle: an audio device runs nothing.
        let back = core.apply(MultizoneInput.stopFollowing(groupId: Self.groupId), now: .zero).compactMap(SentMessage.init)
        #expect(back.ofType("RECEIVER_STATUS").last?.json["status"]?["applications"] == nil)
        #expect(core.runningApp == nil)
    }

    @Test("A follower's stand-in on a TV: 705D30C6 with a fresh sessionId = transportId; back to Backdrop after")
    func followerStandIn() throws {
        var tv = CastTestDevice { $0.heartbeatInterval = nil; $0.idleTimeout = nil }
        _ = connected(&tv)
        var core = tv.device
        let session = GroupSession(groupId: Self.groupId, sessionId: "5e55-group", displayName: "Default Media Receiver")
        let sent = core.apply(MultizoneInput.follow(session, role: .follower), now: .zero).compactMap(SentMessage.init)
        let app = try #require(sent.ofType("RECEIVER_STATUS").last?.json["status"]?["applications"]?.arrayValue?.first)
        #expect(app["appId"] == "705D30C6" && app["sessionId"] == app["transportId"] && app["sessionId"] != "5e55-group")
        #expect(app["displayName"] == "Default Media Receiver" && app["namespaces"] == [["name": .string(CastNamespace.media)]])
        // The same session and role again: nothing to do.
        #expect(core.apply(MultizoneInput.follow(session, role: .follower), now: .zero).isEmpty)
        // Another group's end is not this one's.
        #expect(core.apply(MultizoneInput.stopFollowing(groupId: Self.speakerUUID), now: .zero).isEmpty)
        let back = core.apply(MultizoneInput.stopFollowing(groupId: Self.groupId), now: .zero).compactMap(SentMessage.init)
        #expect(back.ofType("RECEIVER_STATUS").last?.json["status"]?["applications"]?.arrayValue?.first?["appId"] == "E8C28D3C")
    }

    @Test("A member that launches its own app while following leaves the group session, and says so")
    func leavesByLaunching() throws {
        var device = speaker()
        let connection = connected(&device)
        var core = device.device
        _ = core.apply(MultizoneInput.follow(GroupSession(groupId: Self.groupId, sessionId: "s", displayName: "Spotify"),
                                             role: .follower), now: .zero)
        let outputs = core.receive(CastEnvelope(sourceId: "sender-0", destinationId: "receiver-0", namespace: CastNamespace.receiver,
                                                payload: .string(#"{"type":"LAUNCH","appId":"CC1AD845","requestId":2}"#)),
                                   on: connection, now: .zero)
        let kinds = outputs.compactMap(\.event).map(\.kind)
        #expect(kinds.contains(.multizone(.leftGroupSession(groupId: Self.groupId))))
        #expect(core.runningApp?.definition.appId == "CC1AD845")
        // It follows nothing now: the group's end leaves its app alone.
        #expect(core.apply(MultizoneInput.stopFollowing(groupId: Self.groupId), now: .zero).isEmpty)
    }

    /// The Kitchen speaker, and the endpoint of the group Upstairs it leads (no members yet).
    private func upstairs() throws -> (leader: DeviceConfiguration, group: CastTestDevice) {
        let leader = DeviceConfiguration(identity: try DeviceIdentity(uuid: Self.speakerUUID, friendlyName: "Kitchen", supportsVideo: false))
        let group = CastTestDevice {
            $0 = try! .groupEndpoint(uuid: Self.groupId, name: "Upstairs", leader: leader, members: [],
                                     volume: Volume(level: 1, muted: false))
        }
        return (leader, group)
    }

    @Test("Member list inputs on a group endpoint broadcast DEVICE_ADDED / DEVICE_UPDATED / DEVICE_REMOVED to *")
    func memberListBroadcasts() throws {
        var (_, group) = try upstairs()
        let connection = connected(&group)
        let watcher = connected(&group, 2)
        var core = group.device
        let bedroom = MultizoneMember(uuid: Self.bedroomUUID, name: "Bedroom", capabilities: 4, volume: Volume(level: 0.4, muted: false))
        var sent = core.apply(MultizoneInput.memberAdded(bedroom), now: .zero).compactMap(SentMessage.init)
        #expect(sent.count == 1 && sent[0].isBroadcast && sent[0].to == [connection, watcher])
        #expect(sent[0].envelope.namespace == CastNamespace.multizone && sent[0].envelope.sourceId == "receiver-0")
        #expect(sent[0].json == ["type": "DEVICE_ADDED", "requestId": 0, "device": [
            "capabilities": 4, "deviceId": .string(dashed(Self.bedroomUUID)), "name": "Bedroom", "volume": ["level": 0.4, "muted": false]]])
        var louder = bedroom
        louder.volume.level = 0.6
        sent = core.apply(MultizoneInput.memberUpdated(louder), now: .zero).compactMap(SentMessage.init)
        #expect(sent.map(\.type) == ["DEVICE_UPDATED"] && sent[0].json["device"]?["volume"]?["level"] == 0.6)
        #expect(core.apply(MultizoneInput.memberUpdated(louder), now: .zero).isEmpty)
        sent = core.apply(MultizoneInput.memberRemoved(uuid: dashed(Self.bedroomUUID)), now: .zero).compactMap(SentMessage.init)
        #expect(sent.map(\.json) == [["type": "DEVICE_REMOVED", "requestId": 0, "deviceId": .string(dashed(Self.bedroomUUID))]])
        #expect(core.apply(MultizoneInput.memberRemoved(uuid: Self.bedroomUUID), now: .zero).isEmpty)
    }

    @Test("A group endpoint's playback session starting and ending: PLAYBACK_SESSION_UPDATED to *; a device's own endpoint sends none")
    func playbackSessionUpdated() throws {
        var (leader, group) = try upstairs()
        let connection = connected(&group)
        let watcher = connected(&group, 2)
        let updates = { (sent: [SentMessage]) in sent.filter { $0.envelope.namespace == CastNamespace.multizone } }
        let launched = group.send(connection, to: CastEndpoint.platformReceiver, CastNamespace.receiver,
                                  ["type": "LAUNCH", "appId": "CC1AD845", "requestId": 1])
        #expect(updates(launched).map(\.json) == [["type": "PLAYBACK_SESSION_UPDATED", "requestId": 0]])
        #expect(updates(launched).first?.isBroadcast == true && updates(launched).first?.to.contains(watcher) == true)
        var core = group.device
        let stopped = core.apply(.stopApp, now: .zero).compactMap(SentMessage.init)
        let update = updates(stopped)
        #expect(update.map(\.json) == [["type": "PLAYBACK_SESSION_UPDATED", "requestId": 0]])
        var device = CastTestDevice { $0 = leader }
        _ = device.launch()
        var own = device.device
        #expect(updates(own.apply(.stopApp, now: .zero).compactMap(SentMessage.init)).isEmpty)
    }
}
