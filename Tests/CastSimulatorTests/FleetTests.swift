import CastDevice
import CastSimulator
import CastSimulatorTesting
import CastWire
import Logging
import NIOCore
import Testing

@Suite("A fleet: several devices in one process")
struct FleetTests {
    /// Three devices on 127.0.0.2-4, ephemeral ports, quiet logs.
    static func configurations(names: [String] = ["Kitchen", "Living Room", "Bedroom"]) throws -> [SimulatorConfiguration] {
        var logger = Logger(label: "castsim-fleet-test")
        logger.logLevel = .critical
        return try zip(names, FleetAddresses.loopback(count: names.count)).map { name, address in
            let uuid = String(repeating: String(name.count % 10), count: 30) + "0\(names.firstIndex(of: name)!)"
            var configuration = SimulatorConfiguration(
                device: DeviceConfiguration(identity: try DeviceIdentity(uuid: uuid, friendlyName: name, supportsVideo: false)),
                logger: logger)
            configuration.listenEphemerally(on: address)
            return configuration
        }
    }

    @Test("Each device has its own address, eureka_info and state; what one sender does to one device, the others do not see")
    func devicesAreSeparate() async throws {
        let fleet = try await CastFleet.start(try Self.configurations())
        do {
            #expect(fleet.devices.map { $0.castAddress.ipAddress } == ["127.0.0.2", "127.0.0.3", "127.0.0.4"])
            for device in fleet.devices {
                let eureka = try JSONValue.parse(try await httpGet(address: device.httpAddress!, secure: false, path: "/setup/eureka_info?params=name"))
                #expect(eureka["name"]?.stringValue == device.configuration.device.identity.friendlyName)
            }
            let living = try #require(fleet.device(named: "Living Room"))
            #expect(fleet.device(named: living.configuration.device.identity.dashedUUID.uppercased()) === living)
            #expect(fleet.device(named: "Garage") == nil)

            let sender = try await CastTestSender.connect(to: living)
            _ = try await sender.connectToReceiver()
            let status = try await sender.request(CastNamespace.receiver, to: CastEndpoint.platformReceiver,
                                                  ["type": "SET_VOLUME", "volume": ["level": 0.25]])
            #expect(status["status"]?["volume"]?["level"]?.doubleValue == 0.25)
            // A sender on another device hears nothing of it, and that device's volume is its own.
            let other = try await CastTestSender.connect(to: fleet.devices[0])
            let kitchen = try await other.connectToReceiver()
            #expect(kitchen["status"]?["volume"]?["level"]?.doubleValue == 1)
            #expect(try await fleet.devices[2].snapshot().volume.level == 1)
            #expect(try await living.snapshot().volume.level == 0.25)
            await sender.close()
            await other.close()
        } catch {
            await fleet.stop()
            throw error
        }
        let addresses = fleet.devices.map(\.castAddress)
        await fleet.stop()
        for address in addresses {
            await #expect(throws: (any Error).self, "\(address) still accepts after stop") {
                try await CastTestSender.connect(to: address)
            }
        }
    }

    @Test("A device that cannot start stops the ones already up, and its error says where")
    func failedStartStopsTheOthers() async throws {
        var configurations = try Self.configurations(names: ["One", "Two"])
        // A fixed port on an address no other test uses, so that binding it again below
        // shows the failed start released it.
        configurations[0].host = "127.0.0.9"
        configurations[0].castPort = 8009
        // TEST-NET-1: an address this machine does not have.
        configurations[1].host = "192.0.2.1"
        let error = await #expect(throws: ListenError.self) { try await CastFleet.start(configurations) }
        #expect(error?.description(naming: "--port").contains("192.0.2.1") == true)
        // The first device's port is free again.
        let again = try await CastFleet.start([configurations[0]])
        await again.stop()
    }

    @Test("--host for a fleet: a list, a range, the first of a range; refusals say what was expected")
    func addresses() throws {
        #expect(FleetAddresses.loopback(count: 3) == ["127.0.0.2", "127.0.0.3", "127.0.0.4"])
        #expect(try FleetAddresses.parse("10.0.0.5,10.0.0.9", count: 2) == ["10.0.0.5", "10.0.0.9"])
        #expect(try FleetAddresses.parse("10.0.0.5-7", count: 3) == ["10.0.0.5", "10.0.0.6", "10.0.0.7"])
        #expect(try FleetAddresses.parse("10.0.0.5-10.0.0.6,10.1.1.1", count: 3) == ["10.0.0.5", "10.0.0.6", "10.1.1.1"])
        #expect(try FleetAddresses.parse("10.0.0.5", count: 3) == ["10.0.0.5", "10.0.0.6", "10.0.0.7"])
        #expect(try FleetAddresses.parse("10.0.0.5-9", count: 2) == ["10.0.0.5", "10.0.0.6"])
        #expect(try FleetAddresses.parse("::1", count: 1) == ["::1"])
        #expect(throws: FleetAddressError.notAnAddress("10.0.0")) { try FleetAddresses.parse("10.0.0", count: 1) }
        #expect(throws: FleetAddressError.badRange("10.0.0.9-5")) { try FleetAddresses.parse("10.0.0.9-5", count: 1) }
        // A list names each device's address: one too many is a mistake; a range is a pool.
        #expect(throws: FleetAddressError.tooMany(given: 3, needed: 2)) { try FleetAddresses.parse("10.0.0.5,10.0.0.6,10.0.0.7", count: 2) }
        #expect(try FleetAddresses.parse("10.0.0.254-10.0.1.3", count: 4) == ["10.0.0.254", "10.0.0.255", "10.0.1.0", "10.0.1.1"])
        let thousand = try FleetAddresses.parse("127.1.0.1-127.1.3.232", count: 1000)
        #expect(thousand.count == 1000 && thousand.first == "127.1.0.1" && thousand.last == "127.1.3.232" && Set(thousand).count == 1000)
        #expect(try FleetAddresses.parse("10.0.0.0-10.255.255.255", count: 2) == ["10.0.0.0", "10.0.0.1"])
        #expect(FleetAddresses.loopback(count: 300)[253...255] == ["127.0.0.255", "127.0.1.0", "127.0.1.1"])
        #expect(throws: FleetAddressError.badRange("10.0.1.3-10.0.0.1")) { try FleetAddresses.parse("10.0.1.3-10.0.0.1", count: 2) }
        #expect(throws: FleetAddressError.tooFew(given: 2, needed: 3)) { try FleetAddresses.parse("10.0.0.1,10.0.0.2", count: 3) }
        #expect(throws: FleetAddressError.repeated("10.0.0.2")) { try FleetAddresses.parse("10.0.0.1-2,10.0.0.2", count: 3) }
        #expect(try FleetAddresses.parse("10.0.0.254", count: 3) == ["10.0.0.254", "10.0.0.255", "10.0.1.0"])
        #expect(throws: FleetAddressError.rangeEnd("255.255.255.250", count: 7)) { try FleetAddresses.parse("255.255.255.250", count: 7) }
        #expect(throws: FleetAddressError.wildcard) { try FleetAddresses.parse("0.0.0.0,10.0.0.1", count: 2) }
        #expect(FleetAddressError.tooFew(given: 1, needed: 3).description.contains("1 address for 3 devices"))
    }
}
