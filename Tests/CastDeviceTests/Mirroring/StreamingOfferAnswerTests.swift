import CastDevice
import CastWire
import Testing

/// OFFER reading and ANSWER building as pure functions, against the OFFERs of the Cast
/// Streaming reference (§2.2) and the sender's own checks of the reply (§2.3, §2.4): an
/// "ok" ANSWER the sender cannot use makes `cast_sender` abort, so none may leave castsim.
@Suite("Cast Streaming: OFFER fields, ANSWER fields and the sender's checks")
struct StreamingOfferAnswerTests {
    /// cast_sender 1.2.0's OFFER, as the reference quotes it (Opus and VP8).
    static let castSenderOffer = """
        {"type":"OFFER","seqNum":1,"offer":{"castMode":"mirroring","supportedStreams":[
         {"index":0,"type":"audio_source","codecName":"opus","codecParameter":"","rtpProfile":"cast",
          "rtpPayloadType":127,"ssrc":49762,"targetDelay":400,"timeBase":"1/48000","channels":2,"bitRate":192000,
          "aesKey":"64b3dfdfc2269f76210bc15de24bb9e0","aesIvMask":"1afe9b46c66f48922954ecadcd0b95ab",
          "receiverRtcpEventLog":true,"receiverRtcpDscp":34},
         {"index":1,"type":"video_source","codecName":"vp8","codecParameter":"","rtpProfile":"cast",
          "rtpPayloadType":96,"ssrc":63938,"targetDelay":400,"timeBase":"1/90000","channels":1,
          "maxFrameRate":"30","maxBitRate":5050880,"resolutions":[{"width":1920,"height":1080}],
          "profile":"","level":"","protection":"","errorRecoveryMode":"",
          "aesKey":"f3c60af2647f7084959943258f6f3a69","aesIvMask":"cadbe4d77d4980d4661a5ba84b505e42",
          "receiverRtcpEventLog":true,"receiverRtcpDscp":34}]}}
        """

    /// Chrome's OFFER as the reference derives it for Linux without a hardware encoder: Opus(0),
    /// VP9(1), VP8(2), a 200 ms target delay, no DSCP, the "auto" audio bit rate.
    static let chromeOffer = """
        {"type":"OFFER","seqNum":1,"offer":{"castMode":"mirroring","supportedStreams":[
         {"index":0,"type":"audio_source","codecName":"opus","rtpProfile":"cast","rtpPayloadType":127,"ssrc":1234,
          "targetDelay":200,"timeBase":"1/48000","channels":2,"bitRate":102000,"receiverRtcpEventLog":true,
          "aesKey":"00112233445566778899aabbccddeeff","aesIvMask":"ffeeddccbbaa99887766554433221100"},
         {"index":1,"type":"video_source","codecName":"vp9","rtpProfile":"cast","rtpPayloadType":96,"ssrc":60001,
          "targetDelay":200,"timeBase":"1/90000","maxFrameRate":"30","maxBitRate":5000000,"resolutions":[{"width":1920,"height":1080}],
          "receiverRtcpEventLog":true,"aesKey":"00112233445566778899aabbccddeeff","aesIvMask":"ffeeddccbbaa99887766554433221100"},
         {"index":2,"type":"video_source","codecName":"vp8","rtpProfile":"cast","rtpPayloadType":96,"ssrc":60002,
          "targetDelay":200,"timeBase":"1/90000","maxFrameRate":"30","maxBitRate":5000000,"resolutions":[{"width":1920,"height":1080}],
          "receiverRtcpEventLog":true,"aesKey":"00112233445566778899aabbccddeeff","aesIvMask":"ffeeddccbbaa99887766554433221100"}]}}
        """

    static func streams(_ chosen: [StreamingOffer.Stream]) -> [StreamingStream] {
        chosen.map {
            StreamingStream(kind: $0.kind, index: $0.index, codec: $0.codec, senderSsrc: $0.ssrc, receiverSsrc: StreamingAnswer.receiverSsrc(for: $0.ssrc),
                            rtpTimebase: $0.rtpTimebase, targetDelayMilliseconds: $0.targetDelayMilliseconds, aesKey: $0.aesKey,
                            aesIvMask: $0.aesIvMask, channels: $0.channels, maxFrameRate: $0.maxFrameRate, maxBitRate: $0.maxBitRate)
        }
    }

    /// The OFFER with one field of its first stream (or of the offer, or the message) changed.
    static func mutated(stream: Int = 0, in text: String = castSenderOffer, _ change: (inout [String: JSONValue]) -> Void) throws -> JSONValue {
        let offer = try JSONValue.parse(text)
        var streams = try #require(offer["offer"]?["supportedStreams"]?.arrayValue)
        var fields = try #require(streams[stream].objectValue)
        change(&fields)
        streams[stream] = .object(fields)
        return offer.replacing("offer", with: try #require(offer["offer"]).replacing("supportedStreams", with: .array(streams)))
    }

    @Test("cast_sender's OFFER: every field the media plane needs, read as the reference says")
    func castSenderOfferFields() throws {
        let offer = try StreamingOffer(JSONValue.parse(Self.castSenderOffer))
        #expect(offer.seqNum == 1 && offer.streams.count == 2)
        let audio = offer.streams[0]
        #expect(audio.kind == .audio && audio.index == 0 && audio.codec == "opus" && audio.payloadType == 127 && audio.ssrc == 49762)
        #expect(audio.rtpTimebase == 48000 && audio.targetDelayMilliseconds == 400 && audio.channels == 2 && audio.maxBitRate == 192000)
        #expect(audio.aesKey.count == 16 && audio.aesKey.first == 0x64 && audio.aesIvMask.last == 0xab)
        let video = offer.streams[1]
        #expect(video.kind == .video && video.index == 1 && video.codec == "vp8" && video.payloadType == 96 && video.ssrc == 63938)
        #expect(video.rtpTimebase == 90000 && video.channels == 1 && video.maxFrameRate == 30 && video.maxBitRate == 5_050_880)
        #expect(video.aesKey.first == 0xf3 && video.aesIvMask.first == 0xca)
    }

    @Test("cast_sender's OFFER gets the reference's minimal ANSWER fields: sendIndexes [0,1], ssrcs [49763,63939]; the whole ANSWER passes the sender's checks")
    func castSenderAnswer() throws {
        let offer = try StreamingOffer(JSONValue.parse(Self.castSenderOffer))
        let chosen = StreamingAnswer.choose(from: offer, video: true)
        let answer = StreamingAnswer.ok(seqNum: offer.seqNum, udpPort: 51234, streams: Self.streams(chosen), limits: StreamingLimits())
        #expect(answer["type"] == "ANSWER" && answer["seqNum"] == 1 && answer["result"] == "ok")
        #expect(answer["answer"]?["udpPort"] == 51234 && answer["answer"]?["sendIndexes"] == [0, 1] && answer["answer"]?["ssrcs"] == [49763, 63939])
        // The full form's figures for a 1080p30 receiver: 1920 × 1080 × 30 pixels a second.
        #expect(answer["answer"]?["constraints"]?["video"]?["maxPixelsPerSecond"] == 62_208_000)
        #expect(answer["answer"]?["display"]?["aspectRatio"] == "16:9")
        #expect(StreamingAnswerCheck.problems(in: answer, offer: offer) == [])
    }

    @Test("Chrome's OFFER (Opus, VP9, VP8, 200 ms): VP8 and Opus are taken, indexes 0 and 2, and the ANSWER passes the sender's checks")
    func chromeAnswer() throws {
        let offer = try StreamingOffer(JSONValue.parse(Self.chromeOffer))
        #expect(offer.streams.map(\.targetDelayMilliseconds) == [200, 200, 200] && offer.streams[1].channels == 1)
        let chosen = StreamingAnswer.choose(from: offer, video: true)
        #expect(chosen.map(\.index) == [0, 2] && chosen.map(\.codec) == ["opus", "vp8"])
        let answer = StreamingAnswer.ok(seqNum: 1, udpPort: 2344, streams: Self.streams(chosen), limits: StreamingLimits())
        #expect(answer["answer"]?["ssrcs"] == [1235, 60003])
        #expect(StreamingAnswerCheck.problems(in: answer, offer: offer) == [])
    }

    @Test("Malformed OFFERs are refused with the code the error ANSWER carries and the field at fault")
    func malformedOffers() throws {
        let cases: [(String, (inout [String: JSONValue]) -> Void, Int, String)] = [
            ("no aesKey", { $0["aesKey"] = nil }, 10105, "aesKey"),
            ("a 31-digit aesIvMask", { $0["aesIvMask"] = "1afe9b46c66f48922954ecadcd0b95a" }, 10105, "aesIvMask"),
            ("a non-hex aesKey", { $0["aesKey"] = "zzb3dfdfc2269f76210bc15de24bb9e0" }, 10105, "aesKey"),
            ("payload type 95", { $0["rtpPayloadType"] = 95 }, 10092, "supportedStreams[0].rtpPayloadType"),
            ("payload type 105", { $0["rtpPayloadType"] = 105 }, 10092, "rtpPayloadType"),
            ("a negative ssrc", { $0["ssrc"] = -1 }, 10092, "supportedStreams[0].ssrc"),
            ("an ssrc past 32 bits", { $0["ssrc"] = 4_294_967_296 }, 10092, "ssrc"),
            ("a time base over 2", { $0["timeBase"] = "2/48000" }, 10092, "supportedStreams[0].timeBase"),
            ("a number for a time base", { $0["timeBase"] = 48000 }, 10092, "timeBase"),
            ("target delay 0", { $0["targetDelay"] = 0 }, 10092, "supportedStreams[0].targetDelay"),
            ("zero channels", { $0["channels"] = 0 }, 10092, "supportedStreams[0].channels"),
            ("audio without bitRate", { $0["bitRate"] = nil }, 10092, "supportedStreams[0].bitRate"),
            ("no index", { $0["index"] = nil }, 10092, "supportedStreams[0].index"),
            ("no codecName", { $0["codecName"] = nil }, 10092, "supportedStreams[0].codecName"),
        ]
        for (name, change, code, field) in cases {
            let payload = try Self.mutated(change)
            let error = #expect(throws: StreamingOffer.Refusal.self, "\(name)") { try StreamingOffer(payload) }
            #expect(error?.code == code, "\(name): \(error?.description ?? "accepted")")
            #expect(error?.description.contains(field) == true, "\(name): \(error?.description ?? "accepted")")
        }
        let video: [(String, (inout [String: JSONValue]) -> Void, String)] = [
            ("a frame rate of 0", { $0["maxFrameRate"] = "0" }, "supportedStreams[1].maxFrameRate"),
            ("a frame rate that is no number", { $0["maxFrameRate"] = "thirty" }, "maxFrameRate"),
            ("a negative maxBitRate", { $0["maxBitRate"] = -5 }, "supportedStreams[1].maxBitRate"),
        ]
        for (name, change, field) in video {
            let payload = try Self.mutated(stream: 1, change)
            let error = #expect(throws: StreamingOffer.Refusal.self, "\(name)") { try StreamingOffer(payload) }
            #expect(error?.code == 10092 && error?.description.contains(field) == true, "\(name): \(error?.description ?? "accepted")")
        }
        // The message around the streams.
        let base = try JSONValue.parse(Self.castSenderOffer)
        let messages: [(JSONValue, Int, String)] = [
            (base.replacing("seqNum", with: -1), 10092, "seqNum"),
            (base.removing("offer"), 10092, "offer"),
            (base.replacing("offer", with: ["supportedStreams": "none"]), 10092, "offer.supportedStreams"),
            (base.replacing("offer", with: ["castMode": "remoting", "supportedStreams": []]), 10106, "Remoting"),
            (base.replacing("offer", with: ["castMode": "broadcast", "supportedStreams": []]), 10092, "offer.castMode"),
        ]
        for (payload, code, text) in messages {
            let error = #expect(throws: StreamingOffer.Refusal.self) { try StreamingOffer(payload) }
            #expect(error?.code == code && error?.description.contains(text) == true, "\(error?.description ?? "accepted")")
        }
    }

    @Test("Tolerance: unknown fields, unknown types and codecs (REMOTE_VIDEO) leave the rest; defaults for what is absent or out of range")
    func tolerance() throws {
        var offer = try StreamingOffer(Self.mutated(stream: 1) { $0["codecName"] = "REMOTE_VIDEO"; $0["somethingNew"] = ["x": 1] })
        #expect(offer.streams.map(\.codec) == ["opus"])
        offer = try StreamingOffer(Self.mutated(stream: 1) { $0["type"] = "data_source" })
        #expect(offer.streams.map(\.codec) == ["opus"])
        // Codec names are matched without regard to case.
        offer = try StreamingOffer(Self.mutated(stream: 1) { $0["codecName"] = "VP8" })
        #expect(offer.streams.map(\.codec) == ["opus", "vp8"])
        // targetDelay outside 0…5000, or absent: 400.
        for delay: JSONValue? in [-3, 5001, nil] {
            offer = try StreamingOffer(Self.mutated { $0["targetDelay"] = delay })
            #expect(offer.streams[0].targetDelayMilliseconds == 400)
        }
        offer = try StreamingOffer(Self.mutated { $0["targetDelay"] = 5000 })
        #expect(offer.streams[0].targetDelayMilliseconds == 5000)
        // Channels default to 2 for audio and 1 for video; video's frame rate to 30, its bit rate to 4 Mi.
        offer = try StreamingOffer(Self.mutated { $0["channels"] = nil })
        #expect(offer.streams[0].channels == 2)
        offer = try StreamingOffer(Self.mutated(stream: 1) { $0["channels"] = nil; $0["maxFrameRate"] = nil; $0["maxBitRate"] = nil })
        #expect(offer.streams[1].channels == 1 && offer.streams[1].maxFrameRate == 30 && offer.streams[1].maxBitRate == 4 << 20)
        offer = try StreamingOffer(Self.mutated(stream: 1) { $0["maxFrameRate"] = "30000/1001" })
        #expect(offer.streams[1].maxFrameRate.map { abs($0 - 29.97) < 0.001 } == true)
        // No castMode is mirroring; the legacy receiverGetStatus is ignored.
        let legacy = try JSONValue.parse(Self.castSenderOffer)
        let offerBody = try #require(legacy["offer"]).removing("castMode").replacing("receiverGetStatus", with: true)
        #expect(try StreamingOffer(legacy.replacing("offer", with: offerBody)).streams.count == 2)
        // Nothing a mirroring receiver takes: no stream chosen, which the app answers with 10107.
        offer = try StreamingOffer(Self.mutated(stream: 1) { $0["codecName"] = "REMOTE_VIDEO" })
        #expect(StreamingAnswer.choose(from: offer, video: true).map(\.codec) == ["opus"])
        let none = try StreamingOffer(JSONValue.parse(#"{"type":"OFFER","seqNum":3,"offer":{"supportedStreams":[]}}"#))
        #expect(StreamingAnswer.choose(from: none, video: true).isEmpty)
    }

    @Test("The error ANSWER and the CAPABILITIES_RESPONSE are the reference's, field for field")
    func errorForms() throws {
        let error = StreamingAnswer.error(seqNum: 1, code: 10107, description: "Failed to select any streams from OFFER")
        #expect(error == (try JSONValue.parse(
            #"{"type":"ANSWER","seqNum":1,"result":"error","error":{"code":10107,"description":"Failed to select any streams from OFFER"}}"#)))
        #expect(StreamingAnswer.capabilities(seqNum: 2) == (try JSONValue.parse(
            #"{"type":"CAPABILITIES_RESPONSE","seqNum":2,"result":"error","error":{"code":10106,"description":"Remoting is not supported"}}"#)))
        #expect(StreamingAnswerCheck.problems(in: error) == [] && StreamingAnswerCheck.problems(in: StreamingAnswer.capabilities(seqNum: 2)) == [])
        #expect(StreamingOffer.Refusal.parameterInvalid == 10092 && StreamingOffer.Refusal.unencryptedOffer == 10105)
    }

    @Test("The reference's minimal and full ANSWERs and its remoting CAPABILITIES_RESPONSE pass the sender's checks")
    func referenceRepliesPass() throws {
        let offer = try StreamingOffer(JSONValue.parse(Self.castSenderOffer))
        let minimal = try JSONValue.parse("""
            {"type":"ANSWER","seqNum":1,"result":"ok",
             "answer":{"udpPort":51234,"sendIndexes":[0,1],"ssrcs":[49763,63939]}}
            """)
        let full = try JSONValue.parse("""
            {"type":"ANSWER","seqNum":1,"result":"ok","answer":{
              "udpPort":51234,"sendIndexes":[0,1],"ssrcs":[49763,63939],
              "constraints":{
                "audio":{"maxSampleRate":48000,"maxChannels":2,"minBitRate":32000,"maxBitRate":256000,"maxDelay":400},
                "video":{"maxPixelsPerSecond":62208000,"minBitRate":300000,"maxBitRate":8000000,"maxDelay":400,
                         "maxDimensions":{"width":1920,"height":1080,"frameRate":"30"}}},
              "display":{"dimensions":{"width":1280,"height":720,"frameRate":"30"},"aspectRatio":"16:9","scaling":"sender"},
              "receiverRtcpEventLog":[0,1],"receiverRtcpDscp":[0,1]}}
            """)
        let remoting = try JSONValue.parse("""
            {"type":"CAPABILITIES_RESPONSE","seqNum":2,"result":"ok","capabilities":{"remoting":2,
             "mediaCaps":["audio","aac","opus","video","4k","h264","vp8","vp9","hevc","av1"]}}
            """)
        #expect(StreamingAnswerCheck.problems(in: minimal, offer: offer) == [])
        #expect(StreamingAnswerCheck.problems(in: full, offer: offer) == [])
        #expect(StreamingAnswerCheck.problems(in: remoting) == [])
        // The full form with its frame rate written as a fraction, as the sender also reads it.
        let fraction = full.replacing("answer", with: try #require(full["answer"]).replacing(
            "display", with: ["dimensions": ["width": 1280, "height": 720, "frameRate": "30000/1001"]]))
        #expect(StreamingAnswerCheck.problems(in: fraction, offer: offer) == [])
    }

    @Test("The sender's checks catch the ANSWERs that abort cast_sender: constraints without maxPixelsPerSecond, dimensions without frameRate, and the rest")
    func checkCatchesCrashes() throws {
        let offer = try StreamingOffer(JSONValue.parse(Self.castSenderOffer))
        let good = StreamingAnswer.ok(seqNum: 1, udpPort: 51234, streams: Self.streams(StreamingAnswer.choose(from: offer, video: true)),
                                      limits: StreamingLimits())
        let answer = try #require(good["answer"])
        func with(_ change: (JSONValue) -> JSONValue) -> [String] {
            StreamingAnswerCheck.problems(in: good.replacing("answer", with: change(answer)), offer: offer)
        }
        let constraints = try #require(answer["constraints"])
        let video = try #require(constraints["video"])
        let display = try #require(answer["display"])
        let cases: [(String, (JSONValue) -> JSONValue, String)] = [
            ("no maxPixelsPerSecond", { $0.replacing("constraints", with: constraints.replacing("video", with: video.removing("maxPixelsPerSecond"))) },
             "maxPixelsPerSecond"),
            ("maxDimensions without frameRate", {
                $0.replacing("constraints", with: constraints.replacing("video", with: video.replacing("maxDimensions", with: ["width": 1920, "height": 1080])))
            }, "maxDimensions.frameRate"),
            ("display dimensions without frameRate", { $0.replacing("display", with: display.replacing("dimensions", with: ["width": 1280, "height": 720])) },
             "display.dimensions.frameRate"),
            ("scaling sender alone", { $0.replacing("display", with: ["scaling": "sender"]) }, "display.scaling"),
            ("constraints without audio", { $0.replacing("constraints", with: constraints.removing("audio")) }, "constraints"),
            ("video maxBitRate equal to minBitRate", {
                $0.replacing("constraints", with: constraints.replacing("video", with: video.replacing("maxBitRate", with: 300_000)))
            }, "video.maxBitRate"),
            ("fewer ssrcs than indexes", { $0.replacing("ssrcs", with: [49763]) }, "ssrcs"),
            ("the sender's own SSRC", { $0.replacing("ssrcs", with: [49762, 63939]) }, "sender's own SSRC"),
            ("no index", { $0.replacing("sendIndexes", with: []).replacing("ssrcs", with: []) }, "sendIndexes"),
            ("an index not offered", { $0.replacing("sendIndexes", with: [0, 7]) }, "no stream of the OFFER"),
            ("port 0", { $0.replacing("udpPort", with: 0) }, "udpPort"),
        ]
        for (name, change, field) in cases {
            let problems = with(change)
            #expect(problems.contains { $0.contains(field) }, "\(name): \(problems)")
        }
        // Without result the reply is an error one; an "ok" CAPABILITIES_RESPONSE needs known mediaCaps.
        #expect(StreamingAnswerCheck.problems(in: good.removing("result")) == [])
        let capabilities: JSONValue = ["type": "CAPABILITIES_RESPONSE", "seqNum": 2, "result": "ok",
                                       "capabilities": ["remoting": 2, "mediaCaps": ["audio", "opus", "video", "vp8"]]]
        #expect(StreamingAnswerCheck.problems(in: capabilities) == [])
        #expect(!StreamingAnswerCheck.problems(in: capabilities.replacing("capabilities", with: ["mediaCaps": []])).isEmpty)
        #expect(!StreamingAnswerCheck.problems(in: capabilities.replacing("capabilities", with: ["remoting": 3, "mediaCaps": ["vp8"]])).isEmpty)
        #expect(!StreamingAnswerCheck.problems(in: capabilities.replacing("capabilities", with: ["mediaCaps": ["mpeg2"]])).isEmpty)
    }

    @Test("Every ANSWER castsim builds within the limits a scenario may set passes the sender's checks")
    func everyAnswerPasses() throws {
        var generator = IdentifierGenerator(seed: 28)
        let offers = try [Self.castSenderOffer, Self.chromeOffer].map { try StreamingOffer(JSONValue.parse($0)) }
        for round in 0..<500 {
            var limits = StreamingLimits()
            // The ranges of the scenario's mirroring.limits (MirroringChange).
            limits.maxWidth = Int.random(in: 16...7680, using: &generator)
            limits.maxHeight = Int.random(in: 16...4320, using: &generator)
            limits.maxFrameRate = Int.random(in: 1...120, using: &generator)
            limits.maxVideoBitRate = Int.random(in: 300_001...100_000_000, using: &generator)
            for offer in offers {
                for video in [true, false] {
                    let chosen = StreamingAnswer.choose(from: offer, video: video)
                    let answer = StreamingAnswer.ok(seqNum: round, udpPort: Int.random(in: 1...65535, using: &generator),
                                                    streams: Self.streams(chosen), limits: limits)
                    let problems = StreamingAnswerCheck.problems(in: answer, offer: offer)
                    #expect(problems.isEmpty, "\(limits): \(problems)")
                }
            }
        }
    }
}
