import CastDevice
import CastSimulatorTesting
import CastWire
import Testing

@Suite("EMP receiver: commands on its namespace (docs/protocol/emp.md §3)")
struct EMPCommandTests {
    @Test("pull and refreshcontrols: the emp.md §4.10 sequence, in order, to every sender", arguments: ["pull", "refreshcontrols"])
    func pull(type: String) throws {
        var emp = EMPDevice()
        emp.load("news-24", extra: ["subtitleLanguage": "en"])
        let replies = emp.emp(type, on: emp.second)
        #expect(replies.sequence == ["emp:volumechange", "emp:timeShiftEnabled", "emp:autoplay", "emp:isLive", "emp:startTimeLive",
                                     "emp:programchanged", "emp:entitlementchange", "emp:tracksupdated"])
        #expect(replies.map(\.json) == [
            ["type": "volumechange", "data": ["volume": 1, "muted": false]],
            ["type": "timeShiftEnabled", "data": true],
            ["type": "autoplay", "data": true],
            ["type": "isLive", "data": true],
            ["type": "startTimeLive", "data": .number(Double(EMPDevice.epoch))],
            ["type": "programchanged", "data": ["program": [
                "programId": "p1", "assetId": "a-p1", "channelId": "news-24", "title": "Morning",
                "startTime": "2026-01-01T12:00:00.000Z", "endTime": "2026-01-01T12:10:00.000Z",
                "asset": ["assetId": "a-p1", "localized": [["locale": "en", "title": "Morning"]]],
            ]]],
            ["type": "entitlementchange", "data": ["entitlement": [
                "assetId": "news-24", "live": true, "ffEnabled": true, "rwEnabled": true, "timeshiftEnabled": true, "airplayBlocked": false,
            ]]],
            ["type": "tracksupdated", "data": ["tracksInfo": ["activeTrackIds": [0], "tracks": [
                ["id": 0, "trackId": 0, "label": "English", "language": "en", "type": "text", "kind": "subtitles"],
            ]]]],
        ])
        #expect(replies.allSatisfy { $0.to == [emp.first, emp.second] })
    }

    @Test("pull with nothing playing: the device volume and the defaults (iOS `{\"type\":\"pull\"}`, Android `\"data\":{}`)")
    func pullIdle() {
        var emp = EMPDevice()
        emp.apply(.setDeviceVolume(level: 0.4, muted: nil))
        for text in [#"{"type":"pull"}"#, #"{"type":"pull","data":{}}"#] {
            #expect(emp.empRaw(text).map(\.json) == [
                ["type": "volumechange", "data": ["volume": 0.4, "muted": false]], ["type": "timeShiftEnabled", "data": false],
                ["type": "autoplay", "data": true], ["type": "isLive", "data": false], ["type": "startTimeLive", "data": 0],
                ["type": "tracksupdated", "data": ["tracksInfo": ["activeTrackIds": [], "tracks": []]]],
            ])
        }
    }

    @Test("showtexttrack from one sender: both get tracksupdated and a MEDIA_STATUS with the new activeTrackIds")
    func showTextTrack() throws {
        var emp = EMPDevice()
        emp.load("movie-1")
        let replies = emp.emp("showtexttrack", ["language": "sv"], on: emp.second)
        #expect(replies.sequence == ["emp:tracksupdated", "media:MEDIA_STATUS"])
        #expect(replies.statuses.last?["activeTrackIds"] == [2, 1])
        #expect(replies.emp("tracksupdated")?["data"]?["tracksInfo"]?["activeTrackIds"] == [2, 1])
        #expect(replies.allSatisfy { $0.to == [emp.first, emp.second] })
        // With a kind that matches, and again when already showing: the senders still hear back.
        #expect(emp.emp("showtexttrack", ["language": "sv", "kind": "subtitles"]).empTypes == ["tracksupdated"])
        // No such language: nothing changes, nothing is sent.
        #expect(emp.emp("showtexttrack", ["language": "fi"]).isEmpty)
        #expect(emp.session?.activeTrackIds == [2, 1])
    }

    @Test("hidetexttrack and the audio commands (selectaudiotrack, showaudiotrack, iOS 0.73's enableaudiotrack)")
    func hideAndAudio() {
        var emp = EMPDevice()
        emp.load("movie-1", extra: ["subtitleLanguage": "en"])
        #expect(emp.emp("hidetexttrack").statuses.last?["activeTrackIds"] == [2])
        #expect(emp.emp("selectaudiotrack", ["language": "de"]).statuses.last?["activeTrackIds"] == [3])
        #expect(emp.emp("showaudiotrack", ["language": "en"]).statuses.last?["activeTrackIds"] == [2])
        let last = emp.emp("enableaudiotrack", ["language": "de"])
        #expect(last.emp("tracksupdated")?["data"]?["tracksInfo"]?["activeTrackIds"] == [3])
    }

    @Test("EDIT_TRACKS_INFO on the media namespace also produces tracksupdated: the two views agree")
    func editTracksInfo() {
        var emp = EMPDevice()
        emp.load("movie-1")
        let replies = emp.media(["type": "EDIT_TRACKS_INFO", "activeTrackIds": [0, 3]])
        #expect(replies.sequence == ["emp:tracksupdated", "media:MEDIA_STATUS"])
        #expect(replies.emp("tracksupdated")?["data"]?["tracksInfo"]?["activeTrackIds"] == [0, 3])
        #expect(emp.media(["type": "EDIT_AUDIO_TRACKS", "language": "en"]).emp("tracksupdated")?["data"]?["tracksInfo"]?["activeTrackIds"] == [0, 2])
    }

    @Test("playheadtime (unix ms), playheadTime (data.datetime), setabsolutetime; gotolive", arguments: [
        #"{"type":"playheadtime","data":%d}"#, #"{"type":"playheadTime","data":{"datetime":%d}}"#, #"{"type":"setabsolutetime","data":%d}"#,
    ])
    func playhead(template: String) {
        var emp = EMPDevice()
        emp.load("news-24")
        emp.advance(1000)
        // 12:05 is 700 s behind the edge (12:16:40).
        let target = EMPDevice.epoch + 300_000
        let replies = emp.empRaw(template.replacingOccurrences(of: "%d", with: "\(target)"))
        #expect(replies.statuses.last?["currentTime"] == .number(1800 + 1000 - 700))
        #expect(replies.emp("programchanged")?["data"]?["program"]?["programId"] == "p1")
        #expect(emp.emp("gotolive").statuses.last?["currentTime"] == 2800)
    }

    @Test("playnextprogram and playpreviousprogram move between the EPG's programs")
    func programJumps() {
        var emp = EMPDevice()
        emp.advance(900)
        emp.load("news-24")
        let previous = emp.emp("playpreviousprogram", ["end": false])
        #expect(previous.emp("programchanged")?["data"]?["program"]?["programId"] == "p1")
        #expect(previous.statuses.last?["currentTime"] == .number(1800 - 900))
        let next = emp.emp("playnextprogram")
        #expect(next.emp("programchanged")?["data"]?["program"]?["programId"] == "p2")
        #expect(next.statuses.last?["currentTime"] == .number(1800 - 300))
        // Evening has not started: no further than the live edge, and no program change.
        #expect(emp.emp("playnextprogram").statuses.last?["currentTime"] == 1800)
    }

    @Test("texttrackstyle becomes the media's textTrackStyle")
    func textTrackStyle() throws {
        var emp = EMPDevice()
        emp.load("movie-1")
        let replies = emp.emp("texttrackstyle", ["backgroundColor": "#000", "backgroundOpacity": "0.5", "color": "#FFFF00",
                                                  "edgeStyle": "dropshadow", "fontFamily": "monospaceSansSerif", "fontPercent": 1.25,
                                                  "textOpacity": 1, "windowColor": "#112233", "windowOpacity": 0])
        #expect(replies.statuses.last?["media"]?["textTrackStyle"] == [
            "backgroundColor": "#00000080", "foregroundColor": "#FFFF00FF", "edgeType": "DROP_SHADOW",
            "fontGenericFamily": "MONOSPACED_SANS_SERIF", "fontScale": 1.25, "windowColor": "#11223300"])
    }

    @Test("loadnextsource plays the queue's next item; the media receiver is whole (QUEUE_INSERT, rate)")
    func nextSource() {
        var emp = EMPDevice()
        emp.load("movie-1")
        emp.media(["type": "QUEUE_INSERT", "items": [["media": ["contentId": "http://example.test/extra.mp4", "duration": 30]]]])
        emp.media(["type": "SET_PLAYBACK_RATE", "playbackRate": 1.5])
        let replies = emp.emp("loadnextsource")
        #expect(replies.statuses.last?["currentItemId"] == 2 && replies.statuses.last?["playbackRate"] == 1.5)
        #expect(emp.emp("loadnextsource").isEmpty)
    }

    @Test("Numbers out of range neither crash nor corrupt the player: NaN strings, 1e300 times, a start time of 1e308")
    func outOfRange() {
        var emp = EMPDevice()
        emp.load("news-24", extra: ["playbackProperties": ["playFrom": "startTime", "startTime": 1e308]])
        #expect(emp.session?.currentTime == 1800)
        #expect(emp.empRaw(#"{"type":"playheadtime","data":1e300}"#).statuses.last?["currentTime"] == 1800)
        #expect(emp.empRaw(#"{"type":"playheadtime","data":-1e300}"#).statuses.last?["currentTime"] == 0)
        let style = emp.emp("texttrackstyle", ["color": "#FFF", "textOpacity": "nan", "fontPercent": "inf", "backgroundOpacity": "-inf"])
        #expect(style.statuses.last?["media"]?["textTrackStyle"] == ["foregroundColor": "#FFFFFFFF"])
        // The playhead sits 30 minutes before the EPG's first program: no programchanged.
        #expect(emp.emp("pull").empTypes == ["volumechange", "timeShiftEnabled", "autoplay", "isLive", "startTimeLive",
                                             "entitlementchange", "tracksupdated"])
    }

    @Test("Unknown types and malformed payloads are ignored; the session carries on", arguments: [
        #"{"type":"getAssetInfo"}"#, #"{"type":"PULL"}"#, "not json", #"["pull"]"#, #"{"data":1}"#, #"{"type":"showtexttrack"}"#,
        #"{"type":"playheadtime","data":"soon"}"#,
    ])
    func ignored(text: String) {
        var emp = EMPDevice()
        emp.load("movie-1")
        #expect(emp.empRaw(text).isEmpty)
        #expect(emp.device.closed.isEmpty && emp.session?.playerState == .playing)
        #expect(emp.emp("pull").empTypes.count == 7)
    }
}
