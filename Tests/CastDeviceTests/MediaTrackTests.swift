import CastDevice
import CastWire
import CastSimulatorTesting
import Foundation
import Testing

@Suite("Tracks and text track styles")
struct MediaTrackTests {
    static let tracks: JSONValue = [
        ["trackId": 1, "type": "TEXT", "subtype": "SUBTITLES", "language": "en-US", "trackContentId": "http://example.test/en.vtt",
         "trackContentType": "text/vtt", "name": "English"],
        ["trackId": 2, "type": "TEXT", "subtype": "CAPTIONS", "language": "fr", "trackContentId": "http://example.test/fr.vtt"],
        ["trackId": 3, "type": "AUDIO", "language": "en", "name": "English 5.1"],
        ["trackId": 4, "type": "AUDIO", "language": "de"],
        ["trackId": 5, "type": "VIDEO"],
    ]
    static let style: JSONValue = [
        "foregroundColor": "#FFFFFFFF", "backgroundColor": "#00000080", "edgeType": "OUTLINE", "edgeColor": "#000000",
        "fontScale": 1.2, "fontFamily": "Droid Sans", "fontGenericFamily": "SANS_SERIF", "fontStyle": "BOLD",
        "windowType": "ROUNDED_CORNERS", "windowColor": "#112233", "windowRoundedCornerRadius": 8,
    ]

    private func loaded(activeTrackIds: JSONValue = [1, 3], style: JSONValue? = nil) -> (TestMediaSender, [SentMessage]) {
        var media = TestMediaSender()
        var mediaInfo: [String: JSONValue] = ["contentId": "movie.mp4", "duration": 100, "tracks": Self.tracks]
        if let style { mediaInfo["textTrackStyle"] = style }
        let replies = media.send(["type": "LOAD", "media": .object(mediaInfo), "activeTrackIds": activeTrackIds])
        return (media, replies)
    }

    @Test("LOAD keeps tracks and the style, echoes them, sets activeTrackIds and allows EDIT_TRACKS")
    func loadTracks() throws {
        let (_, replies) = loaded(style: Self.style)
        let status = try #require(replies.last?.mediaStatus)
        #expect(status["media"]?["tracks"] == Self.tracks)
        #expect(status["media"]?["textTrackStyle"] == Self.style)
        #expect(status["activeTrackIds"] == [1, 3])
        #expect((status["supportedMediaCommands"]?.intValue ?? 0) & 4096 == 4096)
    }

    @Test("A queue item's activeTrackIds apply when that item plays")
    func itemTracks() throws {
        var media = TestMediaSender()
        media.send(["type": "QUEUE_LOAD", "items": [
            TestMediaSender.item("a", duration: 10),
            ["media": ["contentId": "b.mp4", "duration": 10, "tracks": Self.tracks], "activeTrackIds": [2, 4]],
        ]])
        let statuses = media.advance(10).statuses
        #expect(statuses.last?["currentItemId"] == 2 && statuses.last?["activeTrackIds"] == [2, 4])
    }

    @Test("Bad tracks or activeTrackIds on LOAD → INVALID_PARAMS", arguments: [
        ["trackId": 1, "type": "SUBTITLE"] as JSONValue,
        ["type": "TEXT"],
        ["trackId": 1, "type": "TEXT", "subtype": "KARAOKE"],
    ])
    func badTracks(track: JSONValue) {
        var media = TestMediaSender()
        let replies = media.send(["type": "LOAD", "requestId": 3, "media": ["contentId": "x", "tracks": [track]]])
        #expect(replies.map(\.json) == [["type": "INVALID_REQUEST", "requestId": 3, "reason": "INVALID_PARAMS"]])
    }

    @Test("LOAD activeTrackIds naming no track, or two AUDIO tracks → INVALID_PARAMS", arguments: [[9] as JSONValue, [3, 4]])
    func badActiveTracks(ids: JSONValue) {
        var media = TestMediaSender()
        let replies = media.send(["type": "LOAD", "requestId": 3, "activeTrackIds": ids,
                                  "media": ["contentId": "x", "tracks": Self.tracks]])
        #expect(replies.map(\.json) == [["type": "INVALID_REQUEST", "requestId": 3, "reason": "INVALID_PARAMS"]])
        #expect(media.session == nil)
    }

    @Test("EDIT_TRACKS_INFO activeTrackIds: a change of tracks alone is broadcast without media")
    func editActiveTracks() throws {
        var (media, _) = loaded()
        let replies = media.send(["type": "EDIT_TRACKS_INFO", "requestId": 10, "activeTrackIds": [2, 4]])
        let reply = try #require(replies.first)
        #expect(replies.count == 1 && reply.requestId == 10 && reply.isBroadcast)
        #expect(reply.mediaStatus?["activeTrackIds"] == [2, 4])
        #expect(reply.mediaStatus?["media"] == nil)
        // [] turns everything off.
        #expect(media.send(["type": "EDIT_TRACKS_INFO", "activeTrackIds": []]).first?.mediaStatus?["activeTrackIds"] == [])
    }

    @Test("EDIT_TRACKS_INFO with unknown ids or two audio tracks → INVALID_PARAMS and no change", arguments: [[1, 99] as JSONValue, [3, 4]])
    func editTracksInvalid(ids: JSONValue) {
        var (media, _) = loaded()
        let replies = media.send(["type": "EDIT_TRACKS_INFO", "requestId": 11, "activeTrackIds": ids])
        #expect(replies.map(\.json) == [["type": "INVALID_REQUEST", "requestId": 11, "reason": "INVALID_PARAMS"]])
        #expect(media.session?.activeTrackIds == [1, 3])
    }

    @Test("EDIT_TRACKS_INFO language picks the text track in that language, over activeTrackIds")
    func editTracksLanguage() {
        var (media, _) = loaded()
        let status = media.send(["type": "EDIT_TRACKS_INFO", "language": "fr", "isSuggestedLanguage": true, "activeTrackIds": [1]])
        #expect(status.first?.mediaStatus?["activeTrackIds"] == [3, 2])
        #expect(media.send(["type": "EDIT_TRACKS_INFO", "language": "en"]).first?.mediaStatus?["activeTrackIds"] == [3, 1])
        #expect(media.send(["type": "EDIT_TRACKS_INFO", "requestId": 12, "language": "ja"]).map(\.json)
            == [["type": "INVALID_REQUEST", "requestId": 12, "reason": "LANGUAGE_NOT_SUPPORTED"]])
    }

    @Test("enableTextTracks false removes the text tracks; true brings one back")
    func enableTextTracks() {
        var (media, _) = loaded()
        #expect(media.send(["type": "EDIT_TRACKS_INFO", "enableTextTracks": false]).first?.mediaStatus?["activeTrackIds"] == [3])
        #expect(media.send(["type": "EDIT_TRACKS_INFO", "enableTextTracks": true]).first?.mediaStatus?["activeTrackIds"] == [3, 1])
    }

    @Test("EDIT_AUDIO_TRACKS switches the one active audio track by language")
    func editAudioTracks() {
        var (media, _) = loaded()
        let replies = media.send(["type": "EDIT_AUDIO_TRACKS", "requestId": 13, "language": "de"])
        #expect(replies.first?.requestId == 13 && replies.first?.mediaStatus?["activeTrackIds"] == [1, 4])
        #expect(media.send(["type": "EDIT_AUDIO_TRACKS", "requestId": 14, "language": "it"]).first?.json["reason"] == "LANGUAGE_NOT_SUPPORTED")
    }

    @Test("A style change broadcasts MEDIA_STATUS with media to every sender, even when the style is unchanged")
    func styleChange() throws {
        var (media, _) = loaded(style: Self.style)
        let watcher = media.device.open(2)
        media.device.connect(watcher, from: "sender-7", to: media.transportId)
        var newStyle = Self.style.objectValue!
        newStyle["fontScale"] = 2
        let replies = media.send(["type": "EDIT_TRACKS_INFO", "requestId": 15, "textTrackStyle": .object(newStyle)])
        let reply = try #require(replies.first)
        #expect(reply.to == [media.connection, watcher] && reply.requestId == 15)
        #expect(reply.mediaStatus?["media"]?["textTrackStyle"]?["fontScale"] == 2)
        let same = media.send(["type": "EDIT_TRACKS_INFO", "requestId": 16, "textTrackStyle": .object(newStyle)])
        #expect(same.first?.mediaStatus?["media"]?["textTrackStyle"] == .object(newStyle))
    }

    @Test("Invalid styles → INVALID_PARAMS, style unchanged", arguments: [
        ["foregroundColor": "white"] as JSONValue, ["backgroundColor": "#12345"], ["edgeColor": "#GGGGGG"],
        ["windowColor": 16777215], ["edgeType": "GLOW"], ["fontGenericFamily": "COMIC"], ["fontStyle": "LIGHT"],
        ["windowType": "ROUND"], ["fontScale": 0], ["fontScale": -1], ["fontScale": "big"],
        ["windowRoundedCornerRadius": -2], ["fontFamily": 3], "bold",
    ])
    func invalidStyles(style: JSONValue) {
        var (media, _) = loaded(style: Self.style)
        let replies = media.send(["type": "EDIT_TRACKS_INFO", "requestId": 17, "textTrackStyle": style])
        #expect(replies.map(\.json) == [["type": "INVALID_REQUEST", "requestId": 17, "reason": "INVALID_PARAMS"]])
        #expect(media.session?.currentItem?.media.textTrackStyle == Self.style)
        // The same style on LOAD is refused too.
        var fresh = TestMediaSender()
        #expect(fresh.send(["type": "LOAD", "requestId": 18, "media": ["contentId": "x", "textTrackStyle": style]]).first?.json["reason"] == "INVALID_PARAMS")
    }
}

@Suite("Live, status options, commands, load outcomes")
struct MediaBehaviourTests {
    @Test("LIVE: no duration, never ends, a liveSeekableRange that moves with time; seeks clamp into it")
    func live() throws {
        var media = TestMediaSender { $0.liveWindow = 600 }
        let status = try #require(media.send(["type": "LOAD", "media": ["contentId": "live.m3u8", "streamType": "LIVE"]]).last?.mediaStatus)
        #expect(status["media"]?["duration"] == nil)
        #expect(status["liveSeekableRange"] == ["start": 0, "end": 600, "isMovingWindow": true, "isLiveDone": false])
        #expect(status["currentTime"] == 600)
        media.advance(3600)
        let later = try #require(media.send(["type": "GET_STATUS"]).first?.mediaStatus)
        #expect(later["liveSeekableRange"]?["start"] == 3600 && later["liveSeekableRange"]?["end"] == 4200)
        #expect(later["currentTime"] == 4200 && later["playerState"] == "PLAYING")
        let tooEarly = media.send(["type": "SEEK", "currentTime": 10]).first?.mediaStatus
        #expect(tooEarly?["currentTime"] == 3600)
        // Android's "seek to the live edge".
        let edge = media.send(["type": "SEEK", "currentTime": 4294967296]).first?.mediaStatus
        #expect(edge?["currentTime"] == 4200)
    }

    @Test("GET_STATUS options: 1 = NO_METADATA drops metadata, 2 = NO_QUEUE_ITEMS drops items")
    func getStatusOptions() throws {
        var media = TestMediaSender()
        media.queueLoad(2)
        let full = try #require(media.send(["type": "GET_STATUS"]).first?.mediaStatus)
        #expect(full["media"]?["metadata"] != nil && full["items"] != nil)
        let noMetadata = try #require(media.send(["type": "GET_STATUS", "options": 1]).first?.mediaStatus)
        #expect(noMetadata["media"]?["contentId"] != nil && noMetadata["media"]?["metadata"] == nil)
        #expect(noMetadata["items"]?.arrayValue?.first?["media"]?["metadata"] == nil)
        let noItems = try #require(media.send(["type": "GET_STATUS", "options": 2]).first?.mediaStatus)
        #expect(noItems["items"] == nil && noItems["media"]?["metadata"] != nil)
        let neither = try #require(media.send(["type": "GET_STATUS", "options": 3]).first?.mediaStatus)
        #expect(neither["items"] == nil && neither["media"]?["metadata"] == nil)
    }

    @Test("supportedMediaCommands: queue bits follow next/previous and repeat; an app can restrict them")
    func supportedCommands() throws {
        var media = TestMediaSender()
        media.queueLoad(3)
        func commands(_ media: inout TestMediaSender) -> Int { media.send(["type": "GET_STATUS"]).first?.mediaStatus?["supportedMediaCommands"]?.intValue ?? -1 }
        var bits = commands(&media)
        #expect(bits & 64 == 64 && bits & 128 == 0)  // first item: next, no previous
        media.send(["type": "QUEUE_NEXT"])
        bits = commands(&media)
        #expect(bits & (64 | 128) == 64 | 128)
        media.send(["type": "QUEUE_NEXT"])
        bits = commands(&media)
        #expect(bits & 64 == 0 && bits & 128 == 128)  // last item under REPEAT_OFF
        media.send(["type": "QUEUE_UPDATE", "repeatMode": "REPEAT_ALL"])
        #expect(commands(&media) & (64 | 128) == 64 | 128)

        var restricted = TestMediaSender { configuration in
            configuration.apps[0].allowedMediaCommands = [.pause, .streamVolume]
        }
        restricted.queueLoad(3)
        #expect(commands(&restricted) == 1 | 4)
    }

    @Test("A failing content id: LOAD_FAILED unicast with detailedErrorCode and itemId, then IDLE/ERROR broadcast")
    func loadFailed() throws {
        var media = TestMediaSender { $0.mediaCatalog.add("broken.mp4", MediaLoadBehaviour(outcome: .fail(detailedErrorCode: 104, reason: nil))) }
        let watcher = media.device.open(2)
        media.device.connect(watcher, from: "sender-7", to: media.transportId)
        let replies = media.send(["type": "LOAD", "requestId": 24, "media": ["contentId": "broken.mp4"]])
        try #require(replies.count == 3)
        #expect(replies[0].mediaStatus?["extendedStatus"]?["playerState"] == "LOADING")
        #expect(replies[1].json == ["type": "LOAD_FAILED", "requestId": 24, "itemId": 1, "detailedErrorCode": 104])
        #expect(replies[1].to == [media.connection] && !replies[1].isBroadcast)
        #expect(replies[2].isBroadcast && replies[2].to == [media.connection, watcher] && replies[2].requestId == 0)
        #expect(replies[2].mediaStatus?["playerState"] == "IDLE" && replies[2].mediaStatus?["idleReason"] == "ERROR")
        #expect(replies[2].mediaStatus?["mediaSessionId"] == 1 && replies[2].mediaStatus?["currentItemId"] == 1)
        #expect(media.session == nil)
    }

    @Test("A load that takes time; a newer LOAD supersedes it: LOAD_CANCELLED to the first requester")
    func loadCancelled() throws {
        var media = TestMediaSender { $0.mediaCatalog.add("slow.mp4", MediaLoadBehaviour(loadDelay: 5)) }
        let first = media.send(["type": "LOAD", "requestId": 30, "media": ["contentId": "slow.mp4"]])
        #expect(first.count == 1 && first[0].mediaStatus?["extendedStatus"] != nil)
        // While loading: IDLE with the item loading; commands wait.
        #expect(media.send(["type": "GET_STATUS"]).first?.mediaStatus?["loadingItemId"] == 1)
        #expect(media.send(["type": "PLAY", "requestId": 31]).map(\.json) == [["type": "INVALID_PLAYER_STATE", "requestId": 31]])
        media.advance(2)
        let second = media.send(["type": "LOAD", "requestId": 32, "media": ["contentId": "fast.mp4"]])
        #expect(second[0].json == ["type": "LOAD_CANCELLED", "requestId": 30, "itemId": 1])
        #expect(second[0].to == [media.connection])
        #expect(second[1].mediaStatus?["idleReason"] == "INTERRUPTED" && second[1].mediaStatus?["mediaSessionId"] == 1)
        #expect(second.last?.requestId == 32 && second.last?.mediaStatus?["playerState"] == "PLAYING")
        // The cancelled load never completes later.
        #expect(media.advance(10).isEmpty)
    }

    @Test("A slow load answers with the LOAD requestId once loaded, at the simulated time")
    func slowLoad() throws {
        var media = TestMediaSender { $0.mediaCatalog.add("slow.mp4", MediaLoadBehaviour(loadDelay: 3, duration: 42)) }
        media.send(["type": "LOAD", "requestId": 40, "media": ["contentId": "slow.mp4"]])
        #expect(media.advance(2.9).isEmpty)
        let done = media.advance(0.1)
        #expect(done.count == 1 && done[0].requestId == 40)
        #expect(done[0].mediaStatus?["playerState"] == "PLAYING" && done[0].mediaStatus?["media"]?["duration"] == 42)
    }

    @Test("A load that never answers stays loading; STOP cancels it")
    func neverAnswers() throws {
        var media = TestMediaSender { $0.mediaCatalog.add("hang.mp4", MediaLoadBehaviour(outcome: .neverAnswer)) }
        media.send(["type": "LOAD", "requestId": 50, "media": ["contentId": "hang.mp4"]])
        #expect(media.advance(3600).isEmpty)
        let stop = media.send(["type": "STOP", "requestId": 51])
        #expect(stop[0].json == ["type": "LOAD_CANCELLED", "requestId": 50, "itemId": 1])
        #expect(stop[1].requestId == 51 && stop[1].mediaStatus?["idleReason"] == "CANCELLED")
    }

    @Test("Rate, relative rate and the configured range")
    func rateRange() {
        var media = TestMediaSender { $0.playbackRateRange = 0.25...4 }
        media.send(["type": "LOAD", "media": ["contentId": "a.mp4"]])
        #expect(media.send(["type": "SET_PLAYBACK_RATE", "playbackRate": 3.5]).first?.mediaStatus?["playbackRate"] == 3.5)
        #expect(media.send(["type": "SET_PLAYBACK_RATE", "requestId": 9, "relativePlaybackRate": 2]).map(\.json)
            == [["type": "INVALID_REQUEST", "requestId": 9, "reason": "INVALID_PARAMS"]])
        #expect(media.send(["type": "SET_PLAYBACK_RATE", "playbackRate": 0]).first?.json["reason"] == "INVALID_PARAMS")
    }

    @Test("Device volume lives in RECEIVER_STATUS, stream volume in MEDIA_STATUS, each with level and mute")
    func twoVolumes() throws {
        var media = TestMediaSender()
        media.send(["type": "LOAD", "media": ["contentId": "a.mp4"]])
        media.send(["type": "SET_VOLUME", "volume": ["level": 0.2]])
        let receiver = media.device.send(media.connection, to: "receiver-0", CastNamespace.receiver,
                                          ["type": "SET_VOLUME", "volume": ["muted": true], "requestId": 3])
        #expect(receiver.first?.json["status"]?["volume"]?["muted"] == true && receiver.first?.json["status"]?["volume"]?["level"] == 1)
        let stream = try #require(media.send(["type": "GET_STATUS"]).first?.mediaStatus)
        #expect(stream["volume"] == ["level": 0.2, "muted": false])
    }
}
