import CastControl
import CastDevice
import CastScenario
import CastSimulator
import CastSimulatorTesting
import CastWire
import Foundation
import NIOHTTP1
import Testing

/// Each endpoint of the control API over real HTTP on loopback: what it answers, and what
/// it refuses.
@Suite("Control API")
struct ControlAPITests {
    /// A sender that launched the Default Media Receiver and loaded `contentId`.
    static func playing(_ simulator: CastSimulator, contentId: String = "movie.mp4", customData: JSONValue = ["token": "abc"])
        async throws -> (CastTestSender, String)
    {
        let sender = try await CastTestSender.connect(to: simulator)
        let transportId = try await sender.launch()
        _ = try await sender.request(CastNamespace.media, to: transportId, [
            "type": "LOAD", "media": ["contentId": .string(contentId), "contentType": "video/mp4", "streamType": "BUFFERED",
                                       "metadata": ["title": "A film"]],
            "customData": customData,
        ])
        return (sender, transportId)
    }

    @Test("state: the device, its app, senders with user agents, and the media session as it plays")
    func state() async throws {
        try await withControlledDevice { simulator, http in
            var reply = try await http.get("/api/v1/state")
            #expect(reply.status == 200 && reply.headers["content-type"] == "application/json")
            #expect(reply.json["device"]?["name"] == "Test TV" && reply.json["device"]?["uuid"] == "fedcba9876543210fedcba9876543210")
            #expect(reply.json["app"]?["displayName"] == "Backdrop" && reply.json["app"]?["idleScreen"] == true)
            #expect(reply.json["media"] == .null && reply.json["clock"]?["mode"] == "manual")

            let sender = try await CastTestSender.connect(to: simulator)
            try await sender.send(from: "sender-ua", to: CastEndpoint.platformReceiver, CastNamespace.connection,
                                  ["type": "CONNECT", "userAgent": "castsim-test/1.0", "connType": 0])
            let transportId = try await sender.launch()
            _ = try await sender.request(CastNamespace.media, to: transportId, [
                "type": "LOAD", "media": ["contentId": "movie.mp4", "contentType": "video/mp4", "streamType": "BUFFERED",
                                           "metadata": ["title": "A film"]],
            ])
            await simulator.advanceClock(by: 12)
            reply = try await http.get("/api/v1/state")
            let media = try #require(reply.json["media"])
            #expect(media["playerState"] == "PLAYING" && media["phase"] == "playing" && media["currentTime"] == 12)
            #expect(media["items"]?[0]?["media"]?["metadata"]?["title"] == "A film")
            #expect(media["currentItemId"] == media["items"]?[0]?["itemId"])
            #expect(reply.json["app"]?["appId"] == "CC1AD845" && reply.json["time"] == 12)
            let senders = reply.json["connections"]?[0]?["senders"]?.arrayValue ?? []
            #expect(senders.contains { $0["userAgent"] == "castsim-test/1.0" && $0["endpoint"] == "receiver-0" && $0["senderId"] == "sender-ua" })
            #expect(senders.contains { $0["endpoint"]?.stringValue == transportId })
            await sender.close()

            reply = try await http.get("/api/v1/state?verbose=1")
            #expect(reply.status == 400 && reply.error?.contains("verbose") == true)
        }
    }

    @Test("journal: a poller whose cursor is older than what the journal keeps is told it missed some")
    func journalGaps() async throws {
        try await withControlledDevice(configure: { $0.clock = .manual; $0.journalLimit = 6 }) { simulator, http in
            let sender = try await CastTestSender.connect(to: simulator)
            _ = try await sender.connectToReceiver()  // CONNECT, GET_STATUS, RECEIVER_STATUS
            for id in 1...3 {
                _ = try await sender.request(CastNamespace.receiver, to: CastEndpoint.platformReceiver, ["type": "GET_STATUS", "requestId": .number(Double(id))])
            }
            var reply = try await http.get("/api/v1/journal")
            #expect(reply.json["kept"] == 6 && reply.json["seen"]?.intValue ?? 0 > 6 && reply.json["complete"] == false)
            let kept = reply.json["messages"]?.arrayValue?.compactMap { $0["seq"]?.intValue } ?? []
            let oldest = try #require(kept.first)
            reply = try await http.get("/api/v1/journal?after=\(oldest - 2)")
            #expect(reply.json["complete"] == false && reply.json["messages"]?.arrayValue?.count == 6)
            reply = try await http.get("/api/v1/journal?after=\(oldest - 1)")
            #expect(reply.json["complete"] == true)
            reply = try await http.get("/api/v1/journal?after=\(oldest + 2)")
            #expect(reply.json["complete"] == true && reply.json["messages"]?.arrayValue?.count == 3)
            // The largest cursor there is (schemathesis found it overflowing).
            reply = try await http.get("/api/v1/journal?after=\(Int.max)")
            #expect(reply.status == 200 && reply.json["messages"] == [] && reply.json["complete"] == true)
            // A clear drops what a poller had not read: an empty journal is complete only up
            // to the last message numbered.
            let last = try #require(kept.last)
            #expect(try await http.delete("/api/v1/journal").status == 204)
            reply = try await http.get("/api/v1/journal?after=\(last - 2)")
            #expect(reply.json["messages"] == [] && reply.json["complete"] == false, "\(reply.body)")
            reply = try await http.get("/api/v1/journal?after=\(last)")
            #expect(reply.json["messages"] == [] && reply.json["complete"] == true)
            await sender.close()
        }
    }

    @Test("journal: past its byte limit the oldest messages go, and the answer says it is not complete")
    func journalByteLimit() async throws {
        try await withControlledDevice(configure: { $0.clock = .manual; $0.journalByteLimit = 16 * 1024 }) { simulator, http in
            let sender = try await CastTestSender.connect(to: simulator)
            _ = try await sender.connectToReceiver()
            // Unhandled 5 KB messages: three of them fill the 16 KiB.
            let padding = String(repeating: "p", count: 5_000)
            for id in 1...6 {
                try await sender.send(to: CastEndpoint.platformReceiver, "urn:x-cast:com.example.big",
                                      ["type": "BIG", "requestId": .number(Double(id)), "padding": .string(padding)])
            }
            _ = try await sender.request(CastNamespace.receiver, to: CastEndpoint.platformReceiver, ["type": "GET_STATUS"])
            let reply = try await http.get("/api/v1/journal")
            let kept = reply.json["messages"]?.arrayValue ?? []
            let ids = kept.compactMap { $0["payload"]?["requestId"]?.intValue }
            let types = kept.compactMap { $0["payload"]?["type"]?.stringValue }
            #expect(reply.json["complete"] == false && reply.json["seen"]?.intValue ?? 0 >= 10)
            #expect(types == ["BIG", "BIG", "GET_STATUS", "RECEIVER_STATUS"] && Array(ids.prefix(2)) == [5, 6], "\(types) \(ids)")
            await sender.close()
        }
    }

    @Test("journal: both directions in order, filters, unhandled messages, clear")
    func journal() async throws {
        try await withControlledDevice { simulator, http in
            let (sender, transportId) = try await Self.playing(simulator)
            // A media message to receiver-0: no handler takes it.
            try await sender.send(to: CastEndpoint.platformReceiver, CastNamespace.media, ["type": "GET_STATUS", "requestId": 77])
            _ = try await sender.request(CastNamespace.media, to: transportId, ["type": "GET_STATUS"])

            var reply = try await http.get("/api/v1/journal")
            #expect(reply.status == 200)
            let all = reply.json["messages"]?.arrayValue ?? []
            let sequences = all.compactMap { $0["seq"]?.intValue }
            #expect(sequences == sequences.sorted() && Set(sequences).count == sequences.count)
            let load = try #require(all.firstIndex { $0["type"] == "LOAD" })
            #expect(all[load]["direction"] == "in" && all[load]["payload"]?["customData"]?["token"] == "abc")
            #expect(all[load...].contains { $0["direction"] == "out" && $0["type"] == "MEDIA_STATUS" })
            #expect(reply.json["seen"]?.intValue == all.count && reply.json["kept"]?.intValue == all.count)

            reply = try await http.get("/api/v1/journal?direction=in&namespace=media&type=LOAD")
            #expect(reply.json["messages"]?.arrayValue?.count == 1)
            reply = try await http.get("/api/v1/journal?direction=out&type=MEDIA_STATUS&limit=1")
            let newest = try #require(reply.json["messages"]?[0])
            #expect(reply.json["messages"]?.arrayValue?.count == 1 && newest["connections"] == [1])
            #expect(reply.json["more"] == true)  // older MEDIA_STATUS messages were left out

            // Polling with a cursor reads on from it, oldest first, page by page; without
            // one, a limited answer is the newest.
            #expect(sequences.count >= 5)
            reply = try await http.get("/api/v1/journal?after=\(sequences[0])&limit=2")
            #expect(reply.json["messages"]?.arrayValue?.compactMap { $0["seq"]?.intValue } == Array(sequences[1...2]))
            #expect(reply.json["more"] == true)
            reply = try await http.get("/api/v1/journal?after=\(sequences[sequences.count - 3])&limit=2")
            #expect(reply.json["messages"]?.arrayValue?.compactMap { $0["seq"]?.intValue } == Array(sequences.suffix(2)))
            #expect(reply.json["more"] == false)
            reply = try await http.get("/api/v1/journal?limit=2")
            #expect(reply.json["messages"]?.arrayValue?.compactMap { $0["seq"]?.intValue } == Array(sequences.suffix(2)))
            #expect(reply.json["more"] == true)

            reply = try await http.get("/api/v1/journal/unhandled")
            let unhandled = reply.json["messages"]?.arrayValue ?? []
            #expect(unhandled.count == 1 && unhandled.first?["payload"]?["requestId"] == 77)
            #expect(unhandled.first?["unhandled"]?.stringValue?.contains("not a platform namespace") == true)
            #expect(try await http.get("/api/v1/journal?unhandled=true").json["messages"] == reply.json["messages"])

            for (query, complaint) in [("direction=sideways", "direction"), ("connection=0", "connection"), ("limit=10001", "limit"),
                                       ("since=-1", "since"), ("colour=red", "colour")] {
                reply = try await http.get("/api/v1/journal?\(query)")
                #expect(reply.status == 400 && reply.error?.contains(complaint) == true, "\(query): \(reply.body)")
            }

            reply = try await http.delete("/api/v1/journal")
            #expect(reply.status == 204)
            reply = try await http.get("/api/v1/journal")
            #expect(reply.json["messages"] == [] && reply.json["seen"] == 0)
            await sender.close()
        }
    }

    @Test("verify: counts and sequences with the expectations' patterns; a failure shows the nearest messages and what they lack")
    func verify() async throws {
        try await withControlledDevice { simulator, http in
            let (sender, transportId) = try await Self.playing(simulator)
            _ = try await sender.request(CastNamespace.media, to: transportId, ["type": "PAUSE", "mediaSessionId": 1])

            var reply = try await http.post("/api/v1/verify",
                                            #"{"message": {"namespace": "media", "type": "LOAD", "fields": {"customData.token": "abc"}}, "count": 1}"#)
            #expect(reply.status == 200 && reply.json["passed"] == true && reply.json["count"] == 1)
            #expect(reply.json["matches"]?[0]?["type"] == "LOAD")

            reply = try await http.post("/api/v1/verify", #"{"message": {"type": "LOAD", "fields": {"customData.token": "xyz"}}}"#)
            #expect(reply.json["passed"] == false && reply.json["count"] == 0 && reply.json["expected"] == "at least 1")
            let nearest = try #require(reply.json["nearest"]?[0])
            #expect(nearest["entry"]?["type"] == "LOAD")
            #expect(nearest["differences"] == [#"customData.token: expected = "xyz", got "abc""#])
            #expect(reply.json["message"]?.stringValue?.contains("customData.token") == true)

            reply = try await http.post("/api/v1/verify", #"{"message": {"type": "PAUSE"}, "atMost": 0}"#)
            #expect(reply.json["passed"] == false && reply.json["expected"] == "at most 0")
            reply = try await http.post("/api/v1/verify", #"{"message": {"type": "MEDIA_STATUS"}, "direction": "out", "atLeast": 2}"#)
            #expect(reply.json["passed"] == true)

            reply = try await http.post("/api/v1/verify", #"{"sequence": [{"type": "LAUNCH"}, {"type": "LOAD"}, {"type": "PAUSE"}]}"#)
            #expect(reply.json["passed"] == true && reply.json["count"] == 3)
            reply = try await http.post("/api/v1/verify", #"{"sequence": [{"type": "PAUSE"}, {"type": "LOAD"}]}"#)
            #expect(reply.json["passed"] == false && reply.json["count"] == 1)
            #expect(reply.json["message"]?.stringValue?.contains("pattern 2") == true)

            let refusals: [(String, String)] = [
                (#"{"message": {"type": "LOAD", "colour": 1}}"#, "message.colour"),
                (#"{"message": {"namespace": "nope"}}"#, "message.namespace"),
                (#"{"message": {"type": "LOAD"}, "count": 1, "atLeast": 1}"#, "count excludes"),
                (#"{"message": {"type": "LOAD"}, "atLeast": 3, "atMost": 1}"#, "atLeast 3"),
                (#"{"sequence": []}"#, "sequence"),
                (#"{"sequence": [{"type": "LOAD"}], "count": 1}"#, "no count"),
                (#"{}"#, "expected \"message\""),
                (#"{"message": {}, "direction": "up"}"#, "direction"),
                (#"[1, 2]"#, "expected a JSON object"),
                (#"{"message": "#, "not JSON"),
            ]
            for (body, complaint) in refusals {
                reply = try await http.post("/api/v1/verify", body)
                #expect(reply.status == 400 && reply.error?.contains(complaint) == true, "\(body): \(reply.body)")
            }
            reply = try await http.post("/api/v1/verify", #"{"message": {"type": "LOAD", "fields": {"x": {"$regex": "("}}}}"#)
            #expect(reply.status == 400 && reply.json["issues"]?[0]?["path"] == "message.fields.x.$regex")
            await sender.close()
        }
    }

    @Test("act: operator inputs reach the senders, messages go where they are sent, faults hit the chosen connection")
    func act() async throws {
        try await withControlledDevice { simulator, http in
            let (sender, _) = try await Self.playing(simulator)
            var reply = try await http.post("/api/v1/act", #"{"remote": "pause"}"#)
            #expect(reply.status == 200 && reply.json["done"] == "remote pause")
            let paused = await sender.waitFor { _, json in json["type"] == "MEDIA_STATUS" && json["status"]?[0]?["playerState"] == "PAUSED" }
            #expect(paused != nil)

            reply = try await http.post("/api/v1/act", #"{"volume": {"level": 0.25}}"#)
            #expect(reply.status == 200)
            let volume = await sender.waitFor { _, json in json["type"] == "RECEIVER_STATUS" && json["status"]?["volume"]?["level"] == 0.25 }
            #expect(volume != nil)

            // A second sender: a message to connection 2 reaches it and not the first.
            let other = try await CastTestSender.connect(to: simulator)
            _ = try await other.connectToReceiver(from: "sender-other")
            reply = try await http.post("/api/v1/act", #"""
                {"emit": {"namespace": "urn:x-cast:com.example.test", "from": "receiver-0", "to": 2,
                          "payload": {"type": "HELLO", "n": 1}}}
                """#)
            #expect(reply.status == 200)
            #expect(await other.waitFor { envelope, json in envelope.namespace == "urn:x-cast:com.example.test" && json["n"] == 1 } != nil)
            let stray = await sender.waitFor(timeout: .milliseconds(300)) { envelope, _ in envelope.namespace == "urn:x-cast:com.example.test" }
            #expect(stray == nil)
            // To one sender by its id, wherever it is connected.
            reply = try await http.post("/api/v1/act", #"""
                {"emit": {"namespace": "urn:x-cast:com.example.test", "from": "receiver-0", "sender": "sender-other",
                          "payload": {"type": "HELLO", "n": 2}}}
                """#)
            #expect(reply.status == 200)
            #expect(await other.waitFor { envelope, json in json["n"] == 2 && envelope.destinationId == "sender-other" } != nil)
            #expect(await sender.waitFor(timeout: .milliseconds(300)) { _, json in json["n"] == 2 } == nil)
            reply = try await http.post("/api/v1/act", #"{"emit": {"namespace": "media", "sender": "sender-nobody", "payload": {"type": "X"}}}"#)
            #expect(reply.status == 404 && reply.error?.contains("no sender sender-nobody is connected") == true)

            // Stall connection 1's replies for 30 s: connection 2 is answered, 1 only when the clock passes 5 s.
            reply = try await http.post("/api/v1/act", #"{"delayReplies": {"by": "5s", "for": "30s", "which": 1}}"#)
            #expect(reply.status == 200)
            try await sender.send(to: CastEndpoint.platformReceiver, CastNamespace.receiver, ["type": "GET_STATUS", "requestId": 501])
            try await other.send(from: "sender-other", to: CastEndpoint.platformReceiver, CastNamespace.receiver,
                                 ["type": "GET_STATUS", "requestId": 502])
            #expect(await other.waitFor { _, json in json["requestId"] == 502 } != nil)
            #expect(await sender.waitFor(timeout: .milliseconds(300)) { _, json in json["requestId"] == 501 } == nil)
            await simulator.advanceClock(by: 5)
            #expect(await sender.waitFor { _, json in json["requestId"] == 501 } != nil)

            // "which": "all" stalls every open connection, each on these terms.
            reply = try await http.post("/api/v1/act", #"{"delayReplies": {"by": "2s", "for": "30s", "which": "all"}}"#)
            #expect(reply.status == 200)
            try await sender.send(to: CastEndpoint.platformReceiver, CastNamespace.receiver, ["type": "GET_STATUS", "requestId": 503])
            try await other.send(from: "sender-other", to: CastEndpoint.platformReceiver, CastNamespace.receiver,
                                 ["type": "GET_STATUS", "requestId": 504])
            #expect(await sender.waitFor(timeout: .milliseconds(300)) { _, json in json["requestId"] == 503 } == nil)
            #expect(await other.waitFor(timeout: .milliseconds(100)) { _, json in json["requestId"] == 504 } == nil)
            await simulator.advanceClock(by: 2)
            #expect(await sender.waitFor { _, json in json["requestId"] == 503 } != nil)
            #expect(await other.waitFor { _, json in json["requestId"] == 504 } != nil)

            // What would do nothing is refused, saying why.
            reply = try await http.post("/api/v1/act", #"{"launchApp": "ABCDEF12"}"#)
            #expect(reply.status == 404 && reply.error?.contains("offers no app ABCDEF12") == true && reply.error?.contains("CC1AD845") == true)
            let huge = #"{"emit": {"namespace": "media", "payload": {"type": "X", "pad": ""# + String(repeating: "a", count: 70_000) + #""}}}"#
            reply = try await http.post("/api/v1/act", huge)
            #expect(reply.status == 400 && reply.json["issues"]?[0]?["path"] == "emit.payload" && reply.error?.contains("at most 64512") == true)

            reply = try await http.post("/api/v1/act", #"{"closeConnection": {"which": 2, "mode": "reset"}}"#)
            #expect(reply.status == 200)
            #expect(await other.waitForClose())

            reply = try await http.post("/api/v1/act", #"{"closeConnection": {"which": 9}}"#)
            #expect(reply.status == 404 && reply.error == "no open connection 9")
            reply = try await http.post("/api/v1/act", #"{"advance": "10s"}"#)
            #expect(reply.status == 400 && reply.error?.contains("/api/v1/clock/advance") == true)
            reply = try await http.post("/api/v1/act", #"{"remote": "paws"}"#)
            #expect(reply.status == 400 && reply.json["issues"]?[0]?["path"] == "remote")
            reply = try await http.post("/api/v1/act", #"{"remote": "pause", "standby": true}"#)
            #expect(reply.status == 400 && reply.error?.contains("one request does one thing") == true)
            reply = try await http.post("/api/v1/act", #"{"dance": true}"#)
            #expect(reply.status == 400 && reply.error?.contains("expected one of") == true)
            reply = try await http.post("/api/v1/act", "")
            #expect(reply.status == 400 && reply.error == "expected a JSON body, got none")
            await sender.close()
            var open = 1
            for _ in 0..<100 where open > 0 {
                try await Task.sleep(for: .milliseconds(20))
                open = try await simulator.snapshot().connections.count
            }
            reply = try await http.post("/api/v1/act", #"{"closeConnection": {"which": "all"}}"#)
            #expect(reply.status == 409 && reply.error == "no connection is open: no sender would get it")
        }
    }

    @Test("clock: read, advanced in manual mode with everything due done on the way, refused otherwise")
    func clock() async throws {
        // No idle timeout: the test sender says nothing for ten simulated minutes.
        try await withControlledDevice(configure: { $0.clock = .manual; $0.device.idleTimeout = nil }) { simulator, http in
            let (sender, _) = try await Self.playing(simulator)
            var reply = try await http.get("/api/v1/clock")
            #expect(reply.json == ["mode": "manual", "speed": nil, "time": 0])
            reply = try await http.post("/api/v1/clock/advance", #"{"by": "10m"}"#)
            #expect(reply.status == 200 && reply.json["time"] == 600)
            // The 600 s film ended on the way.
            #expect(await sender.waitFor { _, json in json["status"]?[0]?["idleReason"] == "FINISHED" } != nil)
            reply = try await http.post("/api/v1/clock/advance", #"{"by": 1.5}"#)
            #expect(reply.json["time"] == 601.5)
            for body in [#"{"by": "soon"}"#, #"{"by": -1}"#, #"{}"#, #"{"by": "1s", "and": 1}"#] {
                reply = try await http.post("/api/v1/clock/advance", body)
                #expect(reply.status == 400, "\(body): \(reply.body)")
            }
            await sender.close()
        }
        try await withControlledDevice(configure: { $0.clock = .scaled(10) }) { _, http in
            var reply = try await http.get("/api/v1/clock")
            #expect(reply.json["mode"] == "scaled" && reply.json["speed"] == 10)
            reply = try await http.post("/api/v1/clock/advance", #"{"by": "1s"}"#)
            #expect(reply.status == 409 && reply.error?.contains("the clock is scaled") == true)
            // The report's duration is the clock's time now, not that of the device's last news
            // (here its start): 200 ms at ten times is 2 s.
            try await Task.sleep(for: .milliseconds(200))
            let duration = try #require(try await http.get("/api/v1/report").json["duration"]?.doubleValue)
            #expect(duration >= 1.9, "\(duration)")
        }
    }

    @Test("scenario: loaded into the running device, reset to its start (connections, journal, expectations), reported")
    func scenario() async throws {
        try await withControlledDevice { simulator, http in
            let scenario = #"""
                {"name": "loads a film", "device": {"name": "ignored"},
                 "expectations": [{"name": "loads", "message": {"namespace": "media", "type": "LOAD"}}]}
                """#
            var reply = try await http.put("/api/v1/scenario", scenario)
            #expect(reply.status == 200 && reply.json["name"] == "loads a film" && reply.json["expectations"] == 1)
            // The running device keeps its identity.
            #expect(try await http.get("/api/v1/state").json["device"]?["name"] == "Test TV")

            reply = try await http.get("/api/v1/report")
            #expect(reply.json["passed"] == false && reply.json["expectations"]?[0]?["reason"] == "not seen by the end of the run")
            let (sender, _) = try await Self.playing(simulator)
            reply = try await http.get("/api/v1/report")
            #expect(reply.json["passed"] == true && reply.json["scenario"] == "loads a film")
            reply = try await http.get("/api/v1/report?format=junit")
            #expect(reply.headers["content-type"] == "application/xml" && reply.body.contains(#"<testcase classname="castsim.loads a film" name="loads""#))

            await simulator.advanceClock(by: 30)
            let lastBeforeReset = try #require(try await http.get("/api/v1/journal?limit=1").json["messages"]?[0]?["seq"]?.intValue)
            reply = try await http.post("/api/v1/reset", "")
            #expect(reply.status == 200 && reply.json["name"] == "loads a film")
            #expect(await sender.waitForClose())
            #expect(try await http.get("/api/v1/journal").json["messages"] == [])
            #expect(try await http.get("/api/v1/report").json["passed"] == false)
            let state = try await http.get("/api/v1/state").json
            #expect(state["time"] == 0 && state["media"] == .null && state["connections"] == [])
            // The new journal numbers on: a poller's cursor from before the reset still works.
            let again = try await CastTestSender.connect(to: simulator)
            _ = try await again.connectToReceiver()
            let firstAfterReset = try #require(try await http.get("/api/v1/journal").json["messages"]?[0]?["seq"]?.intValue)
            #expect(firstAfterReset == lastBeforeReset + 1)
            await again.close()

            reply = try await http.put("/api/v1/scenario", #"{"name": "broken", "timeline": [{"at": "soon", "remote": "pause"}]}"#)
            #expect(reply.status == 422 && reply.json["issues"]?[0]?["path"] == "timeline[0].at")
            reply = try await http.put("/api/v1/scenario", #"{"name": "#)
            #expect(reply.status == 400 && reply.error?.contains("not JSON") == true)
            reply = try await http.get("/api/v1/report?format=xml")
            #expect(reply.status == 400 && reply.error?.contains("json or junit") == true)
            #expect(try await http.get("/api/v1/scenario").json["name"] == "loads a film")
        }
    }

    @Test("events: Server-Sent Events of device events, messages and clock moves")
    func events() async throws {
        try await withControlledDevice { simulator, http in
            await simulator.advanceClock(by: 7)
            let reply = try await http.stream("/api/v1/events", whileOpen: {
                try await Task.sleep(for: .milliseconds(100))
                _ = try await http.post("/api/v1/act", #"{"standby": true}"#)
                let sender = try await CastTestSender.connect(to: simulator)
                _ = try await sender.connectToReceiver()
                _ = try await http.post("/api/v1/clock/advance", #"{"by": "2s"}"#)
                await sender.close()
            }, until: { $0.contains("event: clock") })
            #expect(reply.status == 200 && reply.headers["content-type"] == "text/event-stream")
            // hello says when it is on the device's clock.
            #expect(reply.body.hasPrefix("event: hello\ndata: {\"time\":7}\n\n"))
            #expect(reply.body.contains(#"event: device"# + "\n" + #"data: {"kind":"standbyChanged","standby":true"#))
            #expect(reply.body.contains(#""direction":"in""#) && reply.body.contains(#""type":"GET_STATUS""#))
            #expect(reply.body.contains(#""type":"RECEIVER_STATUS""#))
            #expect(reply.body.contains("event: clock\ndata: {\"mode\":\"manual\",\"speed\":null,\"time\":9}"))

            let devicesOnly = try await http.stream("/api/v1/events?types=device", whileOpen: {
                try await Task.sleep(for: .milliseconds(100))
                _ = try await http.post("/api/v1/act", #"{"standby": false}"#)
            }, until: { $0.contains("standbyChanged") })
            #expect(!devicesOnly.body.contains("event: message"))
            let refused = try await http.get("/api/v1/events?types=gossip")
            #expect(refused.status == 400 && refused.error?.contains("gossip") == true)
            // The streams the clients closed hold no subscriber on the device once the
            // server finds them gone: a write fails (an event, or the 15 s keep-alive). The
            // first write after the client left still succeeds (TCP learns of the close
            // from the peer's answer to it), so two events.
            _ = try await http.post("/api/v1/act", #"{"standby": true}"#)
            try await Task.sleep(for: .milliseconds(200))
            _ = try await http.post("/api/v1/act", #"{"standby": false}"#)
            var open = try await simulator.newsSubscriptions()
            for _ in 0..<100 where open != (0, 0) {
                try await Task.sleep(for: .milliseconds(20))
                open = try await simulator.newsSubscriptions()
            }
            #expect(open.streams == 0 && open.subscribers == 0, "\(open)")
        }
    }

    @Test("act: a player's input or stopApp while only the idle screen runs is refused (409), not answered done")
    func idleScreenActs() async throws {
        try await withControlledDevice { _, http in
            // No player to pause, stall or fail, no app to stop.
            for action in [#"{"remote": "pause"}"#, #"{"buffering": "2s"}"#, #"{"playerError": {}}"#, #"{"stopApp": true}"#] {
                let reply = try await http.post("/api/v1/act", action)
                #expect(reply.status == 409 && reply.error?.contains("only the idle screen runs") == true, "\(action): \(reply.body)")
            }
            var reply = try await http.post("/api/v1/act", #"{"launchApp": "CC1AD845"}"#)
            #expect(reply.status == 200)
            reply = try await http.post("/api/v1/act", #"{"stopApp": true}"#)
            #expect(reply.status == 200, "\(reply.body)")
            reply = try await http.post("/api/v1/act", #"{"stopApp": true}"#)
            #expect(reply.status == 409)
        }
    }

    @Test("act: a player's input the running app would ignore (no media loaded, no next item) is refused (409); with media it is done and senders hear it")
    func ignoredPlayerInputs() async throws {
        try await withControlledDevice { simulator, http in
            var reply = try await http.post("/api/v1/act", #"{"launchApp": "CC1AD845"}"#)
            #expect(reply.status == 200)
            for action in [#"{"remote": "pause"}"#, #"{"remote": "next"}"#, #"{"buffering": "2s"}"#, #"{"playerError": {}}"#] {
                reply = try await http.post("/api/v1/act", action)
                #expect(reply.status == 409 && reply.error?.contains("Default Media Receiver would change nothing now") == true,
                        "\(action): \(reply.body)")
            }
            let sender = try await CastTestSender.connect(to: simulator)
            try await sender.send(from: "sender-0", to: CastEndpoint.platformReceiver, CastNamespace.connection, ["type": "CONNECT"])
            let transportId = try await sender.launch()
            _ = try await sender.request(CastNamespace.media, to: transportId, [
                "type": "LOAD", "media": ["contentId": "movie.mp4", "contentType": "video/mp4", "streamType": "BUFFERED"],
            ])
            reply = try await http.post("/api/v1/act", #"{"remote": "pause"}"#)
            #expect(reply.status == 200, "\(reply.body)")
            let heard = await sender.waitFor { envelope, json in
                envelope.namespace == CastNamespace.media && json["status"]?[0]?["playerState"] == "PAUSED"
            }
            #expect(heard != nil)
            // One item in the queue: the remote's next has nowhere to go.
            reply = try await http.post("/api/v1/act", #"{"remote": "next"}"#)
            #expect(reply.status == 409 && reply.error?.contains("remote next") == true, "\(reply.body)")
            // With no sender left to tell, the input still changes the player: it is done.
            await sender.close()
            reply = try await http.post("/api/v1/act", #"{"remote": "play"}"#)
            #expect(reply.status == 200, "\(reply.body)")
            #expect(try await http.get("/api/v1/state").json["media"]?["playerState"] == "PLAYING")
        }
    }

    @Test("HEAD answers as GET without the body: status and headers, refusals too; an event stream is not opened")
    func head() async throws {
        try await withControlledDevice { simulator, http in
            let get = try await http.get("/api/v1/clock")
            var reply = try await http.request(.HEAD, "/api/v1/clock")
            #expect(reply.status == 200 && reply.body.isEmpty && reply.headers["content-type"] == "application/json")
            #expect(reply.headers["content-length"] == "\(get.body.utf8.count)")
            reply = try await http.request(.HEAD, "/api/v1/events")
            #expect(reply.status == 200 && reply.body.isEmpty && reply.headers["content-type"] == "text/event-stream")
            #expect(try await simulator.newsSubscriptions().streams == 0)
            reply = try await http.request(.HEAD, "/api/v1/clock?colour=red")
            #expect(reply.status == 400 && reply.body.isEmpty)
            reply = try await http.request(.HEAD, "/api/v1/act")
            #expect(reply.status == 405 && reply.headers["allow"] == "POST" && reply.body.isEmpty)
            reply = try await http.request(.HEAD, "/api/v1/nowhere")
            #expect(reply.status == 404 && reply.body.isEmpty)
            // The connection is still good for the next request.
            #expect(try await http.get("/api/v1/clock").status == 200)
        }
    }

    @Test("events: a stream that castsim ends says why last, whatever types asks for")
    func streamEndSaysWhy() async throws {
        try await withControlledDevice { simulator, http in
            let reply = try await http.stream("/api/v1/events?types=clock", whileOpen: {
                try await Task.sleep(for: .milliseconds(100))
                await simulator.stop()
            }, until: { $0.contains("event: end") })
            #expect(reply.body.hasSuffix("event: end\ndata: {\"reason\":\"the device stopped\"}\n\n"), "\(reply.body)")
        }
    }

    @Test("events: with every slot taken by streams whose clients have gone, a new stream finds them out and opens at once")
    func streamSlotsOfClientsGone() async throws {
        try await withControlledDevice { _, http in
            // Each client reads its hello and closes its connection; nothing happens on the
            // device, so no stream has written anything since: all 64 slots are held.
            for _ in 0..<64 {
                let reply = try await http.stream("/api/v1/events?types=clock", until: { $0.contains("event: hello") })
                #expect(reply.status == 200)
            }
            // Before, a 429 until the keep-alives 15 s on found the clients gone.
            let reply = try await http.stream("/api/v1/events?types=clock", until: { $0.contains("event: hello") })
            #expect(reply.status == 200, "\(reply.body)")
        }
    }

    @Test("events: with every slot taken by clients still there, a new stream is refused (429) once each has taken three writes, not after a fixed wait")
    func streamSlotsAllHeld() async throws {
        try await withControlledDevice { _, http in
            var held: [StreamClient] = []
            for _ in 0..<64 { held.append(try await StreamClient.open(with: http)) }
            let started = ContinuousClock.now
            let reply = try await http.get("/api/v1/events?types=clock")
            let waited = ContinuousClock.now - started
            #expect(reply.status == 429 && reply.error == "64 event streams are open already; close one first", "\(reply.body)")
            // Refused by the clients' answers, well before the 5 s bound for streams not yet writing.
            #expect(waited < .milliseconds(2500), "\(waited)")
            for client in held { try await client.close() }
        }
    }

    @Test("A token guards every request when set; a non-loopback address needs one")
    func token() async throws {
        try await withControlledDevice(token: "s3cret") { _, http in
            var anonymous = http
            anonymous.token = nil
            var reply = try await anonymous.get("/api/v1/state")
            #expect(reply.status == 401 && reply.headers["www-authenticate"]?.hasPrefix("Bearer") == true && reply.error != nil)
            var wrong = http
            wrong.token = "s3cre"
            #expect(try await wrong.get("/api/v1/state").status == 401)
            #expect(try await http.get("/api/v1/state").status == 200)
            // The scheme's name in any case, as HTTP has it.
            reply = try await anonymous.request(.GET, "/api/v1/state", headers: [("Authorization", "bearer s3cret")])
            #expect(reply.status == 200)
            // ?token= only where a browser cannot send the header: the event stream and the
            // dashboard's address.
            #expect(try await anonymous.get("/api/v1/state?token=s3cret").status == 401)
            let stream = try await anonymous.stream("/api/v1/events?token=s3cret", until: { $0.contains("event: hello") })
            #expect(stream.status == 200)
            // The dashboard opens without the token (#token= never reaches the server): the
            // page without the device's state, and its scripts and style sheet, which hold
            // nothing of the device.
            reply = try await anonymous.get("/")
            #expect(reply.status == 200 && reply.body.contains(#"id="initial-state">null</script>"#) && !reply.body.contains("\"friendlyName\""))
            reply = try await anonymous.get("/?token=s3cret")
            #expect(reply.status == 200 && !reply.body.contains(#"id="initial-state">null</script>"#))
            for file in ["/dashboard.js", "/dashboard-panels.js", "/dashboard-log.js", "/dashboard-live.js", "/recording.js", "/dashboard.css"] {
                #expect(try await anonymous.get(file).status == 200, "\(file)")
            }
            #expect(try await anonymous.get("/api/v1/openapi.json").status == 401)
        }
        try await withCastSimulator { simulator in
            let refusal = await #expect(throws: ControlStartError.self) {
                _ = try await ControlServer.start(ControlConfiguration(host: "0.0.0.0", port: 0), simulator: simulator, logger: .init(label: "t"))
            }
            #expect(refusal?.description.contains("--control-token") == true)
        }
    }

    @Test("Bytes that are no HTTP request get 400 with JSON naming what was wrong and what was expected; the connection closes, the server goes on")
    func malformedRequests() async throws {
        try await withControlledDevice { _, http in
            let cases: [(bytes: [UInt8], says: String)] = [
                (Array("GARBAGE\r\n\r\n".utf8), "does not start with an HTTP method"),
                ([0x16, 0x03, 0x01, 0x00, 0x05, 0x01, 0x00, 0x00, 0x01, 0x00], "this port speaks plain HTTP"),
                (Array("GET /api/v1/state HTTP/9.9\r\n\r\n".utf8), "HTTP/1.0 or HTTP/1.1"),
                (Array("GET /api/v1/state HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n".utf8), "`Name: value`"),
                (Array("POST /api/v1/act HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ten\r\n\r\n".utf8), "Content-Length is no number"),
            ]
            for (bytes, says) in cases {
                let answer = try await rawExchange(bytes, with: http)
                let parts = answer.split(separator: "\r\n\r\n", maxSplits: 1).map(String.init)
                #expect(parts.first?.hasPrefix("HTTP/1.1 400 Bad Request\r\n") == true, "\(answer)")
                #expect(parts.first?.lowercased().contains("content-type: application/json") == true, "\(answer)")
                let error = try #require(parts.count == 2 ? try? JSONValue.parse(parts[1]) : nil, "\(answer)")["error"]?.stringValue
                #expect(error?.hasPrefix("malformed HTTP request: ") == true && error?.contains(says) == true, "\(answer)")
                #expect(error?.contains("expected a request such as `GET /api/v1/state HTTP/1.1`") == true)
            }
            // A bad request after a good one on the same connection: the first is answered
            // in full, then the refusal.
            let both = try await rawExchange(Array("GET /api/v1/clock HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nNOT HTTP\r\n\r\n".utf8), with: http)
            #expect(both.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(both)")
            #expect(both.components(separatedBy: "HTTP/1.1 400 Bad Request\r\n").count == 2, "\(both)")
            #expect(both.hasSuffix("and a blank line\"}\n"), "\(both)")
            // The server answers the next client as before.
            #expect(try await http.get("/api/v1/clock").status == 200)
        }
    }

    @Test("Bad requests get a 4xx naming the problem: unknown paths, wrong methods, big bodies, other content types")
    func refusals() async throws {
        try await withControlledDevice { _, http in
            var reply = try await http.get("/api/v2/state")
            #expect(reply.status == 404 && reply.error?.contains("openapi.json") == true)
            reply = try await http.request(.PUT, "/api/v1/act", body: "{}", contentType: "application/json")
            #expect(reply.status == 405 && reply.headers["allow"] == "POST")
            reply = try await http.request(.PATCH, "/api/v1/journal")
            #expect(reply.status == 405 && reply.headers["allow"] == "GET, HEAD, DELETE")
            let big = #"{"emit": {"namespace": "media", "payload": {"type": "X", "pad": ""# + String(repeating: "a", count: 1 << 20) + #""}}}"#
            reply = try await http.post("/api/v1/act", big)
            #expect(reply.status == 413 && reply.error?.contains("1048576-byte limit") == true)
            reply = try await http.post("/api/v1/act", #"{"standby": true}"#, contentType: "text/xml")
            #expect(reply.status == 415 && reply.error?.contains("application/json") == true)
            // A form or a body with no type is what a page elsewhere sends without asking.
            reply = try await http.post("/api/v1/act", #"{"standby": true}"#, contentType: "application/x-www-form-urlencoded")
            #expect(reply.status == 415 && reply.error?.contains("application/json") == true)
            reply = try await http.post("/api/v1/act", #"{"standby": true}"#, contentType: nil)
            #expect(reply.status == 415 && reply.error == "a body needs Content-Type: application/json")
            #expect(try await http.post("/api/v1/reset", "", contentType: nil).status == 200)
            // Browsers: only this server's own pages; no site's name rebound to loopback.
            reply = try await http.request(.POST, "/api/v1/act", body: #"{"standby": true}"#, contentType: "application/json",
                                           headers: [("Origin", "https://attacker.example")])
            #expect(reply.status == 403 && reply.error?.contains("https://attacker.example") == true)
            reply = try await http.request(.GET, "/api/v1/state", headers: [("Origin", "null")])
            #expect(reply.status == 403)
            // The same host and port behind a TLS-terminating proxy.
            reply = try await http.request(.GET, "/api/v1/state", headers: [("Origin", "https://127.0.0.1:\(http.port)")])
            #expect(reply.status == 200)
            reply = try await http.request(.GET, "/api/v1/state", headers: [("Origin", "http://127.0.0.1:\(http.port + 1)")])
            #expect(reply.status == 403)
            reply = try await http.request(.POST, "/api/v1/act", body: #"{"standby": false}"#, contentType: "application/json",
                                           headers: [("Origin", "http://127.0.0.1:\(http.port)")])
            #expect(reply.status == 200)
            reply = try await http.request(.GET, "/api/v1/state", headers: [("Host", "rebound.attacker.example:\(http.port)")])
            #expect(reply.status == 403 && reply.error?.contains("loopback") == true)
            reply = try await http.request(.GET, "/api/v1/state", headers: [("Host", "127.example.com")])
            #expect(reply.status == 403)
            #expect(try await http.request(.GET, "/api/v1/state", headers: [("Host", "localhost:\(http.port)")]).status == 200)
            // Every endpoint that takes no query or no such method says so.
            for path in ["/api/v1/clock", "/api/v1/scenario", "/api/v1/state"] {
                reply = try await http.get("\(path)?colour=red")
                #expect(reply.status == 400 && reply.error?.contains("\"colour\"") == true, "\(path): \(reply.body)")
            }
            reply = try await http.request(.DELETE, "/api/v1/journal?colour=red")
            #expect(reply.status == 400 && reply.error?.contains("\"colour\"") == true)
            reply = try await http.post("/api/v1/reset?colour=red", "")
            #expect(reply.status == 400 && reply.error?.contains("\"colour\"") == true)
            reply = try await http.get("/api/v1/journal/unhandled?colour=red")
            #expect(reply.status == 400 && reply.error?.contains("colour") == true)
            for (method, path, allowed) in [(HTTPMethod.POST, "/api/v1/clock", "GET, HEAD"), (.GET, "/api/v1/reset", "POST"),
                                            (.DELETE, "/api/v1/scenario", "GET, HEAD, PUT"), (.POST, "/api/v1/journal/unhandled", "GET, HEAD"),
                                            (.GET, "/api/v1/clock/advance", "POST")] {
                reply = try await http.request(method, path, body: method == .POST ? "{}" : nil, contentType: method == .POST ? "application/json" : nil)
                #expect(reply.status == 405 && reply.headers["allow"] == allowed, "\(method) \(path): \(reply.status) \(reply.headers)")
            }
            // A body is JSON by its exact type, UTF-8; an endpoint that takes none refuses one.
            reply = try await http.post("/api/v1/act", #"{"standby": true}"#, contentType: "application/jsonx")
            #expect(reply.status == 415)
            reply = try await http.post("/api/v1/act", #"{"standby": true}"#, contentType: "application/json; charset=latin1")
            #expect(reply.status == 415 && reply.error?.contains("latin1") == true)
            #expect(try await http.post("/api/v1/act", #"{"standby": false}"#, contentType: "Application/JSON; charset=UTF-8").status == 200)
            reply = try await http.post("/api/v1/reset", "hello", contentType: "text/plain")
            #expect(reply.status == 415)
            reply = try await http.post("/api/v1/reset", "{}")
            #expect(reply.status == 400 && reply.error == "POST /api/v1/reset takes no body")
            // A POST without a body as NIO's client sends it (`castsim ctl reset`): chunked,
            // and empty, so no body.
            #expect(try await http.request(.POST, "/api/v1/reset").status == 200)
            reply = try await http.request(.DELETE, "/api/v1/journal", body: "{}", contentType: "application/json")
            #expect(reply.status == 400 && reply.error?.contains("takes no body") == true)
            // Query parameters: none where an endpoint takes none, each at most once.
            for path in ["/api/v1/act?bogus=1", "/api/v1/verify?bogus=1", "/api/v1/clock/advance?by=10s"] {
                reply = try await http.post(path, "{}")
                #expect(reply.status == 400 && reply.error?.contains("unknown query parameter") == true, "\(path): \(reply.body)")
            }
            reply = try await http.get("/api/v1/journal?limit=1&limit=2")
            #expect(reply.status == 400 && reply.error?.contains("\"limit\" is given twice") == true)
            reply = try await http.get("/api/v1/state?device=a&device=b")
            #expect(reply.status == 400 && reply.error?.contains("\"device\" is given twice") == true)
            // The journal's filters refuse what would match nothing by mistake.
            reply = try await http.get("/api/v1/journal?namespace=recevier")
            #expect(reply.status == 400 && reply.error?.contains("receiver") == true)
            #expect(try await http.get("/api/v1/journal?namespace=webrtc").status == 200)
            reply = try await http.get("/api/v1/journal?since=10&until=5")
            #expect(reply.status == 400 && reply.error?.contains("since") == true)
            reply = try await http.get("/api/v1/journal/unhandled?unhandled=false")
            #expect(reply.status == 400)
            reply = try await http.post("/api/v1/clock/advance", #"{"by": -1}"#)
            #expect(reply.status == 400 && reply.error == "by: negative: a duration is 0 s or more")
            // A request names one host, and a host is a name or an address with a port.
            reply = try await http.request(.GET, "/api/v1/state", headers: [("Host", "127.0.0.1:\(http.port)@evil.example")])
            #expect(reply.status == 400 && reply.error?.contains("expected a host name") == true)
            reply = try await http.request(.GET, "/api/v1/state", headers: [("Host", "127.0.0.1:\(http.port)"), ("Host", "evil.example")])
            #expect(reply.status == 400 && reply.error?.contains("two Host headers") == true, "\(reply.status) \(reply.body)")
            let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
            reply = try await http.post("/api/v1/act", deep)
            #expect(reply.status == 400 && reply.error?.contains("not JSON") == true)
        }
    }

    @Test("The OpenAPI document is served, is the file in the repository with the scenario's and the apps' schemas put in, and describes every route")
    func openAPI() async throws {
        try await withControlledDevice { _, http in
            let reply = try await http.get("/api/v1/openapi.json")
            #expect(reply.status == 200 && reply.headers["content-type"] == "application/json")
            let file = try JSONValue.parse(Data(contentsOf: Self.repository.appendingPathComponent("Sources/CastControl/Assets/openapi.json")),
                                           limits: .document)
            let document = try JSONValue.parse(Array(reply.body.utf8), limits: .document)
            #expect(document["paths"] == file["paths"] && document["info"] == file["info"])
            // Nothing refers outside the document, and every reference leads somewhere.
            let text = reply.body
            #expect(!text.contains("scenario.schema.json#"))
            let schemas = document["components"]?["schemas"]?.objectValue ?? [:]
            for name in Self.references(in: document) { #expect(schemas[name] != nil, "#/components/schemas/\(name) is not there") }
            // `act` takes exactly the scenario's actions, the apps' included; `verify` its patterns.
            let action = ScenarioSchema.document["$defs"]?["action"]?["properties"]?.objectValue?.keys.sorted()
            #expect(schemas["scenario.action"]?["properties"]?.objectValue?.keys.sorted() == action)
            #expect(schemas["Action"]?["$ref"] == "#/components/schemas/scenario.action")
            #expect(schemas["MessagePattern"]?["$ref"] == "#/components/schemas/scenario.pattern")
            // Each app's panel is a member of the state.
            for panel in AppRegistry.builtIn.panels {
                #expect(schemas["State"]?["properties"]?[panel.key]?["anyOf"]?[0]?["$ref"] == .string("#/components/schemas/app.\(panel.key)"))
                #expect(schemas["app.\(panel.key)"]?["properties"]?["summary"] != nil)
            }
            #expect(document["openapi"]?.stringValue?.hasPrefix("3.") == true)
            for (path, methods) in ControlRoutes.table {
                for method in methods {
                    #expect(document["paths"]?[path]?[method.rawValue.lowercased()] != nil, "\(method) \(path) is not in openapi.json")
                }
            }
            // And the other way: what the document names is routed. An unknown query
            // parameter is answered by the route itself (400) or ignored (200), never 404/405.
            let documented = document["paths"]?.objectValue ?? [:]
            #expect(documented.count == ControlRoutes.table.count)
            for (path, operations) in documented where path != "/api/v1/events" {
                for method in (operations.objectValue ?? [:]).keys {
                    let answer = try await http.request(HTTPMethod(rawValue: method.uppercased()), path + "?castsim-probe=1",
                                                        body: method == "get" || method == "delete" ? nil : "{}",
                                                        contentType: method == "get" || method == "delete" ? nil : "application/json")
                    #expect(answer.status != 404 && answer.status != 405, "\(method) \(path): \(answer.status) \(answer.body.prefix(120))")
                }
            }
            let dashboard = try await http.get("/")
            #expect(dashboard.status == 200 && dashboard.headers["content-type"] == "text/html; charset=utf-8")
            let assets = ["dashboard.js", "dashboard-panels.js", "dashboard-log.js", "dashboard-live.js", "recording.js", "dashboard.css"]
            for asset in assets { #expect(dashboard.body.contains("\"\(asset)\""), "the page does not load \(asset)") }
            for asset in assets {
                let served = try await http.get("/\(asset)")
                let file = try String(contentsOf: Self.repository.appendingPathComponent("Sources/CastControl/Assets/\(asset)"), encoding: .utf8)
                #expect(served.status == 200 && served.body == file, "\(asset) is served as it is in the repository")
            }
        }
    }

    /// The component names every `#/components/schemas/NAME` reference in `value` names.
    static func references(in value: JSONValue) -> Set<String> {
        switch value {
        case .object(let members):
            var found = Set(members.values.flatMap { references(in: $0) })
            if let reference = members["$ref"]?.stringValue, reference.hasPrefix("#/components/schemas/") {
                found.insert(String(reference.dropFirst("#/components/schemas/".count)))
            }
            return found
        case .array(let elements): return Set(elements.flatMap { references(in: $0) })
        default: return []
        }
    }

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}
