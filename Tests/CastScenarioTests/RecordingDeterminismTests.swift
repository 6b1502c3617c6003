import CastDevice
import CastScenario
import CastSimulatorTesting
import CastWire
import Foundation
import Testing

/// A recording castsim makes of itself under the manual clock, converted and replayed with
/// the same sender behaviour, gives every sender byte-identical messages: for every example
/// scenario in scenarios/ (those of an app's own world: in the app's folder, with the LOAD
/// that app takes).
@Suite("Recording determinism over the example scenarios")
struct RecordingDeterminismTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../scenarios")

    /// The examples of one device, and whether they declare an app's own section.
    static func examples(withAppSections: Bool) -> [String] {
        let sections = Set(AppRegistry.builtIn.sections.map(\.key))
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasSuffix(".json") && $0 != "scenario.schema.json" }.sorted()
            // A recording is of one device: a household's example is left out.
            .filter { (try? FleetScenario.load(contentsOf: folder.appendingPathComponent($0)))?.devices.count == 1 }
            .filter { file in
                let source = (try? Scenario.load(contentsOf: folder.appendingPathComponent(file)))?.source?.objectValue ?? [:]
                return !sections.isDisjoint(with: source.keys) == withAppSections
            }
    }

    static var examples: [String] { examples(withAppSections: false) }

    /// The senders' part, the same for every scenario: two senders, a launch of `appId`,
    /// `load` (default: a LOAD of what the scenario's catalog has), pause, play, volume,
    /// status. `advancing`: the test moves the clock (the recorded run); the replay's steps
    /// do it.
    static func senders(on device: EmbeddedCastSimulator, _ scenario: Scenario, advancing: Bool,
                        appId: String = CastAppDefinition.defaultMediaReceiver.appId, load custom: [String: JSONValue]? = nil)
        -> [[CastEnvelope]]
    {
        let source = scenario.source ?? [:]
        let first = device.connectSender()
        let transport = first.launch(appId)
        var load: [String: JSONValue] = ["type": "LOAD", "autoplay": true]
        if let custom {
            load.merge(custom) { $1 }
        } else {
            let contentId = source["media"]?.objectValue?.keys.sorted().first { !$0.contains("*") && !$0.contains("?") }
            load["media"] = ["contentId": .string(contentId ?? "http://media.test/movie.mp4"), "streamType": "BUFFERED"]
        }
        if let transport { first.request(CastNamespace.media, to: transport, load) }
        if advancing { device.advanceClock(by: 5) }
        if let transport { first.request(CastNamespace.media, to: transport, ["type": "PAUSE", "mediaSessionId": 1]) }
        if advancing { device.advanceClock(by: 20) }
        let second = device.connectSender()
        second.connect()
        second.request(CastNamespace.receiver, to: CastEndpoint.platformReceiver, ["type": "SET_VOLUME", "volume": ["level": 0.35]])
        if let transport {
            first.request(CastNamespace.media, to: transport, ["type": "PLAY", "mediaSessionId": 1])
            first.request(CastNamespace.media, to: transport, ["type": "GET_STATUS"])
        }
        if advancing { device.advanceClock(by: 90) }
        second.request(CastNamespace.receiver, to: CastEndpoint.platformReceiver, ["type": "GET_STATUS"])
        first.close()
        second.close()
        return [first.received.map(\.envelope), second.received.map(\.envelope)]
    }

    @Test("Recorded, converted, replayed: the same bytes to every sender", arguments: examples)
    func replayIsIdentical(_ file: String) throws {
        try Self.checkReplay(file) { device, scenario, advancing in Self.senders(on: device, scenario, advancing: advancing) }
    }

    /// Records `senders` against the example `file`, converts the recording, replays it with
    /// the same senders and checks that every sender got the same bytes.
    static func checkReplay(_ file: String,
                            senders: (EmbeddedCastSimulator, Scenario, _ advancing: Bool) -> [[CastEnvelope]]) throws {
        let scenario = try Scenario.load(contentsOf: folder.appendingPathComponent(file))
        var original: [[CastEnvelope]] = []
        let recording = try recordRun(scenario) { original = senders($0, scenario, true) }
        let result = try RecordingConverter.convert(recording)
        #expect(result.warnings == [])
        #expect(result.rulesAdded == 0, "castsim's own behaviour reproduces itself: \(result.text)")
        let replayed = try Scenario.parse(result.scenario)
        let device = EmbeddedCastSimulator(scenario: replayed)
        let again = senders(device, replayed, false)
        if let folder = ProcessInfo.processInfo.environment["CASTSIM_DEBUG_DIR"] {
            try? result.text.write(toFile: "\(folder)/\(file).converted.json", atomically: true, encoding: .utf8)
            try? recording.text().write(toFile: "\(folder)/\(file).recording.jsonl", atomically: true, encoding: .utf8)
            let dump = { (list: [[CastEnvelope]]) in list.map { $0.map { "\($0.namespace) \($0.sourceId)->\($0.destinationId) \($0.utf8 ?? "")" }.joined(separator: "\n") }.joined(separator: "\n---\n") }
            try? dump(original).write(toFile: "\(folder)/\(file).original.txt", atomically: true, encoding: .utf8)
            try? dump(again).write(toFile: "\(folder)/\(file).again.txt", atomically: true, encoding: .utf8)
        }
        #expect(original.map(\.count) == again.map(\.count))
        for (sender, (wanted, got)) in zip(original, again).enumerated() {
            for (index, (expected, actual)) in zip(wanted, got).enumerated() where expected != actual {
                Issue.record("sender \(sender + 1), message \(index + 1): \(actual.utf8 ?? "binary") instead of \(expected.utf8 ?? "binary")")
                break
            }
        }
        #expect(!original.flatMap { $0 }.isEmpty)
        // The replay's expectations (each sender sends what it sent) pass.
        #expect(device.report.passed, "\(device.report.json())")
        device.stop()
    }
}
