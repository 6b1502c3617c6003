import CastDevice
import CastSimulatorTesting
import CastWire
import Foundation
import Testing

@Suite("Requests decoded at the edge: paths, wrong types, request ids, answers that do not fit")
struct RequestDecodingTests {
    @Test("A bad field is refused with INVALID_PARAMS and logged with its path; nothing is broadcast")
    func pathInTheLog() {
        var media = TestMediaSender()
        let tracks: JSONValue = [["trackId": 1, "type": "TEXT"], ["trackId": 2, "type": "AUDIO"], ["trackId": "2", "type": "TEXT"]]
        let replies = media.send(["type": "LOAD", "requestId": 40, "media": ["contentId": "a.mp4", "tracks": tracks]])
        #expect(replies.map(\.json) == [["type": "INVALID_REQUEST", "requestId": 40, "reason": "INVALID_PARAMS"]])
        #expect(media.device.logs.contains { $0.message.contains(#"media.tracks[2].trackId: expected an integer, got "2""#) })
        #expect(media.session == nil)
    }

    @Test("Known fields of the wrong type are refused instead of echoed to every sender", arguments: [
        ("contentType", JSONValue.number(9.2e18), "media.contentType: expected a string, got a number (9.2e+18)"),
        ("metadata", JSONValue.number(5), "media.metadata: expected an object, got a number (5)"),
        ("contentUrl", JSONValue.bool(true), "media.contentUrl: expected a string, got a boolean (true)"),
        ("customData", JSONValue.string("x"), #"media.customData: expected an object, got "x""#),
        ("metadata", JSONValue.object(["metadataType": "movie"]), #"media.metadata.metadataType: expected an integer, got "movie""#),
    ])
    func wrongTypes(key: String, value: JSONValue, logged: String) {
        var media = TestMediaSender()
        let watcher = media.device.open(2)
        media.device.connect(watcher, to: media.transportId)
        var mediaFields: [String: JSONValue] = ["contentId": "a.mp4"]
        mediaFields[key] = value
        let replies = media.send(["type": "LOAD", "requestId": 41, "media": .object(mediaFields)])
        #expect(replies.map(\.json) == [["type": "INVALID_REQUEST", "requestId": 41, "reason": "INVALID_PARAMS"]])
        #expect(replies.allSatisfy { $0.to == [media.connection] }, "the refusal goes to the requester alone")
        #expect(media.device.logs.contains { $0.message.contains(logged) }, "\(media.device.logs.map(\.message))")
    }

    @Test("Other LOAD fields: customData, credentials and queueData of the wrong type are refused", arguments: [
        ["customData": JSONValue.string("token")], ["credentials": 5], ["credentialsType": ["a"]], ["queueData": "x"],
        ["activeTrackIds": "1"], ["currentTime": "10"],
    ] as [[String: JSONValue]])
    func wrongLoadFields(extra: [String: JSONValue]) {
        var media = TestMediaSender()
        var fields: [String: JSONValue] = ["type": "LOAD", "requestId": 42, "media": ["contentId": "a.mp4"]]
        fields.merge(extra) { _, new in new }
        #expect(media.send(fields).map(\.json) == [["type": "INVALID_REQUEST", "requestId": 42, "reason": "INVALID_PARAMS"]])
    }

    @Test("The tolerances real senders need still hold (docs/protocol/media.md §1)")
    func tolerances() throws {
        var media = TestMediaSender()
        // VLC: autoplay as the string "false" plays; go-chromecast: customData null, duration 0, images null.
        let vlc = media.send(["type": "LOAD", "autoplay": "false", "customData": .null, "sessionId": .null, "media": [
            "contentId": "http://192.0.2.1:8010/chromecast/stream", "streamType": "LIVE", "duration": 0,
            "metadata": ["metadataType": 0, "title": "", "images": .null, "releaseDate": ""],
        ]])
        #expect(vlc.statuses.last?["playerState"] == "PLAYING")
        // go-chromecast's PLAY and PAUSE carry currentTime 0 and resumeState "".
        #expect(media.send(["type": "PAUSE", "currentTime": 0, "resumeState": ""]).statuses.last?["playerState"] == "PAUSED")
        #expect(media.send(["type": "PLAY", "currentTime": 0, "resumeState": ""]).statuses.last?["playerState"] == "PLAYING")
        // Android: SEEK to 4294967296 is the live edge; lowercase stream types from old receivers.
        #expect(media.send(["type": "SEEK", "currentTime": 4294967296]).statuses.last?["currentTime"] == 1800)
        let lower = media.send(["type": "LOAD", "media": ["contentId": "b.mp4", "streamType": "buffered", "contentUrl": "http://x/b.mp4"]])
        #expect(lower.statuses.last?["media"]?["streamType"] == "BUFFERED")
        // Unknown keys are ignored; unknown keys of media are echoed as they were sent.
        let extra = media.send(["type": "LOAD", "loadOptions": ["contentFilteringMode": "x"], "media": ["contentId": "c.mp4", "atvId": 5]])
        #expect(extra.statuses.last?["media"]?["atvId"] == 5)
    }

    @Test("Every error reply carries the request's requestId, whatever else is wrong with it")
    func requestIdOnErrors() {
        var device = CastTestDevice()
        let (connection, transportId) = device.launch()
        for (destination, namespace) in [("receiver-0", CastNamespace.receiver), (transportId, CastNamespace.media)] {
            for payload in [#"{"requestId":801,"type":7}"#, #"{"requestId":802}"#, #"{"requestId":803,"type":null}"#] {
                let replies = device.sendRaw(connection, CastEnvelope(sourceId: "sender-0", destinationId: destination,
                                                                      namespace: namespace, payload: .string(payload)))
                let id = try? JSONValue.parse(payload)["requestId"]
                #expect(replies.map(\.json) == [["type": "INVALID_REQUEST", "requestId": id ?? 0, "reason": "INVALID_COMMAND"]], "\(payload)")
            }
        }
    }

    @Test("QUEUE_GET_ITEM_IDS on a 33,120-item queue: no frame can hold the answer, so INVALID_REQUEST, and the log says why")
    func hugeQueueIds() throws {
        var media = TestMediaSender()
        // Built as a sender must build it: in requests that each fit in a frame.
        let batch = JSONValue.array((1...2_070).map { _ in ["media": ["contentId": "a"]] })
        media.send(["type": "QUEUE_LOAD", "items": batch])
        let mediaSessionId = JSONValue.number(Double(try #require(media.session?.mediaSessionId)))
        for _ in 1..<16 { media.send(["type": "QUEUE_INSERT", "mediaSessionId": mediaSessionId, "items": batch]) }
        #expect(media.itemIds.count == 33_120)
        let replies = media.send(["type": "QUEUE_GET_ITEM_IDS", "requestId": 50])
        #expect(replies.map(\.json) == [["type": "INVALID_REQUEST", "requestId": 50, "reason": "INVALID_REQUEST"]])
        let line = try #require(media.device.logs.last { $0.message.contains("QUEUE_ITEM_IDS") })
        #expect(line.level == .warning && line.message.contains("over the 64512-byte limit"))
        // A range of it is shortened instead: a shorter range is still a true answer.
        let range = media.send(["type": "QUEUE_GET_ITEM_RANGE", "requestId": 51, "itemId": 1, "nextCount": 33_000])
        let ids = try #require(range.first?.json["itemIds"]?.arrayValue)
        #expect(range.first?.type == "QUEUE_CHANGE" && ids.count > 1000 && ids.count < 33_000)
        #expect(ids.first == 2 && (range.first?.envelope.utf8?.utf8.count ?? .max) <= CastFraming.maxPayloadBytes)
    }

    @Test("GET_APP_AVAILABILITY for 5,000 app ids: INVALID_REQUEST, not silence; a few ids are answered as before")
    func manyAppIds() {
        var device = CastTestDevice()
        let connection = device.open(1)
        device.connect(connection)
        let appIds = JSONValue.array((0..<5_000).map { .string(String(format: "%08X", $0)) })
        let replies = device.send(connection, to: "receiver-0", CastNamespace.receiver,
                                  ["type": "GET_APP_AVAILABILITY", "appId": appIds, "requestId": 60])
        #expect(replies.map(\.json) == [["type": "INVALID_REQUEST", "requestId": 60, "reason": "INVALID_REQUEST"]])
        #expect(device.logs.contains { $0.level == .warning && $0.message.contains("GET_APP_AVAILABILITY answer is") })
        let bad = device.send(connection, to: "receiver-0", CastNamespace.receiver,
                              ["type": "GET_APP_AVAILABILITY", "appId": ["CC1AD845", 7], "requestId": 61])
        #expect(bad.map(\.json) == [["type": "INVALID_REQUEST", "requestId": 61, "reason": "INVALID_PARAMS"]])
    }
}
