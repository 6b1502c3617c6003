import CastControl
import CastDevice
import CastSimulator
import CastSimulatorTesting
import CastWire
import Logging
import Testing

@Suite("Control API of a fleet")
struct FleetControlTests {
    @Test("devices lists every device; ?device= (name or UUID) picks the one an endpoint acts on; an unknown name is a 404 naming the others")
    func deviceSelection() async throws {
        var logger = Logger(label: "castsim-fleet-control-test")
        logger.logLevel = .critical
        let configurations = try ["Kitchen", "Living Room"].enumerated().map { index, name in
            var configuration = SimulatorConfiguration(
                device: DeviceConfiguration(identity: try DeviceIdentity(uuid: String(repeating: "\(index + 1)", count: 32), friendlyName: name)),
                logger: logger)
            configuration.listenEphemerally(on: "127.0.0.\(index + 2)")
            configuration.httpsPort = nil
            configuration.clock = .manual
            return configuration
        }
        let fleet = try await CastFleet.start(configurations)
        let server: ControlServer
        do {
            server = try await ControlServer.start(ControlConfiguration(host: "127.0.0.1", port: 0), devices: { fleet.endpoints }, logger: logger)
        } catch {
            await fleet.stop()
            throw error
        }
        do {
            try await Self.exercise(fleet, ControlClient(host: "127.0.0.1", port: server.port, token: nil))
        } catch {
            await server.stop()
            await fleet.stop()
            throw error
        }
        await server.stop()
        await fleet.stop()
    }

    static func exercise(_ fleet: CastFleet, _ http: ControlClient) async throws {

        var reply = try await http.get("/api/v1/devices")
        #expect(reply.status == 200)
        let listed = reply.json["devices"]?.arrayValue ?? []
        #expect(listed.map { $0["name"]?.stringValue } == ["Kitchen", "Living Room"])
        #expect(listed[1]["cast"]?.stringValue == fleet.devices[1].castAddress.hostAndPort)
        #expect(listed[1]["udn"]?.stringValue == "22222222-2222-2222-2222-222222222222")

        reply = try await http.post("/api/v1/act?device=Living%20Room", #"{"volume": {"level": 0.4}}"#)
        #expect(reply.status == 200)
        reply = try await http.get("/api/v1/state?device=Living+Room")
        #expect(reply.json["device"]?["name"] == "Living Room")
        reply = try await http.get("/api/v1/state?device=22222222222222222222222222222222")
        #expect(reply.json["device"]?["name"] == "Living Room")
        #expect(reply.json["volume"]?["level"] == 0.4)
        // No device named: the first, untouched.
        reply = try await http.get("/api/v1/state")
        #expect(reply.json["device"]?["name"] == "Kitchen")
        #expect(reply.json["volume"]?["level"] == 1)
        // Each device keeps its own clock and journal.
        reply = try await http.post("/api/v1/clock/advance?device=Kitchen", #"{"by": "10s"}"#)
        #expect(reply.status == 200)
        #expect(try await fleet.devices[0].clock().time.seconds == 10)
        #expect(try await fleet.devices[1].clock().time.seconds == 0)

        reply = try await http.get("/api/v1/state?device=Garage")
        #expect(reply.status == 404)
        #expect(reply.error == #"no device "Garage": the devices are "Kitchen", "Living Room" (by name or UUID)"#)
        // `device` is no unknown parameter on endpoints that take none.
        reply = try await http.get("/api/v1/clock?device=Kitchen")
        #expect(reply.status == 200)
        reply = try await http.get("/api/v1/clock?devices=Kitchen")
        #expect(reply.status == 400)
    }
}
