import CastDevice
import CastScenario
import CastSimulatorTesting
import CastWire
import Foundation
import Testing

/// A profile makes the device what a sender sees of that family: its identity (model,
/// maker, `ca`), what RECEIVER_STATUS says when idle and about the volume.
@Suite("Device profiles: real families as senders see them")
struct ProfileTests {
    private func idleStatus(_ profile: DeviceProfile) throws -> [String: JSONValue] {
        var harness = CastTestDevice { profile.apply(to: &$0) }
        let connection = harness.open(1)
        harness.connect(connection)
        let reply = harness.send(connection, to: "receiver-0", CastNamespace.receiver, ["type": "GET_STATUS", "requestId": 7])
        return try #require(reply.first?.json["status"]?.objectValue)
    }

    @Test("Each profile's identity, idle RECEIVER_STATUS and volume control", arguments: DeviceProfile.catalog)
    func eachProfile(profile: DeviceProfile) throws {
        var configuration = DeviceConfiguration(identity: try DeviceIdentity(uuid: "0123456789abcdef0123456789abcdef"))
        profile.apply(to: &configuration)
        #expect(configuration.identity.modelName == profile.modelName)
        #expect(configuration.identity.manufacturer == profile.manufacturer)
        #expect(configuration.identity.capabilityBits == profile.capabilities)
        #expect(configuration.identity.supportsVideo == profile.supportsVideo)

        let status = try idleStatus(profile)
        #expect(status["volume"]?["controlType"] == .string(profile.volumeControl.controlType.rawValue))
        #expect(status["volume"]?["stepInterval"] == .number(profile.volumeControl.stepInterval))
        if profile.idleScreen {
            #expect(status["applications"]?[0]?["appId"] == "E8C28D3C")
        } else {
            // Speakers, hubs and tablets in hub mode: the key is absent, not an empty list.
            #expect(status["applications"] == nil)
        }
        // isActiveInput and isStandBy are a video device's (HDMI) alone.
        #expect((status["isActiveInput"] != nil) == profile.supportsVideo)
    }

    @Test("The catalog covers every kind, with distinct names, and at least the families senders classify apart")
    func catalog() {
        let names = DeviceProfile.catalog.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(Set(DeviceProfile.catalog.map(\.kind)) == Set(DeviceProfile.Kind.allCases))
        #expect(DeviceProfile.catalog.count >= 14)
        // pychromecast reads the type from the model name or display_supported: both kinds there.
        #expect(DeviceProfile.catalog.contains { !$0.supportsVideo } && DeviceProfile.catalog.contains { $0.supportsVideo })
    }

    @Test("A fixed volume keeps its level whatever SET_VOLUME asks; muting still works")
    func fixedVolume() throws {
        var harness = CastTestDevice { configuration in
            configuration.volumeControl = VolumeControl(controlType: .fixed, stepInterval: 0)
            configuration.initialVolume = 0.6
        }
        let connection = harness.open(1)
        harness.connect(connection)
        let set = harness.send(connection, to: "receiver-0", CastNamespace.receiver,
                               ["type": "SET_VOLUME", "requestId": 2, "volume": ["level": 0.1]])
        let status = try #require(set.first { $0.type == "RECEIVER_STATUS" && $0.requestId == 2 }?.json["status"])
        #expect(status["volume"]?["level"] == 0.6)
        #expect(status["volume"]?["controlType"] == "fixed")
        let mute = harness.send(connection, to: "receiver-0", CastNamespace.receiver,
                                ["type": "SET_VOLUME", "requestId": 3, "volume": ["muted": true]])
        #expect(mute.first { $0.requestId == 3 }?.json["status"]?["volume"]?["muted"] == true)
    }

    @Test("device.profile in a scenario: the family first, the file's own fields over it")
    func scenarioProfile() throws {
        let scenario = try Scenario.parse(Data("""
            {"name": "speaker", "device": {"profile": "nest-mini", "name": "Kitchen", "manufacturer": "Acme"}}
            """.utf8))
        let device = scenario.device
        #expect(device.identity.modelName == "Google Nest Mini" && device.identity.manufacturer == "Acme")
        #expect(device.identity.friendlyName == "Kitchen" && !device.identity.supportsVideo)
        #expect(device.identity.capabilityBits == 198_660)
        #expect(device.effectiveVolumeControl == .attenuation && device.idleScreenAppId == nil)

        // Capabilities given by the file: the bits follow from them, not from the family.
        let video = try Scenario.parse(Data("""
            {"name": "hub", "device": {"profile": "nest-mini", "capabilities": {"video": true}}}
            """.utf8))
        #expect(video.device.identity.supportsVideo && video.device.identity.capabilityBits == 5)
        #expect(video.device.idleScreenAppId == "E8C28D3C")
    }

    @Test("An unknown profile is refused at its JSON path, with the names there are")
    func unknownProfile() throws {
        let error = try #require(throws: ScenarioValidationError.self) {
            try Scenario.parse(Data(#"{"name": "x", "device": {"profile": "chromecast-9"}}"#.utf8))
        }
        #expect(error.description.contains("device.profile"), "\(error)")
        #expect(error.description.contains("no device profile \"chromecast-9\""), "\(error)")
        #expect(error.description.contains("nest-mini") && error.description.contains("bravia"), "\(error)")
        #expect(throws: UnknownProfile(name: "tv")) { try DeviceProfile.named("tv") }
    }
}

extension DeviceProfile: CustomTestStringConvertible {
    public var testDescription: String { name }
}
