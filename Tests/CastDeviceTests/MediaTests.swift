import CastDevice
import CastWire
import CastSimulatorTesting
import Foundation
import Testing

@Suite("urn:x-cast:com.google.cast.media")
struct MediaTests {
    static let movie: JSONValue = [
        "contentId": "http://example.test/movie.mp4", "contentType": "video/mp4", "streamType": "BUFFERED",
        "duration": 100, "metadata": ["metadataType": 1, "title": "Big Buck Bunny"], "customData": ["drm": "none"],
    ]

    /// A device with the DMR running, connection 1 connected to it.
    private func launched() -> (CastTestDevice, ConnectionID, String) {
        var harness = CastTestDevice()
        let (connection, transportId) = harness.launch()
        return (harness, connection, transportId)
    }

    @discardableResult
    private func load(_ harness: inout CastTestDevice, _ connection: ConnectionID, _ transportId: String,
                      media: JSONValue = movie, extra: [String: JSONValue] = [:], requestId: Int = 5) -> [SentMessage] {
        var fields: [String: JSONValue] = ["type": "LOAD", "media": media, "requestId": .number(Double(requestId)),
                                           "sessionId": .string(transportId), "customData": [:]]
        fields.merge(extra) { _, new in new }
        return harness.send(connection, to: transportId, CastNamespace.media, .object(fields))
    }

    @discardableResult
    private func command(_ harness: inout CastTestDevice, _ connection: ConnectionID, _ transportId: String,
                         _ fields: [String: JSONValue]) -> [SentMessage] {
        harness.send(connection, to: transportId, CastNamespace.media, .object(fields))
    }

    /// The fields every MediaStatus must have (docs/protocol/media.md §4.1).
    private func expectAlwaysPresentFields(_ status: JSONValue?, sourceLocation: SourceLocation = #_sourceLocation) {
        for key in ["mediaSessionId", "playerState", "currentTime", "playbackRate", "supportedMediaCommands"] {
            #expect(status?[key] != nil, "missing \(key)", sourceLocation: sourceLocation)
        }
        #expect(status?["volume"]?["level"]?.doubleValue != nil, sourceLocation: sourceLocation)
        #expect(status?["volume"]?["muted"]?.boolValue != nil, sourceLocation: sourceLocation)
    }

    @Test("GET_STATUS without a session answers status: [] unicast")
    func getStatusNoSession() {
        var (harness, connection, transportId) = launched()
        let replies = command(&harness, connection, transportId, ["type": "GET_STATUS", "requestId": 4])
        #expect(replies.map(\.json) == [["type": "MEDIA_STATUS", "requestId": 4, "status": []]])
        #expect(replies[0].to == [connection] && replies[0].envelope.destinationId == "sender-0")
        #expect(replies[0].envelope.sourceId == transportId)
    }

    @Test("LOAD: IDLE + extendedStatus LOADING (requestId 0), then PLAYING with the LOAD requestId")
    func loadSequence() throws {
        var (harness, connection, transportId) = launched()
        let watcher = harness.open(2)
        harness.connect(watcher, from: "sender-9", to: transportId)
        let replies = load(&harness, connection, transportId)
        try #require(replies.count == 2)
        let loading = replies[0]
        #expect(loading.isBroadcast && loading.to == [connection, watcher] && loading.requestId == 0)
        #expect(loading.mediaStatus?["playerState"] == "IDLE")
        #expect(loading.mediaStatus?["extendedStatus"]?["playerState"] == "LOADING")
        #expect(loading.mediaStatus?["extendedStatus"]?["mediaSessionId"] == loading.mediaStatus?["mediaSessionId"])
        #expect(loading.mediaStatus?["idleReason"] == nil)
        expectAlwaysPresentFields(loading.mediaStatus)

        let loaded = replies[1]
        #expect(loaded.isBroadcast && loaded.requestId == 5)
        let status = try #require(loaded.mediaStatus)
        expectAlwaysPresentFields(status)
        #expect(status["playerState"] == "PLAYING")
        #expect(status["mediaSessionId"] == 1)
        #expect(status["currentItemId"] == 1)
        // ALL_BASIC_MEDIA | STREAM_TRANSFER without EDIT_TRACKS: this media has no tracks, no queue.
        #expect(status["supportedMediaCommands"] == 270351)
        #expect(status["activeTrackIds"] == [])
        #expect(status["volume"] == ["level": 1, "muted": false])
        #expect(status["customData"] == [:])
        // The media is echoed as sent, metadata and customData included.
        #expect(status["media"]?["metadata"] == ["metadataType": 1, "title": "Big Buck Bunny"])
        #expect(status["media"]?["customData"] == ["drm": "none"])
        #expect(status["media"]?["duration"] == 100)
        #expect(status["items"]?.arrayValue?.first?["itemId"] == 1)
        #expect(harness.device.nextDeadline != nil)
    }

    @Test("autoplay: only the JSON boolean false holds the player PAUSED (VLC sends the string \"false\")",
          arguments: [(JSONValue.bool(false), "PAUSED"), (.string("false"), "PLAYING"), (.bool(true), "PLAYING"), (.null, "PLAYING")])
    func autoplay(value: JSONValue, expected: String) {
        var (harness, connection, transportId) = launched()
        let replies = load(&harness, connection, transportId, extra: ["autoplay": value])
        #expect(replies.last?.mediaStatus?["playerState"] == .string(expected))
    }

    @Test("LOAD keeps currentTime, activeTrackIds, customData and credentials")
    func loadFields() throws {
        var (harness, connection, transportId) = launched()
        var media = Self.movie.objectValue!
        media["tracks"] = [["trackId": 2, "type": "TEXT", "subtype": "SUBTITLES", "language": "en"]]
        let replies = load(&harness, connection, transportId, media: .object(media), extra: [
            "currentTime": 42.5, "activeTrackIds": [2], "customData": ["token": "abc"],
            "credentials": "user-1", "credentialsType": "cloud",
        ])
        let status = try #require(replies.last?.mediaStatus)
        #expect(status["currentTime"] == 42.5)
        #expect(status["activeTrackIds"] == [2])
        #expect(status["customData"] == ["token": "abc"])
        let session = try #require(harness.snapshot.media)
        #expect(session.credentials == "user-1" && session.credentialsType == "cloud")
    }

    @Test("Without media.duration a BUFFERED item gets the configured default; LIVE has none")
    func durations() throws {
        var harness = CastTestDevice { $0.defaultMediaDuration = 30 }
        let (connection, transportId) = harness.launch()
        var replies = load(&harness, connection, transportId, media: ["contentId": "a.mp4", "contentType": "video/mp4"])
        #expect(replies.last?.mediaStatus?["media"]?["duration"] == 30)
        #expect(replies.last?.mediaStatus?["media"]?["streamType"] == "BUFFERED")
        replies = load(&harness, connection, transportId, media: ["contentId": "live.m3u8", "streamType": "LIVE"], requestId: 6)
        let live = try #require(replies.last?.mediaStatus)
        #expect(live["media"]?["duration"] == nil)
        #expect(harness.device.nextDeadline == nil, "live media never ends on its own")
        harness.advance(7200)
        #expect(harness.snapshot.media?.playerState == .playing)
    }

    @Test("The player clock: position = start + rate × elapsed, pauses hold it, the end gives IDLE/FINISHED")
    func playerClock() throws {
        var harness = CastTestDevice { $0.heartbeatInterval = nil; $0.idleTimeout = nil }
        let (connection, transportId) = harness.launch()
        load(&harness, connection, transportId)
        harness.advance(10)
        var status = command(&harness, connection, transportId, ["type": "GET_STATUS", "requestId": 6]).first?.mediaStatus
        #expect(status?["currentTime"] == 10)
        let paused = command(&harness, connection, transportId, ["type": "PAUSE", "mediaSessionId": 1, "requestId": 7])
        #expect(paused.count == 1 && paused[0].requestId == 7 && paused[0].isBroadcast)
        #expect(paused[0].mediaStatus?["playerState"] == "PAUSED" && paused[0].mediaStatus?["currentTime"] == 10)
        #expect(harness.device.nextDeadline == nil)
        harness.advance(50)
        let playing = command(&harness, connection, transportId, ["type": "PLAY", "mediaSessionId": 1, "requestId": 8])
        #expect(playing[0].mediaStatus?["playerState"] == "PLAYING" && playing[0].mediaStatus?["currentTime"] == 10)
        command(&harness, connection, transportId, ["type": "SET_PLAYBACK_RATE", "playbackRate": 2, "mediaSessionId": 1, "requestId": 9])
        harness.advance(20)
        status = command(&harness, connection, transportId, ["type": "GET_STATUS", "requestId": 10]).first?.mediaStatus
        #expect(status?["currentTime"] == 50)
        #expect(status?["playbackRate"] == 2)
        // 50 s of media left at rate 2: ends 25 s later, not before.
        #expect(harness.advance(24.9).isEmpty)
        let finished = harness.advance(0.1)
        try #require(finished.count == 1)
        #expect(finished[0].requestId == 0 && finished[0].isBroadcast)
        #expect(finished[0].mediaStatus?["playerState"] == "IDLE")
        #expect(finished[0].mediaStatus?["idleReason"] == "FINISHED")
        #expect(finished[0].mediaStatus?["currentTime"] == 100)
        expectAlwaysPresentFields(finished[0].mediaStatus)
        #expect(command(&harness, connection, transportId, ["type": "GET_STATUS", "requestId": 11]).first?.json["status"] == [])
    }

    @Test("SEEK: currentTime, relativeTime (takes precedence), resumeState, clamped to the media")
    func seek() {
        var (harness, connection, transportId) = launched()
        load(&harness, connection, transportId)
        var replies = command(&harness, connection, transportId,
                              ["type": "SEEK", "currentTime": 30, "resumeState": "PLAYBACK_PAUSE", "mediaSessionId": 1, "requestId": 6])
        #expect(replies.count == 1 && replies[0].requestId == 6)
        #expect(replies[0].mediaStatus?["currentTime"] == 30 && replies[0].mediaStatus?["playerState"] == "PAUSED")
        replies = command(&harness, connection, transportId,
                          ["type": "SEEK", "currentTime": 0, "relativeTime": -10, "resumeState": "PLAYBACK_START", "mediaSessionId": 1, "requestId": 7])
        #expect(replies[0].mediaStatus?["currentTime"] == 20 && replies[0].mediaStatus?["playerState"] == "PLAYING")
        replies = command(&harness, connection, transportId, ["type": "SEEK", "currentTime": 500, "resumeState": "", "mediaSessionId": 1, "requestId": 8])
        #expect(replies[0].mediaStatus?["currentTime"] == 100)
        replies = command(&harness, connection, transportId, ["type": "SEEK", "currentTime": 5, "resumeState": "REWIND", "mediaSessionId": 1, "requestId": 9])
        #expect(replies.map(\.json) == [["type": "INVALID_REQUEST", "requestId": 9, "reason": "INVALID_PARAMS"]])
        replies = command(&harness, connection, transportId, ["type": "SEEK", "mediaSessionId": 1, "requestId": 10])
        #expect(replies.first?.json["reason"] == "INVALID_PARAMS")
    }

    @Test("STOP gives IDLE/CANCELLED with the requestId; later GET_STATUS is []")
    func stop() {
        var (harness, connection, transportId) = launched()
        load(&harness, connection, transportId)
        let replies = command(&harness, connection, transportId, ["type": "STOP", "mediaSessionId": 1, "requestId": 6])
        #expect(replies.count == 1 && replies[0].requestId == 6 && replies[0].isBroadcast)
        #expect(replies[0].mediaStatus?["playerState"] == "IDLE" && replies[0].mediaStatus?["idleReason"] == "CANCELLED")
        #expect(command(&harness, connection, transportId, ["type": "GET_STATUS", "requestId": 7]).first?.json["status"] == [])
    }

    @Test("A new LOAD ends the old session with IDLE/INTERRUPTED first, then a new mediaSessionId")
    func loadInterrupts() throws {
        var (harness, connection, transportId) = launched()
        load(&harness, connection, transportId)
        let replies = load(&harness, connection, transportId, media: ["contentId": "second.mp4", "duration": 10], requestId: 6)
        try #require(replies.count == 3)
        #expect(replies[0].mediaStatus?["mediaSessionId"] == 1)
        #expect(replies[0].mediaStatus?["idleReason"] == "INTERRUPTED" && replies[0].requestId == 0)
        #expect(replies[1].mediaStatus?["mediaSessionId"] == 2 && replies[1].mediaStatus?["extendedStatus"] != nil)
        #expect(replies[2].mediaStatus?["mediaSessionId"] == 2 && replies[2].requestId == 6)
    }

    @Test("Stream volume (media SET_VOLUME) is separate from the device volume")
    func streamVolume() {
        var (harness, connection, transportId) = launched()
        load(&harness, connection, transportId)
        let replies = command(&harness, connection, transportId,
                              ["type": "SET_VOLUME", "volume": ["level": 0.25, "muted": true], "mediaSessionId": 1, "requestId": 6])
        #expect(replies[0].mediaStatus?["volume"] == ["level": 0.25, "muted": true] && replies[0].requestId == 6)
        #expect(harness.snapshot.volume == Volume(level: 1, muted: false))
    }

    @Test("SET_PLAYBACK_RATE: playbackRate or relativePlaybackRate, within the configured range")
    func playbackRate() {
        var (harness, connection, transportId) = launched()
        load(&harness, connection, transportId)
        var replies = command(&harness, connection, transportId, ["type": "SET_PLAYBACK_RATE", "playbackRate": 1.5, "mediaSessionId": 1, "requestId": 6])
        #expect(replies[0].mediaStatus?["playbackRate"] == 1.5)
        replies = command(&harness, connection, transportId, ["type": "SET_PLAYBACK_RATE", "relativePlaybackRate": 0.5, "mediaSessionId": 1, "requestId": 7])
        #expect(replies[0].mediaStatus?["playbackRate"] == 0.75)
        replies = command(&harness, connection, transportId, ["type": "SET_PLAYBACK_RATE", "playbackRate": 4, "mediaSessionId": 1, "requestId": 8])
        #expect(replies.map(\.json) == [["type": "INVALID_REQUEST", "requestId": 8, "reason": "INVALID_PARAMS"]])
        #expect(harness.snapshot.media?.playbackRate == 0.75)
    }

    @Test("Commands with no session → INVALID_PLAYER_STATE; a wrong mediaSessionId → INVALID_MEDIA_SESSION_ID",
          arguments: ["PLAY", "PAUSE", "STOP", "SEEK", "SET_VOLUME", "SET_PLAYBACK_RATE"])
    func sessionErrors(type: String) {
        var (harness, connection, transportId) = launched()
        var replies = command(&harness, connection, transportId, ["type": .string(type), "mediaSessionId": 1, "requestId": 6])
        #expect(replies.map(\.json) == [["type": "INVALID_PLAYER_STATE", "requestId": 6]])
        #expect(replies[0].to == [connection] && !replies[0].isBroadcast)
        load(&harness, connection, transportId)
        replies = command(&harness, connection, transportId, ["type": .string(type), "mediaSessionId": 99, "requestId": 7])
        #expect(replies.map(\.json) == [["type": "INVALID_REQUEST", "requestId": 7, "reason": "INVALID_MEDIA_SESSION_ID"]])
        #expect(harness.snapshot.media?.playerState == .playing)
    }

    @Test("Bad LOADs: no media, a media without contentId, wrong types → INVALID_PARAMS; unknown types → INVALID_COMMAND")
    func badRequests() {
        var (harness, connection, transportId) = launched()
        for bad: JSONValue in [
            ["type": "LOAD", "requestId": 6],
            ["type": "LOAD", "media": ["contentType": "video/mp4"], "requestId": 6],
            ["type": "LOAD", "media": ["contentId": 12], "requestId": 6],
            ["type": "LOAD", "media": ["contentId": "x", "duration": "long"], "requestId": 6],
            ["type": "LOAD", "media": ["contentId": "x", "streamType": "SOMETIMES"], "requestId": 6],
            ["type": "LOAD", "media": ["contentId": "x"], "currentTime": "start", "requestId": 6],
        ] {
            let replies = harness.send(connection, to: transportId, CastNamespace.media, bad)
            #expect(replies.map(\.json) == [["type": "INVALID_REQUEST", "requestId": 6, "reason": "INVALID_PARAMS"]], "\(bad.jsonText())")
        }
        #expect(command(&harness, connection, transportId, ["type": "DANCE", "requestId": 7]).map(\.json)
            == [["type": "INVALID_REQUEST", "requestId": 7, "reason": "INVALID_COMMAND"]])
        // Text the parser refuses still has its requestId, and the reply carries it.
        let deep = String(repeating: #"{"a":"#, count: 33) + "1" + String(repeating: "}", count: 33)
        for (text, requestId) in [(#"{"type":"LOAD","customData":\#(deep),"requestId":8}"#, 8),
                                  (#"{"requestId":9,"type":"SEEK","currentTime":1e400}"#, 9)] {
            let envelope = CastEnvelope(sourceId: "sender-0", destinationId: transportId, namespace: CastNamespace.media, payload: .string(text))
            #expect(harness.sendRaw(connection, envelope).map(\.json) == [["type": "INVALID_REQUEST", "requestId": .number(Double(requestId)), "reason": "INVALID_COMMAND"]])
        }
        #expect(harness.snapshot.media == nil)
    }

    @Test("Every state change reaches every sender connected to the app; GET_STATUS only the asker")
    func multiSender() throws {
        var (harness, first, transportId) = launched()
        let second = harness.open(2)
        harness.connect(second, from: "sender-0")
        harness.connect(second, from: "sender-0", to: transportId)
        let loaded = load(&harness, first, transportId)
        #expect(loaded.allSatisfy { $0.to == [first, second] })
        let paused = command(&harness, first, transportId, ["type": "PAUSE", "mediaSessionId": 1, "requestId": 6])
        #expect(paused[0].to == [first, second])
        let status = harness.send(second, to: transportId, CastNamespace.media, ["type": "GET_STATUS", "requestId": 1])
        #expect(status[0].to == [second] && status[0].mediaStatus?["playerState"] == "PAUSED")
    }

    @Test("An hour of playback in manual time: no sleeping")
    func longPlayback() {
        var harness = CastTestDevice { $0.idleTimeout = nil }
        let (connection, transportId) = harness.launch()
        load(&harness, connection, transportId, media: ["contentId": "long.mp4", "duration": 3600])
        let sent = harness.advance(3600)
        #expect(sent.filter { $0.type == "MEDIA_STATUS" }.count == 1)
        #expect(sent.filter { $0.json["type"] == "PING" }.count == 720)
        #expect(harness.snapshot.media == nil)
    }
}

@Suite("Message size")
struct MessageSizeTests {
    @Test("A MEDIA_STATUS that would pass 64 KiB drops items, then the extendedStatus copy, then media")
    func trimsToFit() throws {
        var harness = CastTestDevice()
        let (connection, transportId) = harness.launch()
        let title = JSONValue.string(String(repeating: "t", count: 40_000))
        let replies = harness.send(connection, to: transportId, CastNamespace.media, [
            "type": "LOAD", "requestId": 3, "media": ["contentId": "a.mp4", "metadata": ["title": title]],
        ])
        try #require(replies.count == 2)
        for reply in replies {
            #expect(reply.envelope.utf8!.utf8.count <= 65536 - 1024)
            #expect(reply.mediaStatus?["media"]?["metadata"]?["title"] == title)
            #expect(reply.mediaStatus?["items"] == nil)
            #expect(reply.mediaStatus?["extendedStatus"] == nil)
        }
        let huge = JSONValue.string(String(repeating: "h", count: 65_000))
        let more = harness.send(connection, to: transportId, CastNamespace.media, [
            "type": "LOAD", "requestId": 4, "media": ["contentId": "b.mp4", "customData": ["blob": huge]],
        ])
        let last = try #require(more.last)
        #expect(last.requestId == 4 && last.mediaStatus?["media"] == nil && last.mediaStatus?["mediaSessionId"] == 2)
    }
}
