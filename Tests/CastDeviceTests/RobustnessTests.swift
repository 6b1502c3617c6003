import CastDevice
import CastWire
import CastSimulatorTesting
import Foundation
import Testing

@Suite("Bad input never breaks the device")
struct RobustnessTests {
    @Test("Deeply nested JSON is refused with INVALID_REQUEST, not a crash")
    func deeplyNested() {
        var media = TestMediaSender()
        let nested = String(repeating: "[", count: 30_000) + String(repeating: "]", count: 30_000)
        let replies = media.device.sendRaw(media.connection, CastEnvelope(
            sourceId: "sender-0", destinationId: media.transportId, namespace: CastNamespace.media, payload: .string(nested)))
        #expect(replies.first?.json["type"] == "INVALID_REQUEST")
        let inObject = "{\"type\":\"LOAD\",\"requestId\":1,\"media\":" + nested + "}"
        let more = media.device.sendRaw(media.connection, CastEnvelope(
            sourceId: "sender-0", destinationId: media.transportId, namespace: CastNamespace.media, payload: .string(inObject)))
        #expect(more.first?.json["type"] == "INVALID_REQUEST")
    }

    /// A small deterministic generator, so a failure replays.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33
        }
        mutating func pick<T>(_ values: [T]) -> T { values[Int(next() % UInt64(values.count))] }
    }

    static let types = [
        "LOAD", "QUEUE_LOAD", "PLAY", "PAUSE", "SEEK", "STOP", "SET_VOLUME", "SET_PLAYBACK_RATE", "EDIT_TRACKS_INFO",
        "EDIT_AUDIO_TRACKS", "QUEUE_INSERT", "QUEUE_UPDATE", "QUEUE_REMOVE", "QUEUE_REORDER", "QUEUE_NEXT", "QUEUE_PREV",
        "QUEUE_SHUFFLE", "QUEUE_GET_ITEM_IDS", "QUEUE_GET_ITEMS", "QUEUE_GET_ITEM_RANGE", "GET_STATUS", "BOGUS",
    ]
    static let keys = [
        "media", "items", "currentTime", "relativeTime", "resumeState", "mediaSessionId", "volume", "playbackRate",
        "relativePlaybackRate", "activeTrackIds", "textTrackStyle", "language", "enableTextTracks", "insertBefore",
        "currentItemId", "currentItemIndex", "jump", "repeatMode", "shuffle", "itemIds", "itemId", "nextCount", "prevCount",
        "startIndex", "queueData", "autoplay", "options", "customData",
    ]

    static func value(_ random: inout Random, depth: Int = 0) -> JSONValue {
        switch random.next() % (depth > 2 ? 6 : 9) {
        case 0: return .null
        case 1: return .bool(random.next() % 2 == 0)
        case 2: return .number(random.pick([0, 1, 2, -1, 3.5, 1e300, -1e300, 4294967296, 9e15, 0.5, 100]))
        case 3: return .string(random.pick(["", "a.mp4", "REPEAT_ALL", "PLAYBACK_START", "en", "#FFFFFF", "LIVE", "x"]))
        case 4: return .number(Double(random.next() % 5))
        case 5: return .string("http://example.test/\(random.next() % 3)")
        case 6: return .array((0..<random.next() % 4).map { _ in value(&random, depth: depth + 1) })
        case 7:
            return ["contentId": value(&random, depth: depth + 1), "duration": value(&random, depth: depth + 1),
                    "streamType": random.pick(["BUFFERED", "LIVE", "x"]),
                    "tracks": [["trackId": .number(Double(random.next() % 3)), "type": random.pick(["TEXT", "AUDIO", "VIDEO"]), "language": "en"]]]
        default:
            var fields: [String: JSONValue] = [:]
            for _ in 0..<random.next() % 4 { fields[random.pick(keys)] = value(&random, depth: depth + 1) }
            return .object(fields)
        }
    }

    @Test("Thousands of random media requests: every one is answered or refused, and the device stays consistent")
    func randomRequests() {
        var random = Random(state: 0xCA57)
        var media = TestMediaSender()
        media.send(["type": "QUEUE_LOAD", "items": [TestMediaSender.item("a"), TestMediaSender.item("b"), TestMediaSender.item("c")]])
        for index in 0..<5000 {
            var fields: [String: JSONValue] = ["type": .string(random.pick(Self.types)), "requestId": .number(Double(index + 1000))]
            for _ in 0..<random.next() % 6 { fields[random.pick(Self.keys)] = Self.value(&random) }
            if random.next() % 3 == 0, let id = media.session?.mediaSessionId { fields["mediaSessionId"] = .number(Double(id)) }
            let replies = media.send(fields)
            // A reply of some kind, carrying the request's id, unless a GET_STATUS ... every request gets exactly one answer.
            let answers = replies.filter { $0.requestId == index + 1000 }
            #expect(answers.count == 1 || replies.contains { $0.type == "LOAD_CANCELLED" }, "\(JSONValue.object(fields).jsonText()) → \(replies.map(\.json))")
            if let session = media.session {
                #expect(Set(session.queue.itemIds).count == session.items.count, "item ids stay unique")
                #expect(session.currentTime.isFinite)
            }
            if random.next() % 10 == 0 { media.advance(Double(random.next() % 300)) }
        }
    }
}
