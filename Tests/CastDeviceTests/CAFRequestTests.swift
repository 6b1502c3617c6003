import CastDevice
import CastSimulatorTesting
import CastWire
import Foundation
import Testing

/// CAF's requests beyond playback and queues (docs/protocol/media.md §2.2, §2.3, §5.1, §7):
/// the Chrome-internal names, stream transfer, user actions, credentials and the Assistant's.
@Suite("CAF requests: Chrome's internal names, STORE/RESUME_SESSION, USER_ACTION, SET_CREDENTIALS and the rest")
struct CAFRequestTests {
    static let song = "http://example.test/song.mp3"

    /// The DMR on connection 1, a second sender on connection 2, a queue of two songs
    /// loaded (the first with LIKE and FLAG in the catalog) and playing.
    private func playing(userActions: [String] = ["LIKE", "FLAG"]) -> (CastTestDevice, ConnectionID, ConnectionID, String) {
        var harness = CastTestDevice { configuration in
            var liked = MediaLoadBehaviour(duration: 200)
            liked.userActions = userActions
            configuration.mediaCatalog.add(Self.song, liked)
        }
        let (connection, transportId) = harness.launch()
        let watcher = harness.open(2)
        harness.connect(watcher, from: "sender-9", to: transportId)
        _ = harness.send(connection, to: transportId, CastNamespace.media, [
            "type": "QUEUE_LOAD", "requestId": 2, "customData": ["account": "a1"],
            "items": [["media": ["contentId": .string(Self.song), "contentType": "audio/mp3", "streamType": "BUFFERED"]],
                      ["media": ["contentId": "http://example.test/b.mp3", "contentType": "audio/mp3", "streamType": "BUFFERED"]]],
        ])
        return (harness, connection, watcher, transportId)
    }

    private func send(_ harness: inout CastTestDevice, _ connection: ConnectionID, _ transportId: String, _ payload: JSONValue) -> [SentMessage] {
        harness.send(connection, to: transportId, CastNamespace.media, payload)
    }

    /// Each of `bad` is refused with INVALID_PARAMS and its own requestId, and the player plays on.
    private func expectInvalidParams(_ harness: inout CastTestDevice, _ connection: ConnectionID, _ transportId: String, _ bad: [JSONValue],
                                     sourceLocation: SourceLocation = #_sourceLocation) {
        for payload in bad {
            #expect(send(&harness, connection, transportId, payload).map(\.json)
                == [["type": "INVALID_REQUEST", "requestId": payload["requestId"] ?? 0, "reason": "INVALID_PARAMS"]], "\(payload.jsonText())",
                sourceLocation: sourceLocation)
        }
        #expect(harness.snapshot.media?.playerState == .playing, sourceLocation: sourceLocation)
    }

    @Test("supportedMediaCommands: one table of named bits; ALL_BASIC_MEDIA plus STREAM_TRANSFER is 274447")
    func commandTable() {
        #expect(MediaCommands(rawValue: 274_447).commandNames
            == ["PAUSE", "SEEK", "STREAM_VOLUME", "STREAM_MUTE", "EDIT_TRACKS", "PLAYBACK_RATE", "STREAM_TRANSFER"])
        #expect(MediaCommands.allBasicMedia.rawValue == 12_303 && MediaCommands.all.rawValue == 524_287)
        #expect(MediaCommands(rawValue: 512 | 524_288).commandNames == ["SKIP_AD", "BIT_524288"])
    }

    @Test("MEDIA_GET_STATUS, MEDIA_SET_VOLUME and STOP_MEDIA (fx_cast puts them on the wire) are answered as GET_STATUS, SET_VOLUME, STOP")
    func chromeInternalNames() throws {
        var (harness, connection, _, transportId) = playing()
        let session = try #require(harness.snapshot.media?.mediaSessionId)
        let status = send(&harness, connection, transportId, ["type": "MEDIA_GET_STATUS", "requestId": 11])
        #expect(status.map(\.type) == ["MEDIA_STATUS"] && status[0].requestId == 11 && status[0].to == [connection])
        let volume = send(&harness, connection, transportId, ["type": "MEDIA_SET_VOLUME", "requestId": 12,
                                                               "mediaSessionId": .number(Double(session)), "volume": ["level": 0.25]])
        #expect(volume.last?.requestId == 12 && volume.last?.mediaStatus?["volume"]?["level"] == 0.25)
        let stop = send(&harness, connection, transportId, ["type": "STOP_MEDIA", "requestId": 13, "mediaSessionId": .number(Double(session))])
        #expect(stop.last?.requestId == 13 && stop.last?.mediaStatus?["idleReason"] == "CANCELLED")
    }

    @Test("STORE_SESSION answers SESSION_STATE to the asker; RESUME_SESSION of it on another device plays on from there")
    func streamTransfer() throws {
        var (source, connection, _, transportId) = playing()
        _ = source.send(connection, to: transportId, CastNamespace.media, ["type": "SET_PLAYBACK_RATE", "requestId": 3, "playbackRate": 1.5])
        _ = source.advance(20)
        let reply = send(&source, connection, transportId, [
            "type": "STORE_SESSION", "requestId": 4,
            "targetDeviceCapabilities": ["assistant_supported": true, "display_supported": true, "is_group": false],
        ])
        try #require(reply.count == 1)
        #expect(reply[0].type == "SESSION_STATE" && reply[0].requestId == 4 && reply[0].to == [connection] && !reply[0].isBroadcast)
        let load = try #require(reply[0].json["sessionState"]?["loadRequestData"])
        #expect(load["currentTime"] == 30 && load["playbackRate"] == 1.5 && load["autoplay"] == true)
        #expect(load["media"]?["contentId"]?.stringValue == Self.song && load["customData"] == ["account": "a1"])
        #expect(load["queueData"]?["items"]?.arrayValue?.count == 2 && load["queueData"]?["startIndex"] == 0)
        // The source plays on until whoever moves the session stops it.
        #expect(source.snapshot.media?.playerState == .playing)

        var target = CastTestDevice()
        let (other, otherTransport) = target.launch()
        let resumed = target.send(other, to: otherTransport, CastNamespace.media,
                                  ["type": "RESUME_SESSION", "requestId": 9, "sessionState": reply[0].json["sessionState"]!])
        let answer = try #require(resumed.last { $0.requestId == 9 }?.mediaStatus)
        #expect(answer["playerState"] == "PLAYING" && answer["currentTime"] == 30 && answer["playbackRate"] == 1.5)
        #expect(answer["customData"] == ["account": "a1"] && target.snapshot.media?.items.count == 2)
        // Bad input: the error reply with the request's id; nothing changes.
        expectInvalidParams(&target, other, otherTransport, [
            ["type": "RESUME_SESSION", "requestId": 10], ["type": "RESUME_SESSION", "requestId": 10, "sessionState": []],
            ["type": "RESUME_SESSION", "requestId": 10, "sessionState": ["loadRequestData": ["autoplay": true]]],
        ])
        var idle = CastTestDevice()
        let (lonely, lonelyTransport) = idle.launch()
        #expect(idle.send(lonely, to: lonelyTransport, CastNamespace.media, ["type": "STORE_SESSION", "requestId": 5]).map(\.json)
            == [["type": "INVALID_PLAYER_STATE", "requestId": 5]])
    }

    @Test("USER_ACTION: the item's userActionStates to every sender, cleared again; its bits in supportedMediaCommands; others refused")
    func userActions() throws {
        var (harness, connection, watcher, transportId) = playing()
        let status = try #require(send(&harness, connection, transportId, ["type": "GET_STATUS", "requestId": 3]).first?.mediaStatus)
        let bits = try #require(status["supportedMediaCommands"]?.intValue)
        #expect(bits & 16_384 != 0 && bits & (32_768 | 65_536 | 131_072) == 0)
        let liked = send(&harness, connection, transportId, ["type": "USER_ACTION", "requestId": 4, "userAction": "LIKE",
                                                              "userActionContext": "TRACK", "customData": ["by": "me"]])
        let answer = try #require(liked.last)
        #expect(answer.requestId == 4 && answer.isBroadcast && answer.to.contains(watcher))
        #expect(answer.mediaStatus?["media"]?["userActionStates"] == [["userAction": "LIKE", "customData": ["by": "me"]]])
        let flagged = send(&harness, connection, transportId, ["type": "USER_ACTION", "requestId": 5, "userAction": "FLAG"])
        #expect(flagged.last?.mediaStatus?["media"]?["userActionStates"]?.arrayValue?.count == 2)
        let cleared = send(&harness, connection, transportId, ["type": "USER_ACTION", "requestId": 6, "userAction": "LIKE", "clear": true])
        #expect(cleared.last?.mediaStatus?["media"]?["userActionStates"] == [["userAction": "FLAG"]])
        #expect(send(&harness, connection, transportId, ["type": "USER_ACTION", "requestId": 7, "userAction": "FOLLOW"]).map(\.json)
            == [["type": "ERROR", "requestId": 7, "reason": "NOT_SUPPORTED"]])
        expectInvalidParams(&harness, connection, transportId, [
            ["type": "USER_ACTION", "requestId": 8], ["type": "USER_ACTION", "requestId": 8, "userAction": 1],
            ["type": "USER_ACTION", "requestId": 8, "userAction": "LOVE"],
            ["type": "USER_ACTION", "requestId": 8, "userAction": "LIKE", "userActionContext": "MOOD"],
            ["type": "USER_ACTION", "requestId": 8, "userAction": "LIKE", "clear": "yes"],
        ])
    }

    @Test("SET_CREDENTIALS, DISPLAY_STATUS and PRELOAD answer MEDIA_STATUS; FOCUS_STATE and PRECACHE none; LOAD_BY_ENTITY is NOT_SUPPORTED")
    func assistantRequests() throws {
        var (harness, connection, _, transportId) = playing()
        let credentials = send(&harness, connection, transportId, ["type": "SET_CREDENTIALS", "requestId": 3, "credentials": "token-2"])
        #expect(credentials.last?.requestId == 3 && harness.snapshot.media?.credentials == "token-2")
        let display = send(&harness, connection, transportId, ["type": "DISPLAY_STATUS", "requestId": 4, "source": "what's playing"])
        #expect(display.map(\.type) == ["MEDIA_STATUS"] && display[0].requestId == 4 && display[0].to == [connection])
        let preload = send(&harness, connection, transportId, ["type": "PRELOAD", "requestId": 5, "itemId": 2])
        #expect(preload.last?.mediaStatus?["preloadedItemId"] == 2)
        #expect(send(&harness, connection, transportId, ["type": "FOCUS_STATE", "requestId": 6, "state": "NOT_IN_FOCUS"]).isEmpty)
        #expect(send(&harness, connection, transportId, ["type": "PRECACHE", "requestId": 7, "precacheData": "x"]).isEmpty)
        #expect(send(&harness, connection, transportId, ["type": "LOAD_BY_ENTITY", "requestId": 8, "entity": "spotify:album:1"]).map(\.json)
            == [["type": "ERROR", "requestId": 8, "reason": "NOT_SUPPORTED"]])
        expectInvalidParams(&harness, connection, transportId, [
            ["type": "SET_CREDENTIALS", "requestId": 9], ["type": "SET_CREDENTIALS", "requestId": 9, "credentials": 5],
            ["type": "FOCUS_STATE", "requestId": 9, "state": "BLURRY"], ["type": "PRELOAD", "requestId": 9],
            ["type": "PRELOAD", "requestId": 9, "itemId": 77], ["type": "LOAD_BY_ENTITY", "requestId": 9],
            ["type": "PRECACHE", "requestId": 9, "precacheData": 1],
        ])
    }

    @Test("CUSTOM_COMMAND: ERROR NOT_SUPPORTED by default; a scenario rule answers it as the app would")
    func customCommand() throws {
        var (harness, connection, _, transportId) = playing()
        #expect(send(&harness, connection, transportId, ["type": "CUSTOM_COMMAND", "requestId": 3, "data": "{\"skip\":1}"]).map(\.json)
            == [["type": "ERROR", "requestId": 3, "reason": "NOT_SUPPORTED"]])
        #expect(send(&harness, connection, transportId, ["type": "CUSTOM_COMMAND", "requestId": 4, "source": 7]).map(\.json)
            == [["type": "INVALID_REQUEST", "requestId": 4, "reason": "INVALID_PARAMS"]])
        var scripted = try CastTestDevice(scenarioJSON: #"""
            {"name": "app commands", "rules": [{"match": {"type": "CUSTOM_COMMAND"}, "action": "reply",
                                                "reply": {"type": "CUSTOM_COMMAND_RESULT", "ok": true}}]}
            """#)
        let (other, otherTransport) = scripted.launch()
        let answered = scripted.send(other, to: otherTransport, CastNamespace.media, ["type": "CUSTOM_COMMAND", "requestId": 5, "data": "x"])
        #expect(answered.map(\.type) == ["CUSTOM_COMMAND_RESULT"] && answered.first?.requestId == 5)
    }

    @Test("videoInfo: a video item's size and HDR type once it plays (catalog facts, else up to 1080p SDR); none for audio or on a speaker")
    func videoInfo() throws {
        func loaded(_ contentType: String, video: MediaSupport.Facts? = nil, speaker: Bool = false) -> JSONValue? {
            var harness = CastTestDevice { configuration in
                if speaker { DeviceProfile.nestMini.apply(to: &configuration) } else { DeviceProfile.chromecastUltra.apply(to: &configuration) }
                var behaviour = MediaLoadBehaviour()
                behaviour.video = video
                configuration.mediaCatalog.add("http://example.test/v", behaviour)
            }
            let (connection, transportId) = harness.launch()
            let replies = harness.send(connection, to: transportId, CastNamespace.media,
                                       ["type": "LOAD", "requestId": 2, "media": ["contentId": "http://example.test/v", "contentType": .string(contentType)]])
            let loading = replies.first { $0.mediaStatus?["playerState"] == "IDLE" }?.mediaStatus
            #expect(loading?["videoInfo"] == nil)
            return replies.last?.mediaStatus?["videoInfo"] ?? nil
        }
        #expect(loaded("video/mp4") == ["width": 1920, "height": 1080, "hdrType": "sdr"])
        #expect(loaded("video/mp4", video: .init(width: 3840, height: 2160, hdr: "dolby-vision")) == ["width": 3840, "height": 2160, "hdrType": "dv"])
        #expect(loaded("video/mp4", video: .init(width: 3840, height: 2160, hdr: "hdr10")) == ["width": 3840, "height": 2160, "hdrType": "hdr"])
        #expect(loaded("audio/mp3") == nil)
        #expect(loaded("video/mp4", speaker: true) == nil)
    }

    @Test("Wrong types in STORE_SESSION and SKIP_AD are INVALID_PARAMS with the request's id")
    func badTransferAndSkip() {
        var (harness, connection, _, transportId) = playing()
        expectInvalidParams(&harness, connection, transportId, [
            ["type": "STORE_SESSION", "requestId": 9, "targetDeviceCapabilities": "tv"],
            ["type": "SKIP_AD", "requestId": 9, "mediaSessionId": "one"],
            ["type": "USER_ACTION", "requestId": 9, "userAction": "LIKE", "mediaSessionId": []],
        ])
    }
}
