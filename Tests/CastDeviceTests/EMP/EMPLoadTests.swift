import CastDevice
import CastSimulatorTesting
import CastWire
import Testing

@Suite("EMP receiver: the app and its LOAD (docs/protocol/emp.md §5)")
struct EMPLoadTests {
    @Test("Built in as F40E2D17 \"EMP Receiver\"; RECEIVER_STATUS lists the media and the EMP namespace")
    func builtIn() throws {
        var emp = EMPDevice()
        let status = emp.device.send(emp.first, from: "sender-1", CastNamespace.receiver, ["type": "GET_STATUS", "requestId": 5])
        let app = try #require(status.first?.json["status"]?["applications"]?.arrayValue?.first)
        #expect(app["appId"] == "F40E2D17" && app["displayName"] == "EMP Receiver")
        #expect(app["namespaces"] == [["name": .string(CastNamespace.media)], ["name": .string(CastNamespace.emp)]])
    }

    @Test("Another app id with behaviour emp (the Android SDK's 5D5D5CE6) is the same receiver")
    func otherAppId() throws {
        var emp = EMPDevice(appId: "5D5D5CE6") { configuration in
            configuration.apps.append(CastAppDefinition(appId: "5D5D5CE6", displayName: "Enigma", namespaces: CastAppDefinition.emp.namespaces,
                                                        behaviour: .emp))
        }
        #expect(emp.device.snapshot.runningApp?.appId == "5D5D5CE6")
        let replies = emp.load("movie-1")
        #expect(replies.empTypes == ["entitlementchange", "timeShiftEnabled", "tracksupdated"])
    }

    @Test("Current form: the whole sequence, the tracks, the languages asked for, MEDIA_STATUS as emp.md §5.6 says")
    func currentForm() throws {
        var emp = EMPDevice()
        let replies = emp.load("movie-1", extra: ["subtitleLanguage": "sv", "audioLanguage": "de", "locale": "sv_SE",
                                                  "adParameters": ["consent": "yes"], "adobePrimetimeToken": "cHJpbWU="])
        #expect(replies.sequence == ["emp:entitlementchange", "media:MEDIA_STATUS", "emp:timeShiftEnabled", "emp:tracksupdated",
                                     "media:MEDIA_STATUS"])
        #expect(replies.emp("entitlementchange") == ["type": "entitlementchange", "data": ["entitlement": [
            "assetId": "movie-1", "live": false, "ffEnabled": true, "rwEnabled": true, "timeshiftEnabled": true,
            "airplayBlocked": false,
        ]]])
        #expect(replies.emp("timeShiftEnabled") == ["type": "timeShiftEnabled", "data": true])
        #expect(replies.emp("tracksupdated") == ["type": "tracksupdated", "data": ["tracksInfo": [
            "activeTrackIds": [1, 3],
            "tracks": [
                ["id": 0, "trackId": 0, "label": "English", "language": "en", "type": "text", "kind": "subtitles"],
                ["id": 1, "trackId": 1, "label": "Svenska", "language": "sv", "type": "text", "kind": "subtitles"],
                ["id": 2, "trackId": 2, "label": "English", "language": "en", "type": "audio", "kind": "main"],
                ["id": 3, "trackId": 3, "label": "Deutsch", "language": "de", "type": "audio", "kind": "main"],
            ],
        ]]])
        let status = try #require(replies.statuses.last)
        #expect(status["playerState"] == "PLAYING" && status["activeTrackIds"] == [1, 3] && status["currentTime"] == 0)
        let media = try #require(status["media"])
        #expect(media["contentId"] == "movie-1" && media["contentType"] == "video/emp" && media["streamType"] == "BUFFERED")
        #expect(media["duration"] == 5400 && media["customData"] == ["assetId": "movie-1"] && media["empPayload"] == ["assetId": "movie-1"])
        #expect(media["metadata"] == ["metadataType": 0, "title": "Northern Lights"])
        #expect(media["tracks"]?.arrayValue?.map { $0["type"] } == ["TEXT", "TEXT", "AUDIO", "AUDIO"])
        // The session token is not echoed to every sender.
        #expect(status["credentials"] == nil && status["customData"]?["customer"] == "Blixt")
        #expect(emp.state == EMPSnapshot(assetId: "movie-1", channelId: nil, programId: nil, isLive: false, timeshiftEnabled: true,
                                         autoplay: true, entitlement: .init(live: false), customer: "Blixt", businessUnit: "Play",
                                         title: "Northern Lights"))
    }

    @Test("The media only in queueData (the iOS sample's GCKMediaQueueData): the asset id comes from the start item")
    func queueDataOnly() throws {
        var emp = EMPDevice()
        let replies = emp.media(["type": "LOAD", "credentials": "tok-valid", "customData": ["customer": "Blixt", "businessUnit": "Play"],
                                 "queueData": ["startIndex": 1, "items": [["media": ["contentId": "short-1"]], ["media": ["contentId": "movie-1"]]]]])
        #expect(replies.statuses.last?["media"]?["contentId"] == "movie-1")
        #expect(emp.state?.assetId == "movie-1")
    }

    @Test("No subtitles asked, or \"None\" (iOS 2.2.2): only the audio track is active; one audio language has no audio track")
    func languages() {
        var emp = EMPDevice()
        #expect(emp.load("movie-1").statuses.last?["activeTrackIds"] == [2])
        #expect(emp.load("movie-1", extra: ["subtitleLanguage": "None", "audioLanguage": "en"]).statuses.last?["activeTrackIds"] == [2])
        let short = emp.load("short-1")
        #expect(short.emp("tracksupdated") == ["type": "tracksupdated", "data": ["tracksInfo": ["activeTrackIds": [], "tracks": []]]])
        #expect(short.statuses.last?["media"]?["tracks"] == nil)
    }

    @Test("Legacy form (iOS 2.2): ericssonexposure, assetId, playbackProperties bookmark, \"None\", autoplay false")
    func legacyForm() throws {
        var emp = EMPDevice()
        let replies = emp.media(["type": "LOAD", "media": ["contentId": "movie-1", "streamType": "NONE", "contentType": "video/mp4"], "customData": [
            "ericssonexposure": ["exposureApiURL": "https://exposure.test/v1", "customer": "Blixt", "businessUnit": "Play",
                                 "sessionToken": "tok-valid"],
            "assetId": "movie-1", "playbackProperties": ["playFrom": "bookmark"], "subtitleLanguage": "None", "audioLanguage": "de",
            "timeShiftDisabled": false, "autoplay": false, "useLastViewedOffset": false, "maxBitrate": 3_000_000, "language": "sv",
        ]])
        let status = try #require(replies.statuses.last)
        #expect(status["playerState"] == "PAUSED" && status["currentTime"] == 1500 && status["activeTrackIds"] == [3])
        // Paused, so not yet "playing": tracksupdated waits for PLAY.
        #expect(replies.empTypes == ["entitlementchange", "timeShiftEnabled"])
        #expect(emp.emp("pull").emp("autoplay") == ["type": "autoplay", "data": false])
        #expect(emp.media(["type": "PLAY"]).empTypes == ["tracksupdated"])
    }

    @Test("Legacy v0.73: textLanguage, the deprecated startTime in seconds, useLastViewedOffset, channelId")
    func legacyV073() {
        var emp = EMPDevice()
        let exposure: JSONValue = ["exposureApiURL": "https://exposure.test", "customer": "Blixt", "businessUnit": "Play", "sessionToken": "tok-valid"]
        var replies = emp.media(["type": "LOAD", "media": ["contentId": "movie-1"], "customData": [
            "ericssonexposure": exposure, "assetId": "movie-1", "textLanguage": "en", "startTime": 120]])
        #expect(replies.statuses.last?["currentTime"] == 120 && replies.statuses.last?["activeTrackIds"] == [0, 2])
        replies = emp.media(["type": "LOAD", "media": ["contentId": "movie-1"], "customData": [
            "ericssonexposure": exposure, "assetId": "movie-1", "useLastViewedOffset": true]])
        #expect(replies.statuses.last?["currentTime"] == 1500)
        replies = emp.media(["type": "LOAD", "media": ["contentId": "news-24"], "customData": [
            "ericssonexposure": exposure, "channelId": "news-24", "timeShiftDisabled": true]])
        #expect(replies.statuses.last?["media"]?["streamType"] == "LIVE")
        #expect(replies.emp("timeShiftEnabled") == ["type": "timeShiftEnabled", "data": false])
    }

    @Test("The current form has no playback properties: LOAD's currentTime is where it starts")
    func currentTimeStart() {
        var emp = EMPDevice()
        #expect(emp.load("movie-1", request: ["currentTime": 77]).statuses.last?["currentTime"] == 77)
    }

    @Test("Android Enigma's hybrid: customer at the top and in ericssonexposure, playbackProperties startOffset")
    func enigmaHybrid() {
        var emp = EMPDevice()
        let replies = emp.media(["type": "LOAD", "media": ["contentId": "movie-1"], "credentials": "tok-valid", "autoplay": true,
                                 "customData": ["customer": "Blixt", "businessUnit": "Play",
                                                "ericssonexposure": ["customer": "Blixt", "businessUnit": "Play", "sessionToken": "tok-valid"],
                                                "assetId": "movie-1", "playbackProperties": ["playFrom": "defaultBehaviour", "startOffset": 90000]]])
        #expect(replies.statuses.last?["currentTime"] == 90)
    }

    @Test("Start positions of a VOD asset", arguments: [
        (["playFrom": "beginning"], [:], 0.0),
        (["playFrom": "bookmark"], [:], 1500),
        (["playFrom": "defaultBehaviour"], [:], 0),
        (["playFrom": "startTime", "startOffset": 42000], [:], 42),
        // The playback properties win over LOAD's currentTime, as in receiver 2.79.
        (["playFrom": "bookmark"], ["currentTime": 77], 1500),
    ] as [(JSONValue, [String: JSONValue], Double)])
    func vodStart(properties: JSONValue, request: [String: JSONValue], position: Double) {
        var emp = EMPDevice()
        let replies = emp.load("movie-1", extra: ["playbackProperties": properties], request: request)
        #expect(replies.statuses.last?["currentTime"] == .number(position))
    }

    @Test("Start positions of a channel: the live edge, the program's start, a wall-clock startTime")
    func liveStart() {
        var emp = EMPDevice()
        emp.advance(900)  // 12:15, Noon (12:10–12:20) is on air
        var replies = emp.load("news-24")
        let window = 1800.0
        #expect(replies.statuses.last?["currentTime"] == .number(window))
        replies = emp.load("news-24", extra: ["playbackProperties": ["playFrom": "beginning"]])
        #expect(replies.statuses.last?["currentTime"] == .number(window - 300))
        replies = emp.load("news-24", extra: ["playbackProperties": ["playFrom": "startTime",
                                                                     "startTime": .number(Double(EMPDevice.epoch + 120_000))]])
        #expect(replies.statuses.last?["currentTime"] == .number(window - 780))
        // That was Morning at the playhead.
        #expect(replies.emp("programchanged")?["data"]?["program"]?["programId"] == "p1")
    }

    @Test("A channel: LIVE, duration null, the program's asset as contentId, ids in customData and empPayload")
    func channelStatus() throws {
        var emp = EMPDevice()
        let replies = emp.load("news-24")
        let media = try #require(replies.statuses.last?["media"])
        #expect(media["streamType"] == "LIVE" && media["duration"] == .null && media["contentType"] == "video/emp")
        #expect(media["contentId"] == "a-p1")
        #expect(media["customData"] == ["channelId": "news-24", "assetId": "a-p1", "programId": "p1"] && media["empPayload"] == media["customData"])
        #expect(replies.sequence == ["emp:entitlementchange", "media:MEDIA_STATUS", "emp:timeShiftEnabled", "emp:startTimeLive",
                                     "emp:programchanged", "emp:tracksupdated", "media:MEDIA_STATUS"])
        #expect(replies.emp("entitlementchange")?["data"]?["entitlement"]?["live"] == true)
    }

    @Test("Refused loads: the EMP error event, then LOAD_FAILED to the requester and IDLE/ERROR to everyone", arguments: [
        ("tok-nope", "Blixt", "movie-1", 102, "INVALID_SESSION_TOKEN", "AUTHENTICATION_EXPIRED"),
        ("tok-old", "Blixt", "movie-1", 102, "SESSION_TOKEN_EXPIRED", "AUTHENTICATION_EXPIRED"),
        ("tok-other", "Blixt", "movie-1", 102, "INVALID_SESSION_TOKEN", "AUTHENTICATION_EXPIRED"),
        ("tok-valid", "Nobody", "movie-1", 102, "UNKNOWN_BUSINESS_UNIT", "INVALID_PARAMS"),
        ("tok-valid", "Blixt", "nothing-9", 101, "UNKNOWN_ASSET", "INVALID_PARAMS"),
        ("tok-valid", "Blixt", "geo-1", 102, "GEO_BLOCKED", "NOT_AVAILABLE_IN_REGION"),
    ])
    func refused(token: String, customer: String, asset: String, code: Int, message: String, reason: String) throws {
        var emp = EMPDevice()
        let replies = emp.media(["type": "LOAD", "requestId": 41, "media": ["contentId": .string(asset)], "credentials": .string(token),
                                 "customData": ["customer": .string(customer), "businessUnit": "Play"]])
        #expect(replies.sequence == ["emp:error", "media:MEDIA_STATUS", "media:LOAD_FAILED", "media:MEDIA_STATUS"])
        #expect(replies.emp("error") == ["type": "error", "data": ["type": "ERROR", "code": .number(Double(code)), "message": .string(message)]])
        let failed = try #require(replies.ofType("LOAD_FAILED").first)
        #expect(failed.json == ["type": "LOAD_FAILED", "requestId": 41, "itemId": 1, "detailedErrorCode": 905, "reason": .string(reason)])
        #expect(failed.envelope.destinationId == "sender-1" && failed.to == [emp.first])
        #expect(replies.statuses.last?["playerState"] == "IDLE" && replies.statuses.last?["idleReason"] == "ERROR")
        #expect(emp.state == nil)
    }

    @Test("Known fields of the wrong type: INVALID_PARAMS, nothing else happens")
    func badTypes() {
        var emp = EMPDevice()
        for customData: JSONValue in [["subtitleLanguage": 5], ["playbackProperties": ["playFrom": "middle"]], ["ericssonexposure": "x"]] {
            let replies = emp.media(["type": "LOAD", "requestId": 7, "media": ["contentId": "movie-1"], "credentials": "tok-valid",
                                     "customData": customData])
            #expect(replies.map(\.json) == [["type": "INVALID_REQUEST", "requestId": 7, "reason": "INVALID_PARAMS"]])
        }
        #expect(emp.session == nil)
    }

    @Test("Without an exposure section everything plays: any token, any asset id, as VOD of the default length")
    func openWorld() {
        var emp = EMPDevice(world: ExposureWorld())
        let replies = emp.load("anything-at-all", token: "whatever")
        #expect(replies.statuses.last?["playerState"] == "PLAYING" && replies.statuses.last?["media"]?["duration"] == 600)
    }
}
