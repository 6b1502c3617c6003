import CastDevice
import Foundation
import CastScenario
import CastSimulator
import CastSimulatorTesting
import CastWire
import Logging
import NIOCore
import Testing

@Suite("Speaker groups at run time: a household's group endpoint, its members, its leader moving")
struct HouseholdRuntimeTests {
    static let multizone = "urn:x-cast:com.google.cast.multizone"

    /// Kitchen (leader) and Bedroom speakers in the group Upstairs, a TV outside it; each
    /// on its own loopback address with ephemeral ports, the group on `groupPort`.
    static func household(groupPort: Int) throws -> ([SimulatorConfiguration], GroupDeclaration) {
        var logger = Logger(label: "castsim-household-test")
        logger.logLevel = .critical
        let devices: [(String, String, Double, Bool)] = [
            ("Kitchen", "127.0.0.31", 0.5, false), ("Bedroom", "127.0.0.32", 0.25, false), ("TV", "127.0.0.33", 1, true),
        ]
        let configurations = try devices.map { name, host, level, video in
            var device = DeviceConfiguration(identity: try DeviceIdentity(uuid: DeviceIdentity.derivedUUID(for: name), friendlyName: name,
                                                                          supportsVideo: video))
            device.initialVolume = level
            var configuration = SimulatorConfiguration(device: device, logger: logger)
            configuration.listenEphemerally(on: host)
            configuration.httpsPort = nil
            return configuration
        }
        return (configurations, GroupDeclaration(name: "Upstairs", members: ["Kitchen", "Bedroom"], leader: "Kitchen", port: groupPort))
    }

    /// Waits until the fleet lists the group's endpoint (it starts asynchronously).
    static func groupEndpoint(_ fleet: CastFleet, named name: String = "Upstairs", at host: String? = nil) async throws -> CastSimulator {
        for _ in 0..<200 {
            if let group = fleet.endpoints.first(where: { $0.configuration.device.identity.friendlyName == name }),
               host == nil || group.castAddress.ipAddress == host {
                return group
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TestError("no group endpoint\(host.map { " at \($0)" } ?? "") within 2 s")
    }

    /// Whether `address` refuses connections within 2 s (listeners close asynchronously).
    static func refuses(_ address: SocketAddress) async throws -> Bool {
        for _ in 0..<200 {
            do {
                await (try await CastTestSender.connect(to: address)).close()
                try await Task.sleep(for: .milliseconds(10))
            } catch {
                return true
            }
        }
        return false
    }

    /// Whether `address` accepts a connection within 2 s.
    static func accepts(_ address: SocketAddress) async throws -> Bool {
        for _ in 0..<200 {
            if let sender = try? await CastTestSender.connect(to: address) {
                await sender.close()
                return true
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    static func members(_ status: JSONValue) -> [String] {
        (status["status"]?["devices"]?.arrayValue ?? []).compactMap { $0["deviceId"]?.stringValue }
    }

    @Test("Casting to the group: members mirror its session, MULTIZONE_STATUS lists them, group volume scales them, eureka_info lists the group")
    func groupPlays() async throws {
        let (configurations, upstairs) = try Self.household(groupPort: 32_701)
        try await withFleet(configurations, groups: [upstairs]) { fleet in
            let group = try await Self.groupEndpoint(fleet)
            #expect(group.castAddress.ipAddress == "127.0.0.31" && group.castAddress.port == 32_701)
            let kitchen = fleet.devices[0], bedroom = fleet.devices[1]
            let kitchenId = kitchen.configuration.device.identity, bedroomId = bedroom.configuration.device.identity

            let sender = try await CastTestSender.connect(to: group)
            _ = try await sender.connectToReceiver()
            let status = try await sender.request(Self.multizone, to: CastEndpoint.platformReceiver, ["type": "GET_STATUS"])
            #expect(status["type"] == "MULTIZONE_STATUS")
            #expect(Self.members(status) == [kitchenId.dashedUUID, bedroomId.dashedUUID])

            let onKitchen = try await CastTestSender.connect(to: kitchen)
            _ = try await onKitchen.connectToReceiver()
            let onBedroom = try await CastTestSender.connect(to: bedroom)
            _ = try await onBedroom.connectToReceiver()
            let transport = try await sender.launch()
            let groupSession = try #require(try await group.snapshot().runningApp?.sessionId)
            // The leader shows the group's session as 531A4F84, the follower 705D30C6.
            let leader = await onKitchen.waitFor { _, json in
                json["type"] == "RECEIVER_STATUS" && json["status"]?["applications"]?[0]?["appId"] == "531A4F84"
            }
            #expect(leader?.1["status"]?["applications"]?[0]?["sessionId"]?.stringValue == groupSession)
            let follower = await onBedroom.waitFor { _, json in
                json["type"] == "RECEIVER_STATUS" && json["status"]?["applications"]?[0]?["appId"] == "705D30C6"
            }
            #expect(follower != nil)
            _ = transport

            // Group volume 0.5 → 0.8 scales the members by 1.6: 0.5 → 0.8, 0.25 → 0.4.
            _ = try await sender.request(CastNamespace.receiver, to: CastEndpoint.platformReceiver,
                                         ["type": "SET_VOLUME", "volume": ["level": 0.8]])
            let bedroomLevel = await onBedroom.waitFor { _, json in
                json["type"] == "RECEIVER_STATUS" && (json["status"]?["volume"]?["level"]?.doubleValue).map { abs($0 - 0.4) < 1e-6 } == true
            }
            #expect(bedroomLevel != nil)
            #expect(abs(try await kitchen.snapshot().volume.level - 0.8) < 1e-6)
            // The members hear of it as DEVICE_UPDATED on the group.
            let updated = await sender.waitFor { envelope, json in envelope.namespace == Self.multizone && json["type"] == "DEVICE_UPDATED" }
            #expect(updated != nil)

            // SET_DEVICE_VOLUME on the group reaches the member's own device.
            try await sender.send(from: CastEndpoint.platformSender, to: CastEndpoint.platformReceiver, Self.multizone,
                                      ["type": "SET_DEVICE_VOLUME", "deviceId": .string(bedroomId.dashedUUID), "volume": ["level": 0.1],
                                       "requestId": 77])
            for _ in 0..<200 where abs(try await bedroom.snapshot().volume.level - 0.1) > 1e-6 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(abs(try await bedroom.snapshot().volume.level - 0.1) < 1e-6, "SET_DEVICE_VOLUME did not reach the member")

            // eureka_info: the leader says "self", the follower the leader's address.
            let leaderInfo = try JSONValue.parse(try await httpGet(address: kitchen.httpAddress!, secure: false, path: "/setup/eureka_info?params=multizone"))
            #expect(leaderInfo["multizone"]?["groups"]?[0]?["elected_leader"] == "self")
            #expect(leaderInfo["multizone"]?["groups"]?[0]?["cast_port"] == 32_701)
            let groupUUID = try DeviceIdentity(uuid: upstairs.uuid).dashedUUID
            #expect(leaderInfo["multizone"]?["groups"]?[0]?["uuid"]?.stringValue == groupUUID)
            let followerInfo = try JSONValue.parse(try await httpGet(address: bedroom.httpAddress!, secure: false, path: "/setup/eureka_info?params=multizone"))
            #expect(followerInfo["multizone"]?["groups"]?[0]?["elected_leader"] == "127.0.0.31:32701")
            let tvInfo = try JSONValue.parse(try await httpGet(address: fleet.devices[2].httpAddress!, secure: false, path: "/setup/eureka_info?params=multizone"))
            #expect(tvInfo["multizone"]?["groups"] == [])
            for each in [sender, onKitchen, onBedroom] { await each.close() }
        }
    }

    @Test("The leader moves: the group listens at the new leader's address on the same port, the old one refuses; a member drops out and comes back")
    func leaderMovesAndMembersComeAndGo() async throws {
        let (configurations, upstairs) = try Self.household(groupPort: 32_702)
        try await withFleet(configurations, groups: [upstairs]) { fleet in
            let group = try await Self.groupEndpoint(fleet)
            let kitchen = fleet.devices[0], bedroom = fleet.devices[1]
            let sender = try await CastTestSender.connect(to: group)
            _ = try await sender.connectToReceiver()

            // Bedroom drops out: DEVICE_REMOVED with its dashed id; back: DEVICE_ADDED.
            try await bedroom.act(.household(.offline))
            let removed = await sender.waitFor { envelope, json in envelope.namespace == Self.multizone && json["type"] == "DEVICE_REMOVED" }
            #expect(removed?.1["deviceId"]?.stringValue == bedroom.configuration.device.identity.dashedUUID)
            #expect(try await bedroom.snapshot().isAdvertised == false)
            // Powered off: its own Cast port refuses.
            let bedroomAddress = bedroom.castAddress
            #expect(try await Self.refuses(bedroomAddress), "an offline device still accepts")
            try await bedroom.act(.household(.online))
            let added = await sender.waitFor { envelope, json in envelope.namespace == Self.multizone && json["type"] == "DEVICE_ADDED" }
            #expect(added?.1["device"]?["deviceId"]?.stringValue == bedroom.configuration.device.identity.dashedUUID)
            #expect(try await Self.accepts(bedroomAddress), "a device back online refuses")
            // Announced once it listens.
            for _ in 0..<200 where try await !bedroom.snapshot().isAdvertised { try await Task.sleep(for: .milliseconds(10)) }
            #expect(try await bedroom.snapshot().isAdvertised)

            // Bedroom takes the lead: the group's connections close, its port moves.
            try await bedroom.act(.household(.leadGroup("Upstairs", rename: false)))
            #expect(await sender.waitForClose())
            let moved = try await Self.groupEndpoint(fleet, at: "127.0.0.32")
            #expect(moved.castAddress.port == 32_702)
            await #expect(throws: (any Error).self, "the old leader still accepts the group's port") {
                try await CastTestSender.connect(to: try SocketAddress(ipAddress: "127.0.0.31", port: 32_702))
            }
            let again = try await CastTestSender.connect(to: moved)
            let status = try await again.connectToReceiver()
            #expect(status["type"] == "RECEIVER_STATUS")
            let kitchenInfo = try JSONValue.parse(try await httpGet(address: kitchen.httpAddress!, secure: false, path: "/setup/eureka_info?params=multizone"))
            #expect(kitchenInfo["multizone"]?["groups"]?[0]?["elected_leader"] == "127.0.0.32:32702")
            await again.close()

            // Deleted: the endpoint goes from the list, and its port refuses once it has stopped.
            try await kitchen.act(.household(.deleteGroup("Upstairs")))
            #expect(fleet.endpoints.count == 3)
            #expect(try await Self.refuses(try SocketAddress(ipAddress: "127.0.0.32", port: 32_702)),
                    "the deleted group's port still accepts after 2 s")
        }
    }

    @Test("A group created while senders watch: its endpoint starts at its leader's address, its members' eureka_info list it, its members follow what it plays")
    func groupCreated() async throws {
        let (configurations, _) = try Self.household(groupPort: 32_703)
        try await withFleet(configurations, groups: []) { fleet in
            #expect(fleet.endpoints.count == 3)
            let tv = fleet.devices[2], kitchen = fleet.devices[0]
            let onKitchen = try await CastTestSender.connect(to: kitchen)
            _ = try await onKitchen.connectToReceiver()
            try await tv.act(.household(.createGroup(GroupDeclaration(name: "Everywhere", members: ["TV", "Kitchen"], port: 32_704))))
            let everywhere = try await Self.groupEndpoint(fleet, named: "Everywhere")
            #expect(everywhere.castAddress.ipAddress == "127.0.0.33" && everywhere.castAddress.port == 32_704)
            let info = try JSONValue.parse(try await httpGet(address: kitchen.httpAddress!, secure: false, path: "/setup/eureka_info?params=multizone"))
            #expect(info["multizone"]?["groups"]?[0]?["name"] == "Everywhere")
            #expect(info["multizone"]?["groups"]?[0]?["elected_leader"] == "127.0.0.33:32704")

            let sender = try await CastTestSender.connect(to: everywhere)
            _ = try await sender.launch()
            let follows = await onKitchen.waitFor { _, json in
                json["type"] == "RECEIVER_STATUS" && json["status"]?["applications"]?[0]?["appId"] == "705D30C6"
            }
            #expect(follows != nil, "the kitchen speaker does not follow the new group's session")
            await sender.close()
            await onKitchen.close()
        }
    }

    @Test("Steps in quick succession end as the last says: offline then online accepts; two leader moves end at the second; a step at 0 waits for the household")
    func quickSuccession() async throws {
        var (configurations, upstairs) = try Self.household(groupPort: 32_705)
        // The TV drops out at once: the step fires as the device starts, before the household is there.
        let tv = DeviceIdentity.derivedUUID(for: "TV")
        let device = configurations[2].device
        configurations[2].scenario = try Scenario.parse(Data(#"{"name": "tv", "timeline": [{"at": "0s", "offline": true}]}"#.utf8))
        configurations[2].device = device
        try await withFleet(configurations, groups: [upstairs]) { fleet in
            let kitchen = fleet.devices[0], bedroom = fleet.devices[1]
            #expect(fleet.devices[2].configuration.device.identity.uuid == tv)
            #expect(try await fleet.devices[2].snapshot().isAdvertised == false, "the step at 0 was lost")
            #expect(try await Self.refuses(fleet.devices[2].castAddress))

            let address = bedroom.castAddress
            try await bedroom.act(.household(.offline))
            try await bedroom.act(.household(.online))
            #expect(try await Self.accepts(address), "offline then online at once: the device refuses")
            try await Task.sleep(for: .milliseconds(200))
            #expect(try await Self.accepts(address), "the offline step's close came last")
            for _ in 0..<200 where try await !bedroom.snapshot().isAdvertised { try await Task.sleep(for: .milliseconds(10)) }
            #expect(try await bedroom.snapshot().isAdvertised)

            _ = try await Self.groupEndpoint(fleet)
            try await bedroom.act(.household(.leadGroup("Upstairs", rename: false)))
            try await kitchen.act(.household(.leadGroup("Upstairs", rename: false)))
            let group = try await Self.groupEndpoint(fleet, at: "127.0.0.31")
            try await Task.sleep(for: .milliseconds(200))
            #expect(group.castAddress.ipAddress == "127.0.0.31")
            #expect(try await Self.accepts(try SocketAddress(ipAddress: "127.0.0.31", port: 32_705)))
            #expect(try await Self.refuses(try SocketAddress(ipAddress: "127.0.0.32", port: 32_705)))

            // What cannot be done is refused with the reason, and nothing is done.
            await #expect(throws: ControlRefusal.self) { try await bedroom.act(.household(.online)) }
            let refusal = await #expect(throws: ControlRefusal.self) { try await kitchen.act(.household(.deleteGroup("Downstairs"))) }
            #expect(refusal?.description == #"no group "Downstairs"; the groups are "Upstairs""#)
            let groupStep = await #expect(throws: ControlRefusal.self) { try await group.act(.household(.offline)) }
            #expect(groupStep?.description.contains("name one of its members") == true)
        }
    }
}
