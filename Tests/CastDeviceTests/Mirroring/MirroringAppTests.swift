import CastDevice
import CastScenario
import CastSimulatorTesting
import CastWire
import Foundation
import Testing

/// The mirroring app's control side (docs/protocol/streaming.md §1–§2): availability,
/// LAUNCH, OFFER → ANSWER once the media plane has a port, its error answers, and the
/// session's end.
@Suite("Cast Streaming: the mirroring apps and OFFER/ANSWER")
struct MirroringAppTests {
    static let webrtc = "urn:x-cast:com.google.cast.webrtc"
    static let sender = "streaming_sender-10000"

    /// An OFFER as Open Screen's `cast_sender` 1.2.0 sends it: Opus and VP8.
    static func offer(seqNum: Int = 1, changing: (inout [String: JSONValue]) -> Void = { _ in }) -> JSONValue {
        var audio: [String: JSONValue] = [
            "index": 0, "type": "audio_source", "codecName": "opus", "codecParameter": "", "rtpProfile": "cast",
            "rtpPayloadType": 127, "ssrc": 49762, "targetDelay": 400, "timeBase": "1/48000", "channels": 2, "bitRate": 192000,
            "aesKey": "64b3dfdfc2269f76210bc15de24bb9e0", "aesIvMask": "1afe9b46c66f48922954ecadcd0b95ab",
            "receiverRtcpEventLog": true, "receiverRtcpDscp": 34,
        ]
        changing(&audio)
        let video: JSONValue = [
            "index": 1, "type": "video_source", "codecName": "vp8", "codecParameter": "", "rtpProfile": "cast",
            "rtpPayloadType": 96, "ssrc": 63938, "targetDelay": 400, "timeBase": "1/90000", "channels": 1,
            "maxFrameRate": "30", "maxBitRate": 5050880, "resolutions": [["width": 1920, "height": 1080]],
            "aesKey": "f3c60af2647f7084959943258f6f3a69", "aesIvMask": "cadbe4d77d4980d4661a5ba84b505e42",
        ]
        return ["type": "OFFER", "seqNum": .number(Double(seqNum)),
                "offer": ["castMode": "mirroring", "supportedStreams": [.object(audio), video]]]
    }

    private func launchMirroring(_ harness: inout CastTestDevice, appId: String = "0F5096E8") -> (ConnectionID, String) {
        let (connection, transportId) = harness.launch(appId)
        harness.connect(connection, from: Self.sender, to: transportId)
        return (connection, transportId)
    }

    private func plans(_ harness: CastTestDevice) -> [StreamingPlan] {
        harness.events.compactMap { if case .streaming(.negotiating(let plan)) = $0.kind { plan } else { nil } }
    }

    @Test("Both mirroring apps are available, and LAUNCH lists the webrtc and remoting namespaces")
    func availableAndLaunched() throws {
        var harness = CastTestDevice()
        let connection = harness.open(1)
        harness.connect(connection)
        let availability = harness.send(connection, to: "receiver-0", CastNamespace.receiver,
                                        ["type": "GET_APP_AVAILABILITY", "appId": ["0F5096E8", "85CDB22F"], "requestId": 2])
        #expect(availability.first?.json["availability"] == ["0F5096E8": "APP_AVAILABLE", "85CDB22F": "APP_AVAILABLE"])
        let launched = harness.send(connection, to: "receiver-0", CastNamespace.receiver, ["type": "LAUNCH", "appId": "0F5096E8", "requestId": 3])
        let app = try #require(launched.last { $0.type == "RECEIVER_STATUS" }?.json["status"]?["applications"]?[0])
        #expect(app["appId"] == "0F5096E8" && app["displayName"] == "Chrome Mirroring")
        #expect(app["namespaces"] == [["name": .string(Self.webrtc)], ["name": "urn:x-cast:com.google.cast.remoting"]])
        #expect(app["sessionId"]?.stringValue?.isEmpty == false && app["transportId"] == app["sessionId"])
    }

    @Test("An OFFER is answered only once the media plane has its port: from the transport id, to the sender id, with its seqNum")
    func offerAnswer() throws {
        var harness = CastTestDevice()
        let (connection, transportId) = launchMirroring(&harness)
        let early = harness.send(connection, from: Self.sender, to: transportId, Self.webrtc, Self.offer(seqNum: 1))
        #expect(early.isEmpty)
        let plan = try #require(plans(harness).last)
        #expect(plan.connection == connection && plan.udpPort == 0)
        #expect(plan.streams.map(\.kind) == [.audio, .video] && plan.streams.map(\.codec) == ["opus", "vp8"])
        #expect(plan.streams.map(\.senderSsrc) == [49762, 63938] && plan.streams.map(\.receiverSsrc) == [49763, 63939])
        #expect(plan.streams[1].aesKey.prefix(2) == [0xf3, 0xc6] && plan.streams[1].aesIvMask.last == 0x42)
        #expect(plan.streams.map(\.rtpTimebase) == [48000, 90000] && plan.streams[0].targetDelayMilliseconds == 400)

        let answered = harness.apply(.streaming(.opened(session: plan.session, udpPort: 51234)))
        let answer = try #require(answered.first { $0.type == "ANSWER" })
        #expect(answer.envelope.sourceId == transportId && answer.envelope.destinationId == Self.sender && answer.to == [connection])
        #expect(answer.json["seqNum"] == 1 && answer.json["result"] == "ok")
        let body = try #require(answer.json["answer"])
        #expect(body["udpPort"] == 51234 && body["sendIndexes"] == [0, 1] && body["ssrcs"] == [49763, 63939])
        // Only the audio stream's OFFER asked for receiver event logs.
        #expect(plan.streams.map(\.rtcpEventLog) == [true, false] && body["receiverRtcpEventLog"] == [0])
        // None asked: the key is left out (an empty list is not what a receiver sends).
        var unlogged = CastTestDevice()
        let (other, otherTransport) = launchMirroring(&unlogged)
        _ = unlogged.send(other, from: Self.sender, to: otherTransport, Self.webrtc, Self.offer { $0["receiverRtcpEventLog"] = false })
        let otherPlan = try #require(plans(unlogged).last)
        let otherAnswer = unlogged.apply(.streaming(.opened(session: otherPlan.session, udpPort: 51235))).first { $0.type == "ANSWER" }
        #expect(otherAnswer?.json["answer"]?["udpPort"] == 51235 && otherAnswer?.json["answer"]?["receiverRtcpEventLog"] == nil)
        // Every constraint the sender checks: both halves, maxPixelsPerSecond, frame rates.
        #expect(body["constraints"]?["video"]?["maxPixelsPerSecond"] == 62_208_000)
        #expect(body["constraints"]?["video"]?["maxDimensions"] == ["width": 1920, "height": 1080, "frameRate": 30])
        #expect(body["constraints"]?["audio"]?["maxSampleRate"] == 48000 && body["constraints"]?["audio"]?["maxChannels"] == 2)
        #expect(body["display"]?["aspectRatio"] == "16:9" && body["display"]?["dimensions"]?["frameRate"] == 30)
        #expect(harness.events.contains { $0.kind == .streaming(.started(session: plan.session, udpPort: 51234)) })

        let panel = try #require(harness.snapshot.runningApp?.state.panel?["streaming"])
        #expect(panel["state"] == "streaming" && panel["udpPort"] == 51234 && panel["offers"] == 1)
    }

    @Test("Malformed OFFERs get the error ANSWER with their seqNum, and the next good OFFER is answered")
    func malformedOffers() throws {
        var harness = CastTestDevice()
        let (connection, transportId) = launchMirroring(&harness)
        let cases: [(JSONValue, Int, String)] = [
            (Self.offer(seqNum: 1) { $0["aesKey"] = nil }, 10105, "aesKey"),
            (Self.offer(seqNum: 2) { $0["aesIvMask"] = "00" }, 10105, "aesIvMask"),
            (Self.offer(seqNum: 3) { $0["ssrc"] = -4 }, 10092, "ssrc"),
            (Self.offer(seqNum: 4) { $0["timeBase"] = "48000" }, 10092, "timeBase"),
            (Self.offer(seqNum: 5) { $0["rtpPayloadType"] = 8 }, 10092, "rtpPayloadType"),
            (Self.offer(seqNum: 6) { $0["targetDelay"] = 0 }, 10092, "targetDelay"),
            (["type": "OFFER", "seqNum": 7, "offer": ["castMode": "remoting", "supportedStreams": []]], 10106, "Remoting"),
            (["type": "OFFER", "seqNum": 8, "offer": "no"], 10092, "offer"),
            (["type": "OFFER", "seqNum": 9, "offer": ["supportedStreams": [["index": 0, "type": "video_source", "codecName": "theora"]]]],
             10107, "select"),
        ]
        for (offer, code, mentions) in cases {
            let replies = harness.send(connection, from: Self.sender, to: transportId, Self.webrtc, offer)
            let answer = try #require(replies.first { $0.type == "ANSWER" }, "no ANSWER to \(offer.jsonText())")
            #expect(answer.json["seqNum"] == offer["seqNum"] && answer.json["result"] == "error")
            #expect(answer.json["error"]?["code"] == .number(Double(code)))
            #expect(answer.json["error"]?["description"]?.stringValue?.contains(mentions) == true, "\(answer.json.jsonText())")
            #expect(answer.json["answer"] == nil)
        }
        #expect(plans(harness).isEmpty)
        // An OFFER without a seqNum cannot be answered at all.
        #expect(harness.send(connection, from: Self.sender, to: transportId, Self.webrtc, ["type": "OFFER"]).isEmpty)
        _ = harness.send(connection, from: Self.sender, to: transportId, Self.webrtc, Self.offer(seqNum: 10))
        let plan = try #require(plans(harness).last)
        let answer = harness.apply(.streaming(.opened(session: plan.session, udpPort: 2344))).first { $0.type == "ANSWER" }
        #expect(answer?.json["result"] == "ok" && answer?.json["seqNum"] == 10)
    }

    @Test("GET_CAPABILITIES is answered: no remoting (10106), with its seqNum")
    func capabilities() throws {
        var harness = CastTestDevice()
        let (connection, transportId) = launchMirroring(&harness)
        // Chrome's handler id, connected to the transport as Chrome does.
        harness.connect(connection, from: "sender-42", to: transportId)
        let replies = harness.send(connection, from: "sender-42", to: transportId, Self.webrtc, ["type": "GET_CAPABILITIES", "seqNum": 2])
        #expect(replies.map(\.json) == [["type": "CAPABILITIES_RESPONSE", "seqNum": 2, "result": "error",
                                         "error": ["code": 10106, "description": "Remoting is not supported"]]])
        #expect(replies.first?.envelope.destinationId == "sender-42")
    }

    @Test("Chrome's OFFER (Opus, VP9, VP8) gets VP8; the audio-only app takes only the audio")
    func streamChoice() throws {
        var chrome = Self.offer()
        var streams = try #require(chrome["offer"]?["supportedStreams"]?.arrayValue)
        streams.insert(streams[1].replacing("codecName", with: "vp9").replacing("ssrc", with: 70000), at: 1)
        chrome = chrome.replacing("offer", with: ["supportedStreams": .array(streams)])
        var harness = CastTestDevice()
        let (connection, transportId) = launchMirroring(&harness)
        _ = harness.send(connection, from: Self.sender, to: transportId, Self.webrtc, chrome)
        #expect(plans(harness).last?.streams.map(\.codec) == ["opus", "vp8"])

        var audioOnly = CastTestDevice()
        let (audioConnection, audioTransport) = launchMirroring(&audioOnly, appId: "85CDB22F")
        _ = audioOnly.send(audioConnection, from: Self.sender, to: audioTransport, Self.webrtc, Self.offer())
        let plan = try #require(plans(audioOnly).last)
        #expect(plan.streams.map(\.kind) == [.audio])
        let answer = audioOnly.apply(.streaming(.opened(session: plan.session, udpPort: 9))).first { $0.type == "ANSWER" }
        #expect(answer?.json["answer"]?["sendIndexes"] == [0] && answer?.json["answer"]?["ssrcs"] == [49763])
    }

    @Test("The session ends, and says so, when the sender's connection closes, a new OFFER comes, or the media plane gives up")
    func sessionEnds() throws {
        func ended(_ harness: CastTestDevice) -> [String] {
            harness.events.compactMap { if case .streaming(.ended(_, let reason, _)) = $0.kind { reason } else { nil } }
        }
        var harness = CastTestDevice()
        let (connection, transportId) = launchMirroring(&harness)
        _ = harness.send(connection, from: Self.sender, to: transportId, Self.webrtc, Self.offer(seqNum: 1))
        let first = try #require(plans(harness).last)
        _ = harness.apply(.streaming(.opened(session: first.session, udpPort: 5000)))
        _ = harness.send(connection, from: Self.sender, to: transportId, Self.webrtc, Self.offer(seqNum: 2))
        #expect(ended(harness) == ["a new OFFER (seqNum 2) replaced it"])
        let second = try #require(plans(harness).last)
        #expect(second.session != first.session)
        // A late report about the first session changes nothing.
        #expect(harness.apply(.streaming(.opened(session: first.session, udpPort: 5001))).isEmpty)
        _ = harness.apply(.streaming(.opened(session: second.session, udpPort: 5002)))
        var counted = StreamingFigures(streams: [StreamingFigures.Stream(senderSsrc: 63938)])
        counted.streams[0].framesReceived = 42
        _ = harness.apply(.streaming(.figures(session: second.session, counted)))
        _ = harness.apply(.streaming(.ended(session: second.session, reason: "no RTP for 60 s")))
        #expect(ended(harness).last == "no RTP for 60 s")
        // The end carries the figures last reported, for the event stream.
        #expect(harness.events.last?.kind == .streaming(.ended(session: second.session, reason: "no RTP for 60 s", figures: counted)))
        #expect(harness.snapshot.runningApp?.state.panel?["streaming"]?["endReason"] == "no RTP for 60 s")

        var closing = CastTestDevice()
        let (streamer, transport) = launchMirroring(&closing)
        _ = closing.send(streamer, from: Self.sender, to: transport, Self.webrtc, Self.offer())
        _ = closing.close(streamer)
        #expect(ended(closing) == ["the sender's connection closed"])
    }

    @Test("A scenario's mirroring section: OFFERs refused with its code, or answered within its limits; the plan carries its network")
    func scenarioSection() throws {
        var refusing = try CastTestDevice(scenarioJSON: #"{"name": "x", "mirroring": {"refuseOffers": {"code": 10092, "description": "not today"}}}"#)
        let (connection, transportId) = launchMirroring(&refusing)
        let refused = refusing.send(connection, from: Self.sender, to: transportId, Self.webrtc, Self.offer(seqNum: 3))
        #expect(refused.first?.json == ["type": "ANSWER", "seqNum": 3, "result": "error", "error": ["code": 10092, "description": "not today"]])
        #expect(plans(refusing).isEmpty)

        var limited = try CastTestDevice(scenarioJSON: #"""
            {"name": "x", "mirroring": {"packetLoss": 5, "delay": 0.1, "feedback": false,
                                        "limits": {"maxWidth": 1280, "maxHeight": 720, "maxFrameRate": 25, "maxBitRate": 2000000}}}
            """#)
        let (streamer, transport) = launchMirroring(&limited)
        _ = limited.send(streamer, from: Self.sender, to: transport, Self.webrtc, Self.offer())
        let plan = try #require(plans(limited).last)
        #expect(plan.impairment == StreamingImpairment(packetLossPercent: 5, addedDelay: 0.1, feedback: false))
        let answer = try #require(limited.apply(.streaming(.opened(session: plan.session, udpPort: 7000))).first { $0.type == "ANSWER" })
        let video = try #require(answer.json["answer"]?["constraints"]?["video"])
        #expect(video["maxDimensions"] == ["width": 1280, "height": 720, "frameRate": 25] && video["maxBitRate"] == 2_000_000)
        #expect(video["maxPixelsPerSecond"] == .number(1280 * 720 * 25))
        #expect(answer.json["answer"]?["display"]?["aspectRatio"] == "16:9")
    }

    @Test("A mirroring action changes the network of the session under way (an event says how), refuses later OFFERs, or ends the session")
    func actions() throws {
        var harness = CastTestDevice()
        let (connection, transportId) = launchMirroring(&harness)
        _ = harness.send(connection, from: Self.sender, to: transportId, Self.webrtc, Self.offer(seqNum: 1))
        let plan = try #require(plans(harness).last)
        _ = harness.apply(.streaming(.opened(session: plan.session, udpPort: 7000)))
        _ = harness.apply(.app(AppAction(key: "mirroring", value: ["packetLoss": 20, "feedback": false])))
        #expect(harness.events.last?.kind == .streaming(.impaired(session: plan.session, StreamingImpairment(packetLossPercent: 20, feedback: false))))
        _ = harness.apply(.app(AppAction(key: "mirroring", value: ["endSession": "the TV changed input"])))
        guard case .streaming(.ended(plan.session, "the TV changed input", let figures))? = harness.events.last?.kind else {
            Issue.record("no end: \(String(describing: harness.events.last))")
            return
        }
        // The figures last reported come with the end (none were, here).
        #expect(figures == nil)
        _ = harness.apply(.app(AppAction(key: "mirroring", value: ["refuseOffers": true])))
        let refused = harness.send(connection, from: Self.sender, to: transportId, Self.webrtc, Self.offer(seqNum: 2))
        #expect(refused.first?.json["error"]?["code"] == 10107)
        _ = harness.apply(.app(AppAction(key: "mirroring", value: ["refuseOffers": false])))
        _ = harness.send(connection, from: Self.sender, to: transportId, Self.webrtc, Self.offer(seqNum: 3))
        #expect(plans(harness).count == 2 && plans(harness).last?.impairment.packetLossPercent == 20)
    }

    @Test("Bad mirroring sections and actions are refused with the path and what was expected")
    func badSettings() throws {
        let cases: [(String, String)] = [
            (#"{"packetLoss": 120}"#, "mirroring.packetLoss: expected a number from 0 to 100"),
            (#"{"feedback": "no"}"#, "mirroring.feedback: expected true or false"),
            (#"{"limits": {"maxWidth": 1}}"#, "mirroring.limits.maxWidth: expected an integer from 16 to 7680"),
            (#"{"refuseOffers": {"code": 5}}"#, "mirroring.refuseOffers.code: expected an integer from 10000 to 19999"),
            (#"{"endSession": true}"#, "mirroring.endSession: unknown key"),
            (#"{}"#, "mirroring: expected at least one of"),
        ]
        for (section, expected) in cases {
            let error = try #require(throws: ScenarioValidationError.self) {
                try Scenario.parse(Data(#"{"name": "x", "mirroring": \#(section)}"#.utf8))
            }
            #expect(error.issues.map(\.description).contains { $0.hasPrefix(expected) }, "\(section): \(error)")
        }
        let action = try #require(throws: ScenarioValidationError.self) {
            try Scenario.parse(Data(#"{"name": "x", "timeline": [{"at": "1s", "mirroring": {"endSession": 3}}]}"#.utf8))
        }
        #expect(action.issues.map(\.description).contains { $0.contains("timeline[0].mirroring.endSession: expected a non-empty string") }, "\(action)")
    }
}
