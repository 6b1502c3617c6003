import CastDevice
import CastScenario
import CastWire
import Foundation
import Testing

@Suite("Scenario files: parsing and validation")
struct ScenarioParsingTests {
    private func parse(_ text: String) throws(ScenarioValidationError) -> Scenario { try ScenarioText.parse(text) }
    private func issues(_ text: String) -> [String] { ScenarioText.issues(text) }

    @Test("Durations: ms, s, m, h and combinations; anything else is refused", arguments: [
        ("250ms", 0.25), ("5s", 5), ("1h30m", 5400), ("1.5s", 1.5), ("2m", 120), ("1h", 3600), ("1m0.5s", 60.5),
    ])
    func durations(text: String, seconds: Double) {
        #expect(ScenarioDuration.parse(text) == seconds)
    }

    @Test("Not durations", arguments: ["5 sec", "5", "", "s", "1m1h", "5s5s", "-1s", "1.2.3s", "5S", "1d"])
    func notDurations(text: String) {
        #expect(ScenarioDuration.parse(text) == nil)
    }

    @Test("A complete file parses into the model")
    func completeFile() throws {
        let scenario = try parse("""
        {
          "name": "everything",
          "description": "one of each",
          "device": {"name": "Den TV", "model": "Chromecast Ultra", "uuid": "0123456789abcdef0123456789abcdef",
                     "capabilities": {"video": true, "audio": true}, "volume": {"level": 0.25, "muted": true},
                     "apps": [{"appId": "ABCD1234", "displayName": "My App", "namespaces": ["urn:x-cast:com.example"], "behaviour": "custom"}],
                     "heartbeatInterval": "0s", "idleTimeout": "2m", "playbackRateRange": [0.25, 3]},
          "clock": {"mode": "scaled", "speed": 10},
          "media": {
            "http://media.test/movie.mp4": {"duration": "1h30m", "contentType": "video/mp4",
               "load": {"delay": "500ms", "buffering": [{"at": "10s", "for": "3s"}]}},
            "http://media.test/broken/*": {"load": {"fail": {"detailedErrorCode": 104}}}
          },
          "timeline": [
            {"at": "5s", "volume": {"level": 0.5}},
            {"after": {"event": "LOAD", "delay": "2s"}, "buffering": "3s"},
            {"after": {"event": "sessionStarted", "occurrence": 2}, "closeConnection": {"which": "last", "mode": "reset"}}
          ],
          "rules": [{"name": "fail seeks", "match": {"namespace": "media", "type": "SEEK"}, "action": "reply",
                     "reply": {"type": "INVALID_PLAYER_STATE"}, "times": 1}],
          "expectations": [
            {"name": "loads", "message": {"type": "LOAD", "fields": {"media.contentId": {"$regex": "movie"}}}, "within": "30s"},
            {"name": "never stops", "never": {"namespace": "receiver", "type": "STOP"}}
          ]
        }
        """)
        #expect(scenario.name == "everything")
        #expect(scenario.device.identity.friendlyName == "Den TV" && scenario.device.identity.modelName == "Chromecast Ultra")
        #expect(scenario.device.initialVolume == 0.25 && scenario.device.initiallyMuted)
        #expect(scenario.device.heartbeatInterval == nil && scenario.device.idleTimeout == 120)
        #expect(scenario.device.playbackRateRange == 0.25...3)
        #expect(scenario.device.app(withId: "ABCD1234")?.namespaces == ["urn:x-cast:com.example"])
        #expect(scenario.clock == .scaled(10))
        #expect(scenario.timeline.map(\.trigger) == [
            .at(5), .after(event: .message("LOAD"), delay: 2, occurrence: 1), .after(event: .sessionStarted, delay: 0, occurrence: 2),
        ])
        #expect(scenario.timeline[2].action == .closeConnection(.last, reset: true))
        #expect(scenario.rules[0].times == 1 && scenario.rules[0].pattern.namespace == CastNamespace.media)
        #expect(scenario.expectations.map(\.within) == [30, nil])
        let movie = scenario.device.mediaCatalog.behaviour(for: "http://media.test/movie.mp4")
        #expect(movie.duration == 5400 && movie.loadDelay == 0.5 && movie.bufferingPhases == [.init(position: 10, duration: 3)])
        let broken = scenario.device.mediaCatalog.behaviour(for: "http://media.test/broken/a.mp4")
        #expect(broken.outcome == .fail(detailedErrorCode: 104, reason: nil))
        #expect(scenario.device.mediaCatalog.behaviour(for: "other") == MediaLoadBehaviour())
    }

    @Test("deviceAuth: the device's mode at start, and a step that switches it")
    func deviceAuth() throws {
        let scenario = try parse(#"""
            {"name": "x", "device": {"deviceAuth": "self-signed"}, "timeline": [{"at": "5s", "deviceAuth": "ignore"}]}
            """#)
        #expect(scenario.device.deviceAuth == .selfSigned)
        #expect(scenario.timeline.first?.action == .device(.setDeviceAuth(.ignore)))
        #expect(try parse(#"{"name": "x"}"#).device.deviceAuth == .devRoot)
    }

    @Test("withdraw and restore: the device leaves discovery and comes back, maybe elsewhere")
    func advertisement() throws {
        let scenario = try parse(#"""
            {"name": "x", "timeline": [{"at": "5s", "withdraw": true}, {"at": "10s", "restore": true},
                                       {"at": "20s", "restore": {"host": "127.0.0.7", "port": 8010}}]}
            """#)
        #expect(scenario.timeline.map(\.action) == [
            .device(.advertise(.withdraw)), .device(.advertise(.restore(host: nil, port: nil))),
            .device(.advertise(.restore(host: "127.0.0.7", port: 8010))),
        ])
        // An address to listen on, checked as the file is read, not when the step comes.
        #expect(issues(#"{"name": "x", "timeline": [{"at": "1s", "restore": {"host": "not a host"}}, {"at": "2s", "restore": {"host": "::1"}}]}"#)
            == [#"timeline[0].restore.host: expected an IP address of this machine to listen on, got "not a host""#])
    }

    @Test("Bad files: each problem is reported with its JSON path and what was expected", arguments: [
        (#"{"name": "x", "timeline": [{"after": {"event": "LOAD", "delay": "5 sec"}, "buffering": "1s"}]}"#,
         #"timeline[0].after.delay: expected a duration like "5s", got "5 sec""#),
        (#"{"timeline": []}"#, "name: missing; expected the scenario's name"),
        (#"{"name": "x", "colour": "red"}"#,
         "colour: unknown key; expected one of clock, description, device, devices, expectations, exposure, groups, homeAssistantCast, media, mirroring, name, rules, timeline"),
        (#"{"name": "x", "device": {"uuid": "1234"}}"#, #"device.uuid: expected 32 hex digits, with or without dashes (8-4-4-4-12), got "1234""#),
        (#"{"name": "x", "device": {"volume": {"level": 3}}}"#, "device.volume.level: expected a number from 0 to 1, got 3"),
        (#"{"name": "x", "device": {"apps": [{"displayName": "y"}]}}"#, #"device.apps[0].appId: missing; expected the app id, e.g. "CC1AD845""#),
        (#"{"name": "x", "device": {"apps": [{"appId": "A", "behaviour": "netflix"}]}}"#,
         #"device.apps[0].behaviour: expected one of "defaultMediaReceiver", "custom", "idleScreen", "emp", "dashCast", "homeAssistantCast", "youTube", "musicAssistant", "yleAreena", "mirroring", got "netflix""#),
        (#"{"name": "x", "clock": {"mode": "scaled"}}"#, "clock.speed: missing; expected how many times faster than real time"),
        (#"{"name": "x", "clock": {"mode": "warp"}}"#, #"clock.mode: expected one of "real", "scaled", "manual", got "warp""#),
        (#"{"name": "x", "media": {"a.mp4": {"duration": 90}}}"#, #"media["a.mp4"].duration: expected a duration like "5s" (more than 0), got a number (90)"#),
        (#"{"name": "x", "media": {"a.mp4": {"load": {"buffering": [{"at": "1s"}]}}}}"#,
         #"media["a.mp4"].load.buffering[0].for: missing; expected how long, e.g. "3s""#),
        (#"{"name": "x", "media": {"a.mp4": {"tracks": [{"trackId": 1, "type": "SUBTITLE"}]}}}"#,
         #"media["a.mp4"].tracks[0].type: expected TEXT, AUDIO or VIDEO, got "SUBTITLE""#),
        (#"{"name": "x", "timeline": [{"at": "1s"}]}"#,
         "timeline[0]: no action; expected one of emit, volume, buffering, playerError, adBreak, stopApp, launchApp, standby, activeInput, remote, closeConnection, stopHeartbeats, unresponsive, delayReplies, sendFrame, advance, deviceAuth, withdraw, restore, offline, online, leadGroup, createGroup, deleteGroup, transferSession, emp, mirroring"),
        (#"{"name": "x", "timeline": [{"at": "1s", "withdraw": false}]}"#, "timeline[0].withdraw: expected true"),
        (#"{"name": "x", "timeline": [{"at": "1s", "restore": {"port": 70000}}]}"#,
         "timeline[0].restore.port: expected an integer from 1 to 65535, got 70000"),
        (#"{"name": "x", "timeline": [{"at": "1s", "restore": {}}]}"#, "timeline[0].restore: expected host and/or port (or true)"),
        (#"{"name": "x", "timeline": [{"at": "1s", "restore": "now"}]}"#,
         #"timeline[0].restore: expected true, or {"host": ..., "port": ...} to come back elsewhere"#),
        (#"{"name": "x", "device": {"deviceAuth": "google"}}"#,
         #"device.deviceAuth: expected one of "dev-root", "self-signed", "error", "ignore", got "google""#),
        (#"{"name": "x", "timeline": [{"at": "1s", "deviceAuth": true}]}"#,
         #"timeline[0].deviceAuth: expected one of "dev-root", "self-signed", "error", "ignore", got a boolean (true)"#),
        (#"{"name": "x", "timeline": [{"at": "1s", "standby": true, "stopApp": true}]}"#,
         "timeline[0]: has 2 actions (stopApp, standby); one step does one thing"),
        (#"{"name": "x", "timeline": [{"after": {"event": "loaded"}, "standby": true}]}"#,
         #"timeline[0].after.event: expected a message type such as "LOAD" or one of appLaunched, appStopped, connected, disconnected, itemChanged, sessionEnded, sessionStarted, got "loaded""#),
        (#"{"name": "x", "timeline": [{"at": "1s", "advance": "1m"}]}"#, #"timeline[0].advance: advance needs "clock": {"mode": "manual"}"#),
        (#"{"name": "x", "timeline": [{"at": "1s", "after": {"event": "LOAD"}, "standby": true}]}"#,
         #"timeline[0]: has both "at" and "after"; a step fires at a time or after an event, not both"#),
        (#"{"name": "x", "timeline": [{"emit": {"namespace": "media", "payload": {"status": []}}}]}"#,
         #"timeline[0].emit.payload: expected an object with a "type" (senders index data["type"])"#),
        (#"{"name": "x", "timeline": [{"closeConnection": {"mode": "slam"}}]}"#,
         #"timeline[0].closeConnection.mode: expected one of "clean", "reset", got "slam""#),
        (#"{"name": "x", "rules": [{"match": {"type": "LOAD"}, "action": "reply"}]}"#,
         "rules[0].reply: missing; expected the JSON object to answer with"),
        (#"{"name": "x", "rules": [{"match": {"type": "LOAD", "fields": {"a": {"$near": 1}}}, "action": "drop"}]}"#,
         "rules[0].match.fields.a: unknown operator $near; expected one of $eq, $ne, $exists, $regex, $contains, $gt, $gte, $lt, $lte, $in"),
        (#"{"name": "x", "rules": [{"match": {"namespace": "mediaa"}, "action": "drop"}]}"#,
         #"rules[0].match.namespace: expected "urn:x-cast:..." or one of connection, deviceauth, emp, heartbeat, media, receiver, remoting, webrtc, got "mediaa""#),
        (#"{"name": "x", "rules": [{"match": {}, "action": "drop", "times": 0}]}"#, "rules[0].times: expected an integer >= 1, got 0"),
        (#"{"name": "x", "expectations": [{"name": "a", "message": {"type": "LOAD"}, "never": {"type": "STOP"}}]}"#,
         "expectations[0]: has message and never; expected exactly one"),
        (#"{"name": "x", "expectations": [{"name": "a", "sequence": []}]}"#, "expectations[0].sequence: expected at least one pattern"),
        (#"{"name": "x", "expectations": [{"name": "a", "message": {}}, {"name": "a", "message": {}}]}"#,
         #"expectations[1].name: "a" names another expectation too"#),
        (#"{"name": "x", "expectations": [{"name": "a", "message": {"type": "LOAD"}, "within": "soon"}]}"#,
         #"expectations[0].within: expected a duration like "5s" (more than 0), got "soon""#),
        (#"{"name": "x", "expectations": [{"name": "a", "streaming": {"frames": {"$gte": 100}}}]}"#,
         "expectations[0].streaming.frames: unknown key; expected one of ackLatencyP50, ackLatencyP99, bitsPerSecond, bytesReceived, checkpointLag, codec, duplicatePackets, framesDropped, framesPerSecond, framesReceived, height, index, keyFrames, kind, packetsLost, packetsReceived, packetsRecovered, pictureLossIndications, receiverSsrc, senderSsrc, targetDelay, width"),
        (#"{"name": "x", "expectations": [{"name": "a", "streaming": {}}]}"#,
         #"expectations[0].streaming: expected at least one of a stream's figures, e.g. {"kind": "video", "framesReceived": {"$gte": 100}}"#),
        (#"{"name": "x", "expectations": [{"name": "a", "streaming": {"$gte": 1}}]}"#, "expectations[0].streaming.$gte: unknown key; expected one of ackLatencyP50, ackLatencyP99, bitsPerSecond, bytesReceived, checkpointLag, codec, duplicatePackets, framesDropped, framesPerSecond, framesReceived, height, index, keyFrames, kind, packetsLost, packetsReceived, packetsRecovered, pictureLossIndications, receiverSsrc, senderSsrc, targetDelay, width"),
        (#"{"name": "x", "expectations": [{"name": "a", "streaming": {"framesReceived": {"$gte": "many"}}}]}"#, #"expectations[0].streaming.framesReceived.$gte: expected a number, got "many""#),
        ("[1, 2]", "expected an object, got an array"),
        (#"{"name": "x""#, "not valid JSON"),
        // The second timeline would have dropped the first's steps without a word.
        ("{\"name\": \"x\",\n \"timeline\": [{\"at\": \"1s\", \"standby\": true}],\n \"timeline\": []}",
         #"not valid JSON at line 3, column 2: "timeline" is given twice in one object"#),
    ])
    func badFiles(text: String, expected: String) {
        let found = issues(text)
        #expect(found.contains { $0 == expected || ($0.hasPrefix(expected) && expected == "not valid JSON") }, "got \(found)")
    }

    @Test("A pattern's field paths: names between dots and [N] indices; anything else is refused where it is")
    func fieldPaths() {
        func found(_ path: String) -> [String] {
            issues(#"{"name": "x", "rules": [{"match": {"type": "LOAD", "fields": {\#(JSONValue.string(path).jsonText()): 1}}, "action": "drop"}]}"#)
        }
        for good in ["media.contentId", "items[0].media.contentId", "items[2][1]", "[0].a", "queueData.items[10]"] {
            #expect(found(good) == [], "\(good)")
        }
        let expected = "expected member names between dots, each maybe followed by [N] indices from 0, e.g. items[0].media.contentId"
        for (bad, problem) in [("", "an empty path; \(expected)"), ("a..b", #""a..b" has an empty member name; \#(expected)"#),
                               ("items[", #""items[": \#(expected)"#), ("items[-1].a", #""items[-1].a": \#(expected)"#),
                               ("items[x]", #""items[x]": \#(expected)"#), ("a]", #""a]": \#(expected)"#),
                               ("items[0]b", #""items[0]b": \#(expected)"#), (".a", #"".a" has an empty member name; \#(expected)"#)] {
            let problems = found(bad)
            #expect(problems.count == 1 && problems[0].hasPrefix("rules[0].match.fields") && problems[0].hasSuffix(": " + problem), "\(bad): \(problems)")
        }
    }

    @Test("A misspelt key of a stream's figures is one problem, not one from each check")
    func oneProblemPerKey() {
        let found = issues(#"{"name": "x", "expectations": [{"name": "a", "streaming": {"framesRecieved": {"$gte": 1}}}]}"#)
        #expect(found.count == 1 && found[0].hasPrefix("expectations[0].streaming.framesRecieved: unknown key"), "\(found)")
    }

    @Test("A catalog key with \": \" in it is no separator: the problem is reported at its own path")
    func keyWithColon() {
        let found = issues(#"{"name": "x", "media": {"http://a.test/x: y.mp4": {"tracks": [{"trackId": 1, "type": "SUBTITLE"}]}}}"#)
        #expect(found == [#"media["http://a.test/x: y.mp4"].tracks[0].type: expected TEXT, AUDIO or VIDEO, got "SUBTITLE""#])
        do {
            _ = try parse(#"{"name": "x", "media": {"a: b": {"duration": "soon"}}}"#)
        } catch {
            #expect(error.issues.first?.path == #"media["a: b"].duration"#)
            #expect(error.issues.first?.message == #"expected a duration like "5s" (more than 0), got "soon""#)
        }
    }

    @Test("Every problem in a file is reported at once, in file order")
    func allErrorsAtOnce() {
        let found = issues(#"""
        {"name": "",
         "device": {"volume": {"level": -1}},
         "timeline": [{"at": "soon", "buffering": "2 s"}, {"at": "1s", "remote": "rewind"}],
         "expectations": [{"message": {"type": 5}}]}
        """#)
        #expect(found == [
            #"name: expected a non-empty string, got """#,
            "device.volume.level: expected a number from 0 to 1, got -1",
            #"timeline[0].at: expected a duration like "5s", got "soon""#,
            #"timeline[0].buffering: expected a duration like "5s" (more than 0), got "2 s""#,
            #"timeline[1].remote: expected one of "play", "pause", "stop", "next", "previous", got "rewind""#,
            "expectations[0].name: missing; expected a name for the report",
            "expectations[0].message.type: expected a non-empty string, got a number (5)",
        ])
    }

    @Test("The shipped scenarios/scenario.schema.json is the one `castsim schema` prints (the grammar and the apps' parts)")
    func schemaFileMatches() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../scenarios/scenario.schema.json")
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text == ScenarioSchema.json, "scenarios/scenario.schema.json is stale: run `swift run castsim schema > scenarios/scenario.schema.json`")
        let schema = try JSONValue.parse(Data(text.utf8), limits: .document)
        // A streaming expectation's keys are the figures castsim has, no more, no fewer.
        #expect(Set(schema["$defs"]?["streamingCondition"]?["properties"]?.objectValue?.keys.map { $0 } ?? []) == StreamingCondition.keys)
        #expect(schema["$defs"]?["step"]?["properties"]?["remote"] != nil)
        #expect(schema["$defs"]?["step"]?["oneOf"]?.arrayValue?.count == ScenarioKeys.actions.count)
    }

    @Test("Every example scenario in scenarios/ is valid")
    func examplesAreValid() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../scenarios")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".json") && $0 != "scenario.schema.json" }
        #expect(files.count >= 8)
        for file in files {
            #expect(throws: Never.self, "\(file)") { try FleetScenario.load(contentsOf: folder.appendingPathComponent(file)) }
        }
    }
}
