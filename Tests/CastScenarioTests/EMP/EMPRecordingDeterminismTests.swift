import CastDevice
import CastScenario
import CastSimulatorTesting
import CastWire
import Foundation
import Testing

/// The EMP example scenarios recorded, converted and replayed give every sender the same
/// bytes, with the LOAD an EMP sender sends for what the scenario's Exposure backend has.
@Suite("Recording determinism over the EMP example scenarios")
struct EMPRecordingDeterminismTests {
    /// The examples with an Exposure backend (the mirroring example has an app section too).
    static var examples: [String] {
        RecordingDeterminismTests.examples(withAppSections: true).filter { file in
            let url = RecordingDeterminismTests.folder.appendingPathComponent(file)
            return (try? Scenario.load(contentsOf: url))?.source?[EMPScenarioKeys.section] != nil
        }
    }

    @Test("Recorded, converted, replayed: the same bytes to every sender", arguments: examples)
    func replayIsIdentical(_ file: String) throws {
        try RecordingDeterminismTests.checkReplay(file) { device, scenario, advancing in
            let exposure = scenario.source?[EMPScenarioKeys.section]
            var load: [String: JSONValue]?
            if let exposure, let asset = exposure["assets"]?.objectValue?.keys.sorted().first {
                let unit = exposure["businessUnits"]?.arrayValue?.first
                load = [
                    "media": ["contentId": .string(asset)],
                    "credentials": unit?["sessionTokens"]?.objectValue?.keys.sorted().first.map(JSONValue.string) ?? "token",
                    "customData": ["customer": unit?["customer"] ?? "c", "businessUnit": unit?["businessUnit"] ?? "b"],
                ]
            }
            return RecordingDeterminismTests.senders(on: device, scenario, advancing: advancing,
                                                     appId: CastAppDefinition.emp.appId, load: load)
        }
    }

    @Test("There are EMP examples to replay")
    func examplesExist() { #expect(Self.examples.count >= 4) }
}
