import CastDevice
import CastScenario
import CastSimulatorTesting
import CastWire
import Foundation
import Testing

@Suite("Scenarios on the event stream, a bounded journal, patterns and their schema")
struct ScenarioStreamTests {
    @Test("An `after` step fires on the third item change, at its own time, inside one hour-long advance step")
    func triggerInsideALongAdvance() throws {
        var device = try CastTestDevice(scenarioJSON: """
        {"name": "t", "clock": {"mode": "manual"}, "device": {"heartbeatInterval": "0s", "idleTimeout": "0s"},
         "timeline": [
           {"after": {"event": "sessionStarted"}, "advance": "1h"},
           {"after": {"event": "itemChanged", "occurrence": 3, "delay": "10s"}, "volume": {"level": 0.1}}
         ]}
        """)
        let (connection, transport) = device.launch()
        let items = JSONValue.array((1...10).map { ["media": ["contentId": .string("s\($0)"), "duration": 300]] })
        device.send(connection, to: transport, CastNamespace.media, ["type": "QUEUE_LOAD", "requestId": 2, "items": items])
        #expect(device.session.now == SimTime(seconds: 3600))
        // Item 4 became current at 900 s: the step fired at 910 s, not at the end of the advance.
        let volume = device.events.first { if case .volumeChanged = $0.kind { true } else { false } }
        #expect(volume?.time == SimTime(seconds: 910))
        let fired = device.logs.first { $0.message.contains("timeline[1]") }
        #expect(fired != nil)
    }

    @Test("Faults are events too, at the time they are applied")
    func faultEvents() throws {
        var device = try CastTestDevice(scenarioJSON: """
        {"name": "f", "device": {"heartbeatInterval": "0s", "idleTimeout": "0s"},
         "timeline": [{"at": "5s", "stopHeartbeats": "10s"}, {"at": "7s", "closeConnection": {"which": "first", "mode": "reset"}}]}
        """)
        let connection = device.open(1)
        device.advance(10)
        let faults = device.events.compactMap { event -> (Double, Fault)? in
            if case .faultApplied(let fault) = event.kind { (event.time.seconds, fault) } else { nil }
        }
        #expect(faults.map(\.0) == [5, 7])
        #expect(faults.map(\.1) == [.stopHeartbeats(until: SimTime(seconds: 15)), .closeConnection(connection, reset: true)])
    }

    @Test("The journal keeps the newest messages only; expectations and the report keep what they need")
    func boundedJournal() throws {
        let scenario = try Scenario.parse(Data("""
        {"name": "j", "device": {"heartbeatInterval": "0s", "idleTimeout": "0s"},
         "expectations": [
           {"name": "connects", "message": {"type": "CONNECT"}},
           {"name": "loads", "message": {"type": "LOAD", "fields": {"media.contentId": "movie.mp4"}}}
         ]}
        """.utf8))
        var device = CastTestDevice(scenario: scenario, journalLimit: 50)
        let connection = device.open(1)
        device.connect(connection)
        // The nearest miss comes early, then a thousand PINGs push it out of the journal.
        device.send(connection, to: "t", CastNamespace.media, ["type": "LOAD", "requestId": 1, "media": ["contentId": "trailer.mp4"]])
        for _ in 0..<1000 { device.send(connection, CastNamespace.heartbeat, ["type": "PING"]) }
        #expect(device.journal.count == 50 && device.journal.seenSinceClear == 2002)
        #expect(device.journal.messages.allSatisfy { $0.payload?["type"] == "PING" })
        // Both directions are kept: each PING's PONG follows it.
        let kept = device.journal.entries
        #expect(kept.filter { $0.direction == .outbound }.allSatisfy { $0.payload?["type"] == "PONG" })
        #expect(kept.filter { $0.direction == .outbound }.count == 25)
        #expect(zip(kept, kept.dropFirst()).allSatisfy { $1.sequence == $0.sequence + 1 })
        let report = device.session.report()
        #expect(report.messagesReceived == 1002)
        let connects = try #require(report.expectations.first { $0.name == "connects" })
        #expect(connects.passed && connects.evidence.first?.payload?["type"] == "CONNECT")
        let loads = try #require(report.expectations.first { $0.name == "loads" })
        #expect(!loads.passed && loads.evidence.last?.role == "closest")
        #expect(loads.evidence.last?.payload?["media"]?["contentId"] == "trailer.mp4")
    }

    @Test("$regex is compiled once, when the file is read")
    func regexCompiledOnce() throws {
        let scenario = try Scenario.parse(Data("""
        {"name": "r", "rules": [{"match": {"fields": {"media.contentId": {"$regex": "^http://cdn\\\\."}}}, "action": "drop"}]}
        """.utf8))
        guard case .matches(let regex)? = scenario.rules.first?.pattern.fields.first?.predicate else {
            Issue.record("no $regex predicate")
            return
        }
        #expect(regex.pattern == #"^http://cdn\."#)
        let pattern = try #require(scenario.rules.first?.pattern)
        let envelope = CastEnvelope(sourceId: "s", destinationId: "d", namespace: CastNamespace.media, payload: .string("{}"))
        #expect(pattern.matches(envelope, payload: ["media": ["contentId": "http://cdn.test/a"]]))
        #expect(!pattern.matches(envelope, payload: ["media": ["contentId": "http://cdnXtest/a"]]))
    }

    @Test("Durations out of range are refused where they are written, with the limit")
    func durationRange() {
        #expect(ScenarioDuration.parse("100000000000000000000000s") == 1e23)
        switch ScenarioDuration.read("100000000000000000000000s") {
        case .success: Issue.record("accepted")
        case .failure(let error):
            #expect(error.description == #""100000000000000000000000s" is longer than 87600h (ten years), the longest castsim takes"#)
        }
        #expect((try? ScenarioDuration.read("87600h").get()) == ScenarioDuration.maximum)
        do {
            _ = try Scenario.parse(Data(#"{"name": "x", "timeline": [{"at": "87601h", "standby": true}]}"#.utf8))
            Issue.record("accepted")
        } catch {
            #expect(error.issues.map(\.description) == [#"timeline[0].at: "87601h" is longer than 87600h (ten years), the longest castsim takes"#])
        }
    }
}

/// The parser's key sets are written once, in the parser; the JSON Schema must list the
/// same keys, object by object, so an editor and `castsim validate` never disagree.
@Suite("The JSON Schema and the parser agree")
struct SchemaAgreementTests {
    static let schema = try! JSONValue.parse(Data(ScenarioSchema.json.utf8), limits: .document)

    private func properties(_ path: [String]) -> Set<String> {
        var value: JSONValue? = Self.schema
        for key in path { value = value?[key] }
        return Set(value?["properties"]?.objectValue?.keys ?? [:].keys).subtracting(["$schema"])
    }

    @Test("Every object's keys", arguments: [
        ([], ScenarioKeys.top), (["$defs", "device"], ScenarioKeys.device),
        (["$defs", "device", "properties", "capabilities"], ScenarioKeys.capability),
        (["$defs", "device", "properties", "volume"], ScenarioKeys.volume),
        (["$defs", "device", "properties", "apps", "items"], ScenarioKeys.app),
        (["$defs", "clock"], ScenarioKeys.clock), (["$defs", "mediaEntry"], ScenarioKeys.media),
        (["$defs", "mediaEntry", "properties", "load"], ScenarioKeys.load),
        (["$defs", "mediaEntry", "properties", "video"], ScenarioKeys.video),
        (["$defs", "mediaEntry", "properties", "load", "properties", "buffering", "items"], ScenarioKeys.buffering),
        (["$defs", "mediaEntry", "properties", "load", "properties", "fail"], ScenarioKeys.fail),
        (["$defs", "step"], ScenarioKeys.step), (["$defs", "step", "properties", "after"], ScenarioKeys.after),
        (["$defs", "step", "properties", "emit"], ScenarioKeys.emit),
        (["$defs", "step", "properties", "volume"], ScenarioKeys.volume),
        (["$defs", "step", "properties", "playerError"], ScenarioKeys.playerError),
        (["$defs", "step", "properties", "closeConnection"], ScenarioKeys.closeConnection),
        (["$defs", "step", "properties", "delayReplies"], ScenarioKeys.delayReplies),
        (["$defs", "step", "properties", "sendFrame"], ScenarioKeys.sendFrame),
        (["$defs", "rule"], ScenarioKeys.rule), (["$defs", "expectation"], ScenarioKeys.expectation),
        (["$defs", "group"], ScenarioKeys.group),
        (["$defs", "pattern"], ScenarioKeys.pattern),
        (["$defs", "quirks"], ScenarioKeys.quirks), (["$defs", "profile"], ScenarioKeys.profile),
        (["$defs", "profile", "properties", "volume"], ScenarioKeys.profileVolume), (["$defs", "quirks", "properties", "eureka"], ScenarioKeys.eurekaQuirks),
        (["$defs", "quirks", "properties", "mdns"], ScenarioKeys.mdnsQuirks),
        (["$defs", "quirks", "properties", "volume"], ScenarioKeys.volumeQuirks),
        (["$defs", "quirks", "properties", "apps"], ScenarioKeys.appQuirks),
        (["$defs", "action"], Set(ScenarioKeys.actions)),
    ])
    func keys(path: [String], parser: Set<String>) {
        #expect(properties(path) == parser, "schema \(path) vs parser")
    }

    @Test("App behaviours, step actions and event names")
    func enums() {
        let behaviours = Self.schema["$defs"]?["device"]?["properties"]?["apps"]?["items"]?["properties"]?["behaviour"]?["enum"]
        #expect(behaviours?.arrayValue?.compactMap(\.stringValue) == ScenarioKeys.behaviours)
        let text = ScenarioSchema.json
        for event in ScenarioKeys.events { #expect(text.contains("\"\(event)\""), "\(event)") }
        for action in ScenarioKeys.actions { #expect(properties(["$defs", "step"]).contains(action), "\(action)") }
        let aliases = Self.schema["$defs"]?["namespace"]?["anyOf"]?.arrayValue?.last?["enum"]?.arrayValue?.compactMap(\.stringValue)
        #expect(aliases.map(Set.init) == Set(MessagePattern.namespaceAliases.keys))
        let eureka = Self.schema["$defs"]?["quirks"]?["properties"]?["eureka"]?["properties"]
        #expect(eureka?["https"]?["enum"]?.arrayValue?.compactMap(\.stringValue) == DeviceQuirks.Eureka.HTTPS.allCases.map(\.rawValue))
        #expect(eureka?["http"]?["enum"]?.arrayValue?.compactMap(\.stringValue) == DeviceQuirks.Eureka.HTTP.allCases.map(\.rawValue))
        let refusals = Self.schema["$defs"]?["quirks"]?["properties"]?["apps"]?["properties"]?["refuse"]?["additionalProperties"]?["enum"]
        #expect(refusals?.arrayValue?.compactMap(\.stringValue) == ScenarioKeys.launchRefusals)
        let media = Self.schema["$defs"]?["profile"]?["properties"]?["media"]?["anyOf"]?[1]
        #expect(Set(media?["properties"]?.objectValue?.keys ?? [:].keys) == ScenarioKeys.profileMedia)
        #expect(media?["properties"]?["videoCodecs"]?["items"]?["enum"]?.arrayValue?.compactMap(\.stringValue) == ScenarioKeys.videoCodecs)
        #expect(media?["properties"]?["hdr"]?["items"]?["enum"]?.arrayValue?.compactMap(\.stringValue) == ScenarioKeys.hdrFormats)
        #expect(media?["properties"]?["audioCodecs"]?["items"]?["enum"]?.arrayValue?.compactMap(\.stringValue) == ScenarioKeys.audioCodecs)
        #expect(Self.schema["$defs"]?["profile"]?["properties"]?["kind"]?["enum"]?.arrayValue?.compactMap(\.stringValue)
            == DeviceProfile.Kind.allCases.map(\.rawValue))
    }

    @Test("A step is its trigger and one action: the action grammar is written once, in $defs/action")
    func stepFromActions() {
        let step = Self.schema["$defs"]?["step"]
        let action = Self.schema["$defs"]?["action"]?["properties"]?.objectValue ?? [:]
        #expect(!action.isEmpty)
        for (key, schema) in action { #expect(step?["properties"]?[key] == schema, "\(key)") }
        let oneOf = step?["oneOf"]?.arrayValue?.compactMap { $0["required"]?[0]?.stringValue }
        #expect(oneOf.map(Set.init) == Set(action.keys))
        #expect(properties(["$defs", "step"]) == ScenarioKeys.trigger.union(action.keys))
    }
}
