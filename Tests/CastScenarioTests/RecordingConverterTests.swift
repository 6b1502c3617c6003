import CastDevice
import CastScenario
import CastSimulatorTesting
import CastWire
import Foundation
import Testing

/// Records a run of `script` on an embedded device (the runtime's recorder, under the
/// manual clock) and reads the file back.
func recordRun(_ scenario: Scenario, _ script: (EmbeddedCastSimulator) throws -> Void) throws -> Recording {
    try Recording.read(Data(try recordedText(scenario, script).utf8))
}

/// The text of the file a run of `script` on an embedded device records.
func recordedText(_ scenario: Scenario, _ script: (EmbeddedCastSimulator) throws -> Void) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("castsim-\(UUID().uuidString).jsonl").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let device = EmbeddedCastSimulator(scenario: scenario)
    try device.startRecording(to: path)
    try script(device)
    device.stop()
    return String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
}

@Suite("From a recording to a scenario: steps, rules and expectations")
struct RecordingConverterTests {
    static let scenario = """
    {"name": "movie night", "clock": {"mode": "manual"},
     "device": {"name": "Den TV", "heartbeatInterval": "0s", "idleTimeout": "0s"},
     "media": {"http://m.test/movie.mp4": {"duration": "1h"}},
     "timeline": [{"name": "stall", "after": {"event": "LOAD", "delay": "30s"}, "buffering": "2s"}]}
    """

    /// The sender's part: launch, load, wait, play, volume.
    static func movieNight(_ device: EmbeddedCastSimulator, advancing: Bool = true, contentId: String = "http://m.test/movie.mp4") throws
        -> [SenderMessage]
    {
        let sender = device.connectSender()
        let transport = try #require(sender.launch())
        sender.request(CastNamespace.media, to: transport, ["type": "LOAD", "media": ["contentId": .string(contentId)]])
        if advancing { device.advanceClock(by: 10) }
        try device.act(["remote": "pause"])
        if advancing { device.advanceClock(by: 50) }
        sender.request(CastNamespace.media, to: transport, ["type": "PLAY", "mediaSessionId": 1])
        sender.request(CastNamespace.receiver, to: CastEndpoint.platformReceiver, ["type": "SET_VOLUME", "volume": ["level": 0.3]])
        if advancing { device.advanceClock(by: 5) }
        sender.close()
        return sender.received
    }

    @Test("castsim's own recording: its scenario, the operator's input and the clock's moves as steps; no rules; sequence expectations")
    func selfRecording() throws {
        let scenario = try ScenarioText.parse(Self.scenario)
        let recording = try recordRun(scenario) { _ = try Self.movieNight($0) }
        #expect(recording.header.scenario?["name"] == "movie night")
        #expect(recording.header.clock == .manual)
        let result = try RecordingConverter.convert(recording)
        #expect(result.warnings == [])
        #expect(result.rulesAdded == 0, "castsim answers as castsim did")
        let json = result.scenario
        #expect(json["device"]?["name"] == "Den TV")
        #expect(json["clock"] == ["mode": "manual"])
        let steps = json["timeline"]?.arrayValue ?? []
        #expect(steps.first?["name"] == "stall", "the scenario's own steps stay")
        // The operator paused 10 s after the LOAD; the clock moved 10 s then 50 s after it, and 5 s after SET_VOLUME.
        #expect(steps.contains { $0["remote"] == "pause" && $0["after"] == ["event": "LOAD", "occurrence": 1, "delay": "10s"] })
        #expect(steps.contains { $0["advance"] == "10s" && $0["after"] == ["event": "LOAD", "occurrence": 1] })
        #expect(steps.contains { $0["advance"] == "50s" && $0["after"] == ["event": "LOAD", "occurrence": 1, "delay": "10s"] })
        #expect(steps.contains { $0["advance"] == "5s" && $0["after"] == ["event": "SET_VOLUME", "occurrence": 1] })
        let expectations = json["expectations"]?.arrayValue ?? []
        #expect(expectations.count == 1)
        let sequence = expectations.first?["sequence"]?.arrayValue ?? []
        #expect(sequence.map { $0["type"]?.stringValue ?? "" } == ["CONNECT", "LAUNCH", "CONNECT", "LOAD", "PLAY", "SET_VOLUME"])
        #expect(sequence[3]["fields"] == ["media.contentId": "http://m.test/movie.mp4"])
        #expect(sequence[5]["fields"] == ["volume.level": 0.3])
        #expect(expectations.first?["within"] == nil, "a manual clock has no wall-clock window")

        // The text a person reads: name first, durations as text, and it parses.
        let text = result.text
        #expect(text.hasPrefix("{\n  \"name\": \"replay of movie night recorded "))
        _ = try Scenario.parse(Data(text.utf8))
    }

    @Test("A household step the operator did (a session moved away) is in the recording but not in the one device's scenario")
    func householdInputNotReplayed() throws {
        let scenario = try ScenarioText.parse(Self.scenario)
        var recording = try recordRun(scenario) { _ = try Self.movieNight($0) }
        let last = try #require(recording.events.last)
        recording.events.append(RecordedEvent(time: last.time, wall: last.wall, kind: .input(["transferSession": "Bedroom"])))
        let result = try RecordingConverter.convert(recording)
        let steps = result.scenario["timeline"]?.arrayValue ?? []
        #expect(!steps.contains { $0["transferSession"] != nil } && steps.contains { $0["remote"] == "pause" })
        _ = try Scenario.parse(Data(result.text.utf8))
    }

    @Test("Replaying castsim's own recording gives the sender the same bytes and passes its expectations")
    func selfReplay() throws {
        let scenario = try ScenarioText.parse(Self.scenario)
        var original: [SenderMessage] = []
        let recording = try recordRun(scenario) { original = try Self.movieNight($0) }
        let converted = try Scenario.parse(RecordingConverter.convert(recording).scenario)
        let replay = EmbeddedCastSimulator(scenario: converted)
        // The steps move the clock and pause: the sender only does its part.
        let sender = replay.connectSender()
        let transport = try #require(sender.launch())
        sender.request(CastNamespace.media, to: transport, ["type": "LOAD", "media": ["contentId": "http://m.test/movie.mp4"]])
        sender.request(CastNamespace.media, to: transport, ["type": "PLAY", "mediaSessionId": 1])
        sender.request(CastNamespace.receiver, to: CastEndpoint.platformReceiver, ["type": "SET_VOLUME", "volume": ["level": 0.3]])
        sender.close()
        #expect(sender.received.map(\.envelope) == original.map(\.envelope))
        #expect(replay.report.passed)
        replay.stop()
    }

    /// A recording of a device that differs from castsim: made from castsim's own by
    /// moving, adding and removing what the device sent.
    static func quirkyRecording() throws -> Recording {
        var device = DeviceConfiguration(identity: try DeviceIdentity(uuid: "aaaabbbbccccddddeeeeffff00001111", friendlyName: "Quirky"))
        device.heartbeatInterval = nil
        let plain = Scenario.plain(device)
        var recording = try recordRun(plain) { device in
            let sender = device.connectSender()
            let transport = try #require(sender.launch())
            sender.request(CastNamespace.media, to: transport, ["type": "LOAD", "media": ["contentId": "http://m.test/a.mp4", "duration": 60]])
            device.advanceClock(by: 3)
            sender.request(CastNamespace.media, to: transport, ["type": "PAUSE", "mediaSessionId": 1])
            sender.request(CastNamespace.receiver, to: CastEndpoint.platformReceiver, ["type": "GET_STATUS"])
            device.advanceClock(by: 10)
        }
        recording.header.scenario = nil
        recording.header.source = .relay
        recording.header.upstream = "192.168.1.20:8009"
        var events = recording.events
        func isOut(_ event: RecordedEvent, _ type: String) -> Bool {
            if case .message(let m) = event.kind { m.direction == .outbound && m.type == type } else { false }
        }
        func isIn(_ event: RecordedEvent, _ type: String) -> Bool {
            if case .message(let m) = event.kind { m.direction == .inbound && m.type == type } else { false }
        }
        events.removeAll { if case .clock = $0.kind { true } else { false } }
        // The LOAD is answered 2 s late (both statuses: the IDLE one and the PLAYING answer).
        let load = try #require(events.firstIndex { isIn($0, "LOAD") })
        var answers: [RecordedEvent] = []
        while let answer = events[load...].firstIndex(where: { isOut($0, "MEDIA_STATUS") }), events[answer].time == events[load].time {
            var moved = events.remove(at: answer)
            moved.time = events[load].time + 2
            answers.append(moved)
        }
        #expect(answers.count == 2)
        let pause = try #require(events.firstIndex { isIn($0, "PAUSE") })
        events.insert(contentsOf: answers, at: pause)
        // 3 s after the last request, the remote sets the volume: a status nobody asked for.
        let pauseTime = events[pause + answers.count].time
        let volume = RecordedEvent(time: pauseTime + 3, wall: 0, kind: .message(RecordedMessage(
            direction: .outbound, connections: [ConnectionID(1)], envelope: CastEnvelope(
                sourceId: "receiver-0", destinationId: "*", namespace: CastNamespace.receiver,
                payload: .string(#"{"requestId":0,"status":{"volume":{"level":0.3,"muted":false}},"type":"RECEIVER_STATUS"}"#)))))
        // 5 s after it, the device drops the connection.
        let drop = RecordedEvent(time: pauseTime + 8, wall: 0, kind: .disconnected(ConnectionID(1), how: .device))
        events.removeAll { if case .disconnected = $0.kind { true } else { false } }
        events.append(contentsOf: [volume, drop])
        recording.events = events
        return recording
    }

    @Test("A device that differs: a late answer becomes a respond rule, an unsolicited status an emit step, a drop a closeConnection step")
    func quirks() throws {
        let recording = try Self.quirkyRecording()
        let result = try RecordingConverter.convert(recording)
        let json = result.scenario
        #expect(json["device"]?["name"] == "Quirky")
        #expect(json["device"]?["heartbeatInterval"] == "0s", "a real device's PINGs are in the recording")
        #expect(json["media"]?["http://m.test/a.mp4"]?["duration"] == "1m")
        let rules = json["rules"]?.arrayValue ?? []
        let load = try #require(rules.first { $0["match"]?["type"] == "LOAD" })
        #expect(load["action"] == "respond")
        #expect(load["occurrence"] == 1)
        let responses = load["respond"]?.arrayValue ?? []
        #expect(responses.count == 2)
        #expect(responses.allSatisfy { $0["after"] == "2s" && $0["payload"]?["type"] == "MEDIA_STATUS" && $0["sender"] == "*" })
        #expect(responses.first?["payload"]?["requestId"] == 0, "a broadcast keeps its 0")
        #expect(responses.last?["payload"]?["requestId"] == "$requestId", "the request's own id is filled in when it comes")
        let steps = json["timeline"]?.arrayValue ?? []
        let emit = try #require(steps.first { $0["emit"] != nil })
        #expect(emit["after"] == ["event": "GET_STATUS", "occurrence": 1, "delay": "3s"])
        #expect(emit["emit"]?["payload"]?["status"]?["volume"]?["level"] == 0.3)
        #expect(emit["emit"]?["sender"] == "*" && emit["emit"]?["to"] == 1)
        let close = try #require(steps.first { $0["closeConnection"] != nil })
        #expect(close["closeConnection"] == ["which": 1, "mode": "clean"])
        #expect(close["after"] == ["event": "GET_STATUS", "occurrence": 1, "delay": "8s"])
        // castsim, never having loaded, would refuse the PAUSE: it is answered as recorded too.
        #expect(rules.map { $0["match"]?["type"] } == ["LOAD", "PAUSE"])

        // Replayed, the sender sees the recorded device: the late answer, the volume, the drop.
        let replay = EmbeddedCastSimulator(scenario: try Scenario.parse(json))
        let sender = replay.connectSender()
        let transport = try #require(sender.launch())
        // Another requestId than the recorded one (2): the answer carries the one sent now.
        let quick = sender.send(to: transport, CastNamespace.media,
                                ["type": "LOAD", "requestId": 42, "media": ["contentId": "http://m.test/a.mp4", "duration": 60]])
        #expect(quick.isEmpty, "no answer at once")
        replay.advanceClock(by: 1.9)
        #expect(sender.takeNew().isEmpty)
        replay.advanceClock(by: 0.1)
        let late = sender.takeNew()
        #expect(late.map(\.type) == ["MEDIA_STATUS", "MEDIA_STATUS"])
        #expect(late.map(\.requestId) == [0, 42], "the answer carries the replayed request's id")
        replay.advanceClock(by: 1)
        #expect(sender.request(CastNamespace.media, to: transport, ["type": "PAUSE", "mediaSessionId": 1])?.json["status"]?.arrayValue?.first?["playerState"] == "PAUSED")
        sender.request(CastNamespace.receiver, to: CastEndpoint.platformReceiver, ["type": "GET_STATUS"])
        sender.takeNew()
        replay.advanceClock(by: 3)
        #expect(sender.takeNew().first?.json["status"]?["volume"]?["level"] == 0.3)
        #expect(!sender.isClosed)
        replay.advanceClock(by: 5)
        #expect(sender.isClosed)
        replay.stop()
    }

    @Test("A recording started with a sender connected, and one whose connections are not numbered from 1, replay as recorded")
    func midRunAndRenumbered() throws {
        let scenario = try ScenarioText.parse(Self.scenario)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("castsim-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let device = EmbeddedCastSimulator(scenario: scenario)
        let sender = device.connectSender()
        let transport = try #require(sender.launch())
        try device.startRecording(to: path)
        sender.request(CastNamespace.media, to: transport, ["type": "LOAD", "media": ["contentId": "http://m.test/movie.mp4"]])
        device.advanceClock(by: 35)
        let late = device.connectSender()
        late.connect()
        late.request(CastNamespace.receiver, to: CastEndpoint.platformReceiver, ["type": "GET_STATUS"])
        device.stop()
        var recording = try Recording.read(try Data(contentsOf: URL(fileURLWithPath: path)))
        guard case .connected(let first, _)? = recording.events.first?.kind else {
            Issue.record("the connection open when recording started is recorded as opening: \(recording.events.first.map { "\($0.kind)" } ?? "none")")
            return
        }
        #expect(first == ConnectionID(1))
        // As if the device had been reset twice before: connections 3 and 4.
        recording = Recording(header: recording.header, events: recording.events.map { event in
            var event = event
            switch event.kind {
            case .message(var message):
                message.connections = ConnectionList(message.connections.map { ConnectionID($0.rawValue + 2) })
                event.kind = .message(message)
            case .connected(let id, let peer): event.kind = .connected(ConnectionID(id.rawValue + 2), peer: peer)
            case .disconnected(let id, let how): event.kind = .disconnected(ConnectionID(id.rawValue + 2), how: how)
            default: break
            }
            return event
        })
        let result = try RecordingConverter.convert(recording)
        #expect(result.warnings == [])
        // What the device did before the recording started is not in it: the LOAD to an app
        // castsim never launched is answered as recorded.
        #expect((result.scenario["rules"]?.arrayValue ?? []).contains { $0["match"]?["type"] == "LOAD" })
        let targets = (result.scenario["timeline"]?.arrayValue ?? []).compactMap { $0["emit"]?["to"] ?? $0["closeConnection"]?["which"] }
        #expect(targets.allSatisfy { ($0.intValue ?? 0) <= 2 }, "connections numbered from 1: \(targets)")
        #expect(result.scenario["expectations"]?.arrayValue?.map { $0["name"]?.stringValue ?? "" }
            == ["connection 1 sends what it sent", "connection 2 sends what it sent"])
    }

    @Test("Rules: `occurrence` picks the Nth match, `respond` answers with several messages at their delays")
    func occurrenceAndRespond() throws {
        let scenario = try ScenarioText.parse("""
        {"name": "r", "clock": {"mode": "manual"}, "device": {"heartbeatInterval": "0s"},
         "rules": [
           {"name": "second status", "match": {"namespace": "receiver", "type": "GET_STATUS"}, "occurrence": 2, "action": "respond",
            "respond": [{"payload": {"type": "RECEIVER_STATUS", "requestId": "$requestId", "status": {"n": 2}}},
                        {"after": "1.5s", "to": "all", "namespace": "urn:x-cast:com.example", "from": "app-1", "sender": "*",
                         "payload": {"type": "LATER", "requestId": 0}}]}
         ]}
        """)
        let device = EmbeddedCastSimulator(scenario: scenario)
        let sender = device.connectSender()
        let other = device.connectSender()
        sender.connect()
        let first = sender.request(CastNamespace.receiver, to: CastEndpoint.platformReceiver, ["type": "GET_STATUS"])
        #expect(first?.json["status"]?["n"] == nil, "the first is the device's own answer")
        let second = sender.request(CastNamespace.receiver, to: CastEndpoint.platformReceiver, ["type": "GET_STATUS"])
        #expect(second?.json["status"]?["n"] == 2, "answered with the request's requestId")
        #expect(second?.envelope.sourceId == "receiver-0" && second?.envelope.destinationId == "sender-0")
        other.takeNew()
        device.advanceClock(by: 1.5)
        for receiver in [sender, other] {
            let later = receiver.takeNew()
            #expect(later.map(\.type) == ["LATER"])
            #expect(later.first?.envelope.namespace == "urn:x-cast:com.example" && later.first?.envelope.sourceId == "app-1")
            #expect(later.first?.requestId == 0)
        }
        let third = sender.request(CastNamespace.receiver, to: CastEndpoint.platformReceiver, ["type": "GET_STATUS"])
        #expect(third?.json["status"]?["n"] == nil, "the third is the device's own again")
        device.stop()

        #expect(ScenarioText.issues("""
        {"name": "r", "rules": [{"match": {"type": "X"}, "action": "respond", "respond": [{"after": "soon", "payload": {"nope": 1}}]}]}
        """) == ["rules[0].respond[0].after: expected a duration like \"5s\", got \"soon\"",
                 "rules[0].respond[0].payload: expected an object with a \"type\""])
        #expect(ScenarioText.issues("""
        {"name": "r", "rules": [{"match": {"type": "X"}, "action": "drop", "occurrence": 0, "reply": {"type": "Y"}}]}
        """) == ["rules[0].occurrence: expected an integer >= 1, got 0", "rules[0].reply: goes with \"action\": \"reply\", not \"drop\""])
    }

    @Test("A recording that is not castsim's own conversion problem: refused with what is wrong")
    func refusals() throws {
        var recording = try recordRun(try ScenarioText.parse(Self.scenario)) { _ = try Self.movieNight($0) }
        recording.header.scenario = ["name": "broken", "timeline": "nope"]
        #expect(throws: RecordingConversionError.self) { try RecordingConverter.convert(recording) }
    }
}
