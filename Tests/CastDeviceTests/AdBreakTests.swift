import CastDevice
import CastSimulatorTesting
import CastWire
import Foundation
import Testing

/// Ad breaks on the simulated player (docs/protocol/media.md §11) under the manual clock (the
/// simulation clock alone moves: the senders' connections stay up as in real time):
/// a pre-roll, a mid-roll at 10 minutes, a post-roll; SKIP_AD refused then allowed; a
/// watched break not replayed after a seek back; an unwatched one played on a seek across.
@Suite("Ad breaks: breakStatus, isWatched, SKIP_AD, seeks across breaks, the post-roll, operator inputs")
struct AdBreakTests {
    static let media: JSONValue = [
        "contentId": "http://example.test/show.mp4", "contentType": "video/mp4", "streamType": "BUFFERED", "duration": 1200,
        "breaks": [["id": "pre", "position": 0, "breakClipIds": ["ad1"]],
                   ["id": "mid", "position": 600, "breakClipIds": ["ad2", "ad3"]],
                   ["id": "late", "position": 900, "breakClipIds": ["ad3"]],
                   ["id": "post", "position": -1, "breakClipIds": ["ad3"]]],
        "breakClips": [["id": "ad1", "duration": 15, "whenSkippable": 5, "title": "Ad one", "contentId": "http://example.test/ad1.mp4"],
                       ["id": "ad2", "duration": 20],
                       ["id": "ad3", "duration": 10]],
    ]

    /// The DMR on connection 1 (and a watcher on 2), the show loaded at t = 0.
    private func loaded() -> (CastTestDevice, ConnectionID, ConnectionID, String, [SentMessage]) {
        var harness = CastTestDevice()
        let (connection, transportId) = harness.launch()
        let watcher = harness.open(2)
        harness.connect(watcher, from: "sender-9", to: transportId)
        let replies = harness.send(connection, to: transportId, CastNamespace.media,
                                   ["type": "LOAD", "requestId": 2, "media": Self.media, "autoplay": true])
        return (harness, connection, watcher, transportId, replies)
    }

    private func status(_ messages: [SentMessage]) -> JSONValue? { messages.last { $0.type == "MEDIA_STATUS" }?.mediaStatus }

    private func watched(_ status: JSONValue?) -> [String] {
        (status?["media"]?["breaks"]?.arrayValue ?? []).filter { $0["isWatched"] == true }.compactMap { $0["id"]?.stringValue }
    }

    @Test("The LOAD's answer plays the pre-roll: breakStatus, isWatched, SKIP_AD's bit; SKIP_AD is refused at 2 s and skips at 6 s")
    func preRollAndSkip() throws {
        var (harness, connection, watcher, transportId, replies) = loaded()
        let answer = try #require(replies.last { $0.requestId == 2 }?.mediaStatus)
        #expect(answer["playerState"] == "PLAYING" && answer["currentTime"] == 0)
        #expect(answer["breakStatus"] == ["breakId": "pre", "breakClipId": "ad1", "currentBreakTime": 0, "currentBreakClipTime": 0,
                                          "whenSkippable": 5])
        #expect(watched(answer) == ["pre"] && (answer["supportedMediaCommands"]?.intValue ?? 0) & 512 == 512)
        let session = try #require(answer["mediaSessionId"])
        _ = harness.advanceSimulationClock(2)
        #expect(harness.send(connection, to: transportId, CastNamespace.media, ["type": "SKIP_AD", "requestId": 3, "mediaSessionId": session])
            .map(\.json) == [["type": "INVALID_PLAYER_STATE", "requestId": 3]])
        _ = harness.advanceSimulationClock(4)
        let skipped = harness.send(connection, to: transportId, CastNamespace.media, ["type": "SKIP_AD", "requestId": 4, "mediaSessionId": session])
        let after = try #require(skipped.last)
        #expect(after.requestId == 4 && after.isBroadcast && after.to.contains(watcher))
        #expect(after.mediaStatus?["breakStatus"] == nil && after.mediaStatus?["currentTime"] == 0)
        #expect((after.mediaStatus?["supportedMediaCommands"]?.intValue ?? 512) & 512 == 0)
        // The content plays on from 0.
        _ = harness.advanceSimulationClock(10)
        #expect(harness.snapshot.media?.currentTime == 10 && harness.snapshot.media?.breakStatus == nil)
        #expect(harness.send(connection, to: transportId, CastNamespace.media, ["type": "SKIP_AD", "requestId": 5]).map(\.json)
            == [["type": "INVALID_PLAYER_STATE", "requestId": 5]])
    }

    @Test("The mid-roll at 10 m: its two clips, the content waiting at 600; a seek back does not replay it; a seek across plays the next")
    func midRollAndSeeks() throws {
        var (harness, connection, _, transportId, _) = loaded()
        _ = harness.advanceSimulationClock(15)  // the pre-roll's clip ends
        #expect(harness.snapshot.media?.breakStatus == nil && harness.snapshot.media?.currentTime == 0)
        let reached = harness.advanceSimulationClock(600)
        let started = try #require(reached.first { $0.mediaStatus?["breakStatus"] != nil }?.mediaStatus)
        #expect(started["breakStatus"]?["breakId"] == "mid" && started["breakStatus"]?["breakClipId"] == "ad2")
        #expect(started["currentTime"] == 600 && watched(started) == ["pre", "mid"])
        #expect(harness.snapshot.media?.currentTime == 600)
        // A seek while the break plays is refused.
        #expect(harness.send(connection, to: transportId, CastNamespace.media, ["type": "SEEK", "requestId": 6, "currentTime": 30]).map(\.json)
            == [["type": "INVALID_PLAYER_STATE", "requestId": 6]])
        _ = harness.advanceSimulationClock(20)
        #expect(harness.snapshot.media?.breakStatus?["breakClipId"] == "ad3" && harness.snapshot.media?.breakStatus?["currentBreakTime"] == 20)
        // Paused, the clip waits too.
        _ = harness.send(connection, to: transportId, CastNamespace.media, ["type": "PAUSE", "requestId": 7])
        _ = harness.advanceSimulationClock(30)
        #expect(harness.snapshot.media?.breakStatus?["currentBreakClipTime"] == 0)
        _ = harness.send(connection, to: transportId, CastNamespace.media, ["type": "PLAY", "requestId": 8])
        _ = harness.advanceSimulationClock(10)
        #expect(harness.snapshot.media?.breakStatus == nil && harness.snapshot.media?.currentTime == 600)
        _ = harness.advanceSimulationClock(5)
        #expect(harness.snapshot.media?.currentTime == 605)

        // Back before the watched mid-roll, and forward past it: no break.
        _ = harness.send(connection, to: transportId, CastNamespace.media, ["type": "SEEK", "requestId": 9, "currentTime": 100])
        let forward = harness.send(connection, to: transportId, CastNamespace.media, ["type": "SEEK", "requestId": 10, "currentTime": 700])
        #expect(forward.last?.mediaStatus?["breakStatus"] == nil && forward.last?.mediaStatus?["currentTime"] == 700)
        // Across the unwatched one at 900: it plays at 900, then the content goes on at 1000.
        let across = harness.send(connection, to: transportId, CastNamespace.media, ["type": "SEEK", "requestId": 11, "currentTime": 1000])
        let seekAnswer = try #require(across.last { $0.requestId == 11 }?.mediaStatus)
        #expect(seekAnswer["breakStatus"]?["breakId"] == "late" && seekAnswer["currentTime"] == 900)
        _ = harness.advanceSimulationClock(10)
        #expect(harness.snapshot.media?.currentTime == 1000 && harness.snapshot.media?.breakStatus == nil)
        // The post-roll at the end, then the item finishes.
        let ending = harness.advanceSimulationClock(200)
        #expect(ending.contains { $0.mediaStatus?["breakStatus"]?["breakId"] == "post" })
        let end = harness.advanceSimulationClock(10)
        #expect(end.last?.mediaStatus?["idleReason"] == "FINISHED")
        #expect(harness.events.filter { if case .adBreakChanged(_, let id?, _) = $0.kind { id == "post" } else { false } }.count == 1)
    }

    @Test("Operator inputs: a break starts now, a clip fails and is skipped; without breaks nothing happens")
    func operatorInputs() throws {
        var (harness, _, _, _, _) = loaded()
        _ = harness.apply(.adBreak(.failClip))
        #expect(harness.snapshot.media?.breakStatus == nil)
        _ = harness.advanceSimulationClock(100)
        let started = harness.apply(.adBreak(.start))
        #expect(started.last?.mediaStatus?["breakStatus"]?["breakId"] == "mid" && harness.snapshot.media?.currentTime == 100)
        _ = harness.apply(.adBreak(.failClip))
        #expect(harness.snapshot.media?.breakStatus?["breakClipId"] == "ad3")
        _ = harness.advanceSimulationClock(10)
        #expect(harness.snapshot.media?.currentTime == 100 && harness.snapshot.media?.breakStatus == nil)
        // The mid-roll was watched: reaching 600 plays nothing.
        _ = harness.advanceSimulationClock(510)
        #expect(harness.snapshot.media?.breakStatus == nil && harness.snapshot.media?.currentTime == 610)
    }

    @Test("Bad breaks are refused with INVALID_PARAMS and the request's id; the session carries on")
    func badBreaks() throws {
        var (harness, connection, _, transportId, _) = loaded()
        let clip: JSONValue = ["id": "a", "duration": 5]
        for (breaks, clips): (JSONValue, JSONValue) in [
            ([["position": 0, "breakClipIds": ["a"]]], [clip]),
            ([["id": "b", "position": "start", "breakClipIds": ["a"]]], [clip]),
            ([["id": "b", "position": -5, "breakClipIds": ["a"]]], [clip]),
            ([["id": "b", "position": 0]], [clip]),
            ([["id": "b", "position": 0, "breakClipIds": ["zz"]]], [clip]),
            ([["id": "b", "position": 0, "breakClipIds": ["a"]]], [["id": "a", "whenSkippable": -1]]),
            ([["id": "b", "position": 0, "breakClipIds": ["a"]], ["id": "b", "position": 5, "breakClipIds": ["a"]]], [clip]),
            ([["id": "b", "position": 0, "breakClipIds": ["a"], "isWatched": "no"]], [clip]),
        ] {
            var media = Self.media
            media = media.replacing("breaks", with: breaks).replacing("breakClips", with: clips)
            let refused = harness.send(connection, to: transportId, CastNamespace.media, ["type": "LOAD", "requestId": 20, "media": media])
            #expect(refused.map(\.json) == [["type": "INVALID_REQUEST", "requestId": 20, "reason": "INVALID_PARAMS"]], "\(breaks.jsonText())")
        }
        #expect(harness.snapshot.media?.breakStatus?["breakId"] == "pre")
    }

    @Test("The media catalog puts breaks in an item whose LOAD brings none")
    func catalogBreaks() throws {
        var harness = CastTestDevice { configuration in
            var behaviour = MediaLoadBehaviour(duration: 300)
            behaviour.breaks = [["id": "house", "position": 0, "breakClipIds": ["promo"]]]
            behaviour.breakClips = [["id": "promo", "duration": 6]]
            configuration.mediaCatalog.add("http://example.test/free.mp4", behaviour)
        }
        let (connection, transportId) = harness.launch()
        let replies = harness.send(connection, to: transportId, CastNamespace.media,
                                   ["type": "LOAD", "requestId": 2, "media": ["contentId": "http://example.test/free.mp4"]])
        let answer = try #require(replies.last?.mediaStatus)
        #expect(answer["breakStatus"]?["breakId"] == "house" && answer["media"]?["breakClips"]?[0]?["id"] == "promo")
        _ = harness.advanceSimulationClock(6)
        #expect(harness.snapshot.media?.breakStatus == nil && harness.snapshot.media?.currentTime == 0)
    }
}
