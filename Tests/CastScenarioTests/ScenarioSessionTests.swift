import CastDevice
import CastScenario
import CastWire
import CastSimulatorTesting
import Foundation
import Testing

@Suite("Scenario sessions: timeline, rules, faults, expectations")
struct ScenarioSessionTests {
    @Test("Absolute steps fire at their time; `after` steps a delay after the Nth event")
    func timeline() throws {
        var harness = try CastTestDevice(scenarioJSON: """
        {"name": "t", "device": {"heartbeatInterval": "0s", "idleTimeout": "0s"},
         "timeline": [
           {"at": "10s", "volume": {"level": 0.2}},
           {"after": {"event": "LOAD", "delay": "5s"}, "buffering": "2s"},
           {"after": {"event": "sessionStarted", "occurrence": 2}, "remote": "pause"}
         ]}
        """)
        let (connection, transport) = harness.launch()
        harness.advance(9.9)
        #expect(harness.snapshot.volume.level == 1)
        harness.advance(0.1)
        #expect(harness.snapshot.volume.level == 0.2)
        let mark = harness.outputs.count
        harness.send(connection, to: transport, CastNamespace.media, ["type": "LOAD", "requestId": 2, "media": ["contentId": "a.mp4"]])
        harness.advance(4.9)
        #expect(harness.snapshot.media?.playerState == .playing)
        harness.advance(0.1)
        #expect(harness.snapshot.media?.playerState == .buffering)
        harness.advance(2)
        #expect(harness.snapshot.media?.playerState == .playing)
        #expect(harness.sent(since: mark).compactMap { $0.json["status"]?.arrayValue?.first?["playerState"]?.stringValue }
            == ["IDLE", "PLAYING", "BUFFERING", "PLAYING"])
        // The second session starts: the pause step fires.
        harness.send(connection, to: transport, CastNamespace.media, ["type": "LOAD", "requestId": 3, "media": ["contentId": "b.mp4"]])
        #expect(harness.snapshot.media?.playerState == .paused)
        #expect(harness.session.isComplete)
    }

    @Test("Hours of scenario time in milliseconds: a manual clock, `advance` steps, a 3-hour live stream")
    func manualHours() throws {
        var harness = try CastTestDevice(scenarioJSON: """
        {"name": "long", "clock": {"mode": "manual"}, "device": {"idleTimeout": "0s"},
         "media": {"http://live.test/*": {"streamType": "LIVE"}},
         "timeline": [
           {"after": {"event": "sessionStarted"}, "advance": "3h"},
           {"at": "2h", "volume": {"level": 0.5}}
         ],
         "expectations": [{"name": "status asked late", "message": {"type": "GET_STATUS", "namespace": "media"}, "within": "4h"}]}
        """)
        let started = ContinuousClock.now
        let (connection, transport) = harness.launch()
        harness.send(connection, to: transport, CastNamespace.media, ["type": "LOAD", "requestId": 2, "media": ["contentId": "http://live.test/tv"]])
        // The advance step moved the clock itself, firing the 2 h step on the way. Heartbeats
        // are the connection's, on the real clock: three hours of scenario time send no PING.
        #expect(harness.outputs.contains(.clockAdvanced(to: SimTime(seconds: 10800))))
        #expect(harness.session.now == SimTime(seconds: 10800))
        #expect(harness.snapshot.volume.level == 0.5)
        #expect(harness.sent().filter { $0.json["type"] == "PING" }.isEmpty)
        #expect(harness.closed.isEmpty)
        harness.now = harness.session.now
        let session = try #require(harness.snapshot.media)
        #expect(session.liveSeekableRange?.upperBound == Double(1800 + 10800))
        harness.send(connection, to: transport, CastNamespace.media, ["type": "GET_STATUS", "requestId": 3])
        #expect(harness.expectation("status asked late")?.passed == true)
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test("Rules: reply instead, reply as well, delay, drop, only the first N times")
    func rules() throws {
        var harness = try CastTestDevice(scenarioJSON: """
        {"name": "r", "device": {"heartbeatInterval": "0s"},
         "rules": [
           {"name": "no seeking", "match": {"namespace": "media", "type": "SEEK"}, "action": "reply",
            "reply": {"type": "INVALID_PLAYER_STATE"}},
           {"name": "echo", "match": {"type": "SET_VOLUME", "fields": {"volume.level": {"$gte": 0.9}}}, "action": "replyAlso",
            "reply": {"type": "CUSTOM_NOTE", "note": "loud"}},
           {"name": "slow pause", "match": {"type": "PAUSE"}, "action": "delay", "delay": "3s", "times": 1},
           {"name": "ignore stop", "match": {"type": "STOP", "namespace": "media"}, "action": "drop"}
         ]}
        """)
        let (connection, transport) = harness.launch()
        harness.send(connection, to: transport, CastNamespace.media, ["type": "LOAD", "requestId": 2, "media": ["contentId": "a.mp4"]])
        var mark = harness.outputs.count
        harness.send(connection, to: transport, CastNamespace.media, ["type": "SEEK", "currentTime": 5, "requestId": 3])
        #expect(harness.sent(since: mark).map(\.json) == [["type": "INVALID_PLAYER_STATE", "requestId": 3]])
        #expect(harness.sent(since: mark).first?.envelope.sourceId == transport)

        mark = harness.outputs.count
        harness.send(connection, CastNamespace.receiver, ["type": "SET_VOLUME", "volume": ["level": 0.95], "requestId": 4])
        let both = harness.sent(since: mark)
        // The device's answer (with DEVICE_UPDATED about itself on the multizone namespace), then the rule's.
        #expect(both.map { $0.json["type"] } == ["RECEIVER_STATUS", "DEVICE_UPDATED", "CUSTOM_NOTE"])
        #expect(both[2].json == ["type": "CUSTOM_NOTE", "note": "loud", "requestId": 4])

        mark = harness.outputs.count
        harness.send(connection, to: transport, CastNamespace.media, ["type": "PAUSE", "requestId": 5])
        #expect(harness.sent(since: mark).isEmpty)
        harness.advance(3)
        #expect(harness.sent(since: mark).first?.json["requestId"] == 5)
        // Only once: the second PAUSE is answered at once.
        mark = harness.outputs.count
        harness.send(connection, to: transport, CastNamespace.media, ["type": "PAUSE", "requestId": 6])
        #expect(harness.sent(since: mark).first?.json["requestId"] == 6)

        mark = harness.outputs.count
        harness.send(connection, to: transport, CastNamespace.media, ["type": "STOP", "requestId": 7])
        #expect(harness.sent(since: mark).isEmpty)
        #expect(harness.snapshot.media != nil)
    }

    @Test("Faults: heartbeats stop, the device stops answering, replies come late, connections close, bad frames go out")
    func faults() throws {
        var harness = try CastTestDevice(scenarioJSON: """
        {"name": "f", "device": {"idleTimeout": "0s"},
         "timeline": [
           {"at": "1s", "stopHeartbeats": "10s"},
           {"at": "20s", "unresponsive": "5s"},
           {"at": "30s", "delayReplies": {"by": "2s", "for": "10s"}},
           {"at": "50s", "sendFrame": {"kind": "oversized"}},
           {"at": "51s", "closeConnection": {"which": "first", "mode": "reset"}}
         ]}
        """)
        let first = harness.open(1)
        let second = harness.open(2)
        harness.send(first, CastNamespace.connection, ["type": "CONNECT"])
        harness.advance(1)
        var mark = harness.outputs.count
        harness.send(first, CastNamespace.heartbeat, ["type": "PING"])
        harness.advance(9.9)
        #expect(harness.sent(since: mark).isEmpty, "no PONG and no PING while heartbeats are stopped")
        harness.advance(0.1)
        mark = harness.outputs.count
        harness.send(first, CastNamespace.heartbeat, ["type": "PING"])
        #expect(harness.sent(since: mark).map(\.json) == [["type": "PONG"]])

        harness.advance(9)  // t = 20
        mark = harness.outputs.count
        harness.send(first, CastNamespace.receiver, ["type": "GET_STATUS", "requestId": 1])
        harness.advance(4.9)
        #expect(harness.sent(since: mark).isEmpty)
        harness.advance(5.1)  // t = 30
        mark = harness.outputs.count
        harness.send(first, CastNamespace.receiver, ["type": "GET_STATUS", "requestId": 2])
        #expect(harness.sent(since: mark).isEmpty)
        harness.advance(2)
        // The PING due at 30 s is held back with the reply.
        #expect(harness.sent(since: mark).filter { $0.type != "PING" }.map { $0.json["requestId"] } == [2])

        harness.advance(18)  // t = 50
        #expect(harness.outputs.contains(.sendRawFrame(second, .oversized)))
        harness.advance(1)
        #expect(harness.outputs.contains(.closeConnection(first, reset: true)))
        #expect(harness.session.isComplete)
    }

    @Test("emit: any message, broadcast from the app or to one sender")
    func emit() throws {
        var harness = try CastTestDevice(scenarioJSON: """
        {"name": "e", "device": {"heartbeatInterval": "0s"},
         "timeline": [
           {"after": {"event": "appLaunched", "delay": "1s"}, "emit": {"namespace": "urn:x-cast:com.example", "payload": {"type": "HELLO"}}},
           {"after": {"event": "appLaunched", "delay": "2s"}, "emit": {"namespace": "receiver", "from": "receiver-0", "to": "last",
                                                                  "payload": {"type": "RECEIVER_STATUS", "requestId": 0, "status": {}}}}
         ]}
        """)
        let (connection, transport) = harness.launch()
        let mark = harness.outputs.count
        harness.advance(2)
        let sent = harness.sent(since: mark)
        #expect(sent.count == 2)
        #expect(sent[0].envelope.sourceId == transport && sent[0].envelope.destinationId == "*" && sent[0].json == ["type": "HELLO"])
        #expect(sent[1].envelope.sourceId == "receiver-0" && sent[1].envelope.destinationId == "sender-0" && sent[1].to == [connection])
    }

    @Test("Expectations: within, in order, never; failures carry the closest message as evidence")
    func expectations() throws {
        var harness = try CastTestDevice(scenarioJSON: """
        {"name": "x", "device": {"heartbeatInterval": "0s"},
         "expectations": [
           {"name": "loads the movie", "message": {"type": "LOAD", "fields": {"media.contentId": "movie.mp4"}}, "within": "10s"},
           {"name": "loads then pauses", "sequence": [{"type": "LOAD"}, {"type": "PAUSE"}], "within": "30s"},
           {"name": "never stops the app", "never": {"namespace": "receiver", "type": "STOP"}},
           {"name": "seeks", "message": {"type": "SEEK", "fields": {"currentTime": {"$gt": 100}}}, "within": "20s"},
           {"name": "never mutes, for a minute", "never": {"type": "SET_VOLUME", "fields": {"volume.muted": true}}, "within": "1m"}
         ]}
        """)
        let (connection, transport) = harness.launch()
        harness.advance(5)
        harness.send(connection, to: transport, CastNamespace.media, ["type": "LOAD", "requestId": 2, "media": ["contentId": "movie.mp4"]])
        #expect(harness.expectation("loads the movie")?.passed == true)
        harness.send(connection, to: transport, CastNamespace.media, ["type": "SEEK", "currentTime": 50, "requestId": 3])
        harness.send(connection, to: transport, CastNamespace.media, ["type": "PAUSE", "requestId": 4])
        #expect(harness.expectation("loads then pauses")?.passed == true)
        #expect(harness.expectation("loads then pauses")?.evidence.count == 2)
        #expect(!harness.session.isComplete)
        harness.advance(15)  // t = 20: "seeks" times out
        let seeks = try #require(harness.expectation("seeks"))
        #expect(!seeks.passed && seeks.reason == "no matching message within 20s" && seeks.decidedAt == 20)
        let closest = try #require(seeks.evidence.last)
        #expect(closest.role == "closest" && closest.payload?["type"] == "SEEK" && closest.payload?["currentTime"] == 50)
        harness.advance(40)
        #expect(harness.expectation("never mutes, for a minute")?.passed == true)
        #expect(harness.session.isComplete)
        harness.send(connection, CastNamespace.receiver, ["type": "STOP", "requestId": 9])
        let stop = try #require(harness.expectation("never stops the app"))
        #expect(!stop.passed && stop.evidence.first?.payload?["type"] == "STOP")
        let report = harness.session.report()
        #expect(!report.passed && report.expectations.filter(\.passed).count == 3)
        #expect(report.messagesReceived == harness.journal.messages.count)
    }

    @Test("The report as JSON and JUnit XML")
    func reportFormats() throws {
        var harness = try CastTestDevice(scenarioJSON: """
        {"name": "report & <co>",
         "expectations": [{"name": "a <b>", "message": {"type": "LOAD"}, "within": "1s"}, {"name": "c", "never": {"type": "STOP"}}]}
        """)
        harness.advance(2)
        let report = harness.session.report()
        let json = try JSONValue.parse(report.json())
        #expect(json["passed"] == false && json["scenario"] == "report & <co>")
        #expect(json["expectations"]?.arrayValue?.first?["reason"] == "no matching message within 1s")
        let xml = report.junitXML()
        #expect(xml.contains(#"<testsuite name="report &amp; &lt;co&gt;" tests="2" failures="1""#))
        #expect(xml.contains(#"<testcase classname="castsim.report &amp; &lt;co&gt;" name="a &lt;b&gt;" time="1.0">"#))
        #expect(xml.contains(#"<failure message="no matching message within 1s" type="message">"#))
        #expect(xml.contains(#"<testcase classname="castsim.report &amp; &lt;co&gt;" name="c" time="2.0"/>"#))
    }

    @Test("A load that fails per the catalog: LOAD_FAILED and IDLE/ERROR")
    func catalogFailure() throws {
        var harness = try CastTestDevice(scenarioJSON: """
        {"name": "fail", "device": {"heartbeatInterval": "0s"},
         "media": {"http://bad.test/*": {"load": {"delay": "1s", "fail": {"detailedErrorCode": 104}}}}}
        """)
        let (connection, transport) = harness.launch()
        let mark = harness.outputs.count
        harness.send(connection, to: transport, CastNamespace.media, ["type": "LOAD", "requestId": 2, "media": ["contentId": "http://bad.test/x"]])
        harness.advance(1)
        let types = harness.sent(since: mark).map { $0.json["type"]?.stringValue ?? "" }
        #expect(types == ["MEDIA_STATUS", "LOAD_FAILED", "MEDIA_STATUS"])
        #expect(harness.sent(since: mark)[1].json == ["type": "LOAD_FAILED", "requestId": 2, "itemId": 1, "detailedErrorCode": 104])
    }
}
