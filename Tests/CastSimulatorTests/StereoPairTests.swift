import CastDevice
import CastDiscovery
import CastScenario
import CastSimulator
import CastSimulatorTesting
import CastWire
import Logging
import Testing

/// Two Nest Audios as a stereo pair (docs/protocol/groups.md §9; quirks Q14, Q15): what
/// each speaker and the pair's group advertise, say in eureka_info and in MULTIZONE_STATUS.
@Suite("A stereo pair: the speakers' ca and st, the group's ca, multichannel in eureka_info and MULTIZONE_STATUS")
struct StereoPairTests {
    static func pair(port: Int, rightKeys: DeviceQuirks.Eureka.MultizoneKeys? = nil) throws -> ([SimulatorConfiguration], GroupDeclaration) {
        var logger = Logger(label: "castsim-stereo-pair-test")
        logger.logLevel = .critical
        let configurations = try [("Left", "127.0.0.41"), ("Right", "127.0.0.42")].map { name, host in
            var device = DeviceConfiguration(identity: try DeviceIdentity(uuid: DeviceIdentity.derivedUUID(for: name), friendlyName: name))
            DeviceProfile.nestAudio.apply(to: &device)
            if name == "Right", let rightKeys { device.quirks?.eureka.multizoneKeys = rightKeys }
            var configuration = SimulatorConfiguration(device: device, logger: logger)
            configuration.listenEphemerally(on: host)
            return configuration
        }
        return (configurations, GroupDeclaration(name: "Pair", members: ["Left", "Right"], port: port, stereoPair: true))
    }

    @Test("Each speaker says ca 199428 (st=2 on the right one), the group 199332; eureka lists a multichannel group; MULTIZONE_STATUS isMultichannel")
    func pairAdvertisesItself() async throws {
        let (configurations, pair) = try Self.pair(port: 32_711, rightKeys: .legacy)
        try await withFleet(configurations, groups: [pair]) { fleet in
            let left = fleet.devices[0], right = fleet.devices[1]
            let leftTXT = CastServiceDescription(left.configuration.device, port: 8009).txt
            let rightTXT = CastServiceDescription(right.configuration.device, port: 8009).txt
            #expect(leftTXT.contains("ca=199428") && leftTXT.contains("st=0"), "\(leftTXT)")
            #expect(rightTXT.contains("ca=199428") && rightTXT.contains("st=2"), "\(rightTXT)")
            let group = try await HouseholdRuntimeTests.groupEndpoint(fleet, named: "Pair")
            #expect(group.configuration.device.identity.capabilityBits == 199_332)

            // Over 8443, as pychromecast and Music Assistant ask (8008 answers the flat body).
            // Newer firmware (the Nest Audio profile): `leader`, no cast_port; the right
            // speaker here keeps the legacy keys.
            let onLeft = try JSONValue.parse(try await httpGet(address: left.httpsAddress!, secure: true, path: "/setup/eureka_info?params=multizone"))
            let current = try #require(onLeft["multizone"]?["groups"]?[0])
            #expect(current["multichannel_group"] == true && current["leader"] == "self")
            #expect(current["elected_leader"] == nil && current["cast_port"] == nil)
            let onRight = try JSONValue.parse(try await httpGet(address: right.httpsAddress!, secure: true, path: "/setup/eureka_info?params=multizone"))
            let legacy = try #require(onRight["multizone"]?["groups"]?[0])
            #expect(legacy["multichannel_group"] == true && legacy["elected_leader"] == "127.0.0.41:32711" && legacy["cast_port"] == 32_711)
            #expect(legacy["leader"] == nil)

            let sender = try await CastTestSender.connect(to: group)
            _ = try await sender.connectToReceiver()
            let status = try await sender.request(HouseholdRuntimeTests.multizone, to: CastEndpoint.platformReceiver, ["type": "GET_STATUS"])
            #expect(status["status"]?["isMultichannel"] == true)
            #expect(HouseholdRuntimeTests.members(status).count == 2)
            await sender.close()
        }
    }

    @Test("An ordinary group stays what it was: no multichannel, the members' own ca and st")
    func ordinaryGroup() async throws {
        var (configurations, pair) = try Self.pair(port: 32_712)
        pair.stereoPair = false
        try await withFleet(configurations, groups: [pair]) { fleet in
            let txt = CastServiceDescription(fleet.devices[1].configuration.device, port: 8009).txt
            #expect(txt.contains("ca=198660") && txt.contains("st=0"), "\(txt)")
            let group = try await HouseholdRuntimeTests.groupEndpoint(fleet, named: "Pair")
            #expect(group.configuration.device.identity.capabilityBits == 198_660 | 32)
            let info = try JSONValue.parse(try await httpGet(address: fleet.devices[0].httpsAddress!, secure: true, path: "/setup/eureka_info?params=multizone"))
            #expect(info["multizone"]?["groups"]?[0]?["multichannel_group"] == false && info["multizone"]?["groups"]?[0]?["elected_leader"] == "self")
        }
    }
}
