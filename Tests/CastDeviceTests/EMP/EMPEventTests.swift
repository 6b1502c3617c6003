import CastDevice
import CastSimulatorTesting
import CastWire
import Testing

@Suite("EMP receiver: events as the real receiver sends them (docs/protocol/emp.md §4)")
struct EMPEventTests {
    @Test("A live channel crosses two program boundaries in scenario time: startTimeLive, then programchanged, then MEDIA_STATUS")
    func programBoundaries() throws {
        var emp = EMPDevice()
        let loaded = emp.load("news-24")
        let first = try #require(loaded.emp("programchanged"))
        #expect(first == ["type": "programchanged", "data": ["program": [
            "programId": "p1", "assetId": "a-p1", "channelId": "news-24", "title": "Morning",
            "startTime": "2026-01-01T12:00:00.000Z", "endTime": "2026-01-01T12:10:00.000Z",
            "start": "2026-01-01T12:00:00.000Z", "end": "2026-01-01T12:10:00.000Z",
            "asset": ["assetId": "a-p1", "localized": [["locale": "en", "title": "Morning"]]],
        ]]])
        #expect(loaded.emp("startTimeLive") == ["type": "startTimeLive", "data": .number(Double(EMPDevice.epoch))])
        #expect(emp.advance(599).emp.isEmpty)
        let noon = emp.advance(1)
        #expect(noon.sequence == ["emp:startTimeLive", "emp:programchanged", "media:MEDIA_STATUS"])
        #expect(noon.emp("startTimeLive")?["data"] == .number(Double(EMPDevice.epoch + 600_000)))
        #expect(noon.emp("programchanged")?["data"]?["program"]?["programId"] == "p2")
        #expect(noon.statuses.last?["media"]?["contentId"] == "a-p2" && noon.statuses.last?["media"]?["metadata"]?["title"] == "Noon")
        // Both senders get every EMP event.
        #expect(noon.emp.allSatisfy { $0.to == [emp.first, emp.second] })
        // One long advance under the manual clock still sends each boundary at its time.
        let evening = emp.advance(1200)
        #expect(evening.emp.compactMap { $0.json["data"]?["program"]?["programId"]?.stringValue } == ["p3"])
        #expect(emp.state?.programId == "p3")
    }

    @Test("A paused (timeshifted) channel crosses no boundary until it plays on; the playhead's program is what counts")
    func timeshiftedProgram() {
        var emp = EMPDevice()
        emp.load("news-24")
        emp.media(["type": "PAUSE"])
        #expect(emp.advance(700).emp.isEmpty)
        // Playing again 700 s behind the edge: Morning is still at the playhead until 12:10 of stream time.
        emp.media(["type": "PLAY"])
        #expect(emp.advance(590).emp.isEmpty)
        #expect(emp.advance(10).emp("programchanged")?["data"]?["program"]?["programId"] == "p2")
    }

    @Test("volumechange on every device and stream volume change")
    func volume() {
        var emp = EMPDevice()
        emp.load("movie-1")
        let device = emp.apply(.setDeviceVolume(level: 0.25, muted: nil))
        #expect(device.emp("volumechange") == ["type": "volumechange", "data": ["volume": 0.25, "muted": false]])
        let receiver = emp.device.send(emp.first, from: "sender-1", CastNamespace.receiver,
                                       ["type": "SET_VOLUME", "requestId": 3, "volume": ["muted": true]])
        #expect(receiver.emp("volumechange") == ["type": "volumechange", "data": ["volume": 0.25, "muted": true]])
        let stream = emp.media(["type": "SET_VOLUME", "volume": ["level": 0.5]])
        #expect(stream.emp("volumechange") == ["type": "volumechange", "data": ["volume": 0.5, "muted": false]])
    }

    @Test("A SEEK into missing segments is cancelled: segmentmissing (an integer), the status answers unchanged")
    func segmentMissing() throws {
        var emp = EMPDevice()
        emp.load("movie-1")
        emp.advance(10)
        let replies = emp.media(["type": "SEEK", "requestId": 61, "currentTime": 612.5])
        #expect(replies.sequence == ["emp:segmentmissing", "media:MEDIA_STATUS"])
        #expect(replies.emp("segmentmissing") == ["type": "segmentmissing", "data": 612])
        #expect(replies.statuses.last?["currentTime"] == 10 && replies.ofType("MEDIA_STATUS").last?.requestId == 61)
        // Outside the gap the seek goes through.
        #expect(emp.media(["type": "SEEK", "currentTime": 700]).statuses.last?["currentTime"] == 700)
        #expect(emp.media(["type": "SEEK", "relativeTime": -80]).emp("segmentmissing") == ["type": "segmentmissing", "data": 620])
    }

    @Test("The entitlement's restrictions: no forward seek without ffEnabled, no seek or pause without timeshift")
    func restrictions() throws {
        var emp = EMPDevice()
        let noff = emp.load("noff-1")
        #expect(noff.emp("entitlementchange")?["data"]?["entitlement"] == [
            "assetId": "noff-1", "live": false, "ffEnabled": false, "rwEnabled": true, "timeshiftEnabled": true,
            "airplayBlocked": false, "maxBitrate": 5_000_000, "maxResHeight": 1080])
        emp.advance(100)
        #expect(emp.media(["type": "SEEK", "requestId": 5, "currentTime": 200]).map(\.json) == [["type": "INVALID_PLAYER_STATE", "requestId": 5]])
        #expect(emp.media(["type": "SEEK", "currentTime": 50]).statuses.last?["currentTime"] == 50)
        let fixed = emp.load("fixed-1")
        let supported = try #require(fixed.statuses.last?["supportedMediaCommands"]?.intValue)
        #expect(supported & 3 == 0)  // neither PAUSE (1) nor SEEK (2)
        #expect(emp.media(["type": "PAUSE", "requestId": 6]).map(\.json) == [["type": "INVALID_PLAYER_STATE", "requestId": 6]])
    }

    @Test("A player error: the EMP error event (CHROMECAST_TECH), then the session ends IDLE/ERROR")
    func playerError() {
        var emp = EMPDevice()
        emp.load("movie-1")
        let replies = emp.apply(.playerError(detailedErrorCode: 104))
        #expect(replies.sequence == ["emp:error", "media:MEDIA_STATUS"])
        #expect(replies.emp("error") == ["type": "error", "data": ["type": "ERROR", "code": 500,
                                                                    "message": "CHROMECAST_TECH, detailedErrorCode 104"]])
        #expect(replies.statuses.last?["idleReason"] == "ERROR" && emp.state == nil)
        // Nothing plays: nothing to report.
        #expect(emp.apply(.playerError(detailedErrorCode: nil)).isEmpty)
    }

    @Test("Opt-in realism: assetchanged and liveDelay in the pull answer, fractional segmentmissing")
    func realReceiverExtras() {
        var world = EMPDevice.world
        world.realReceiverExtras = true
        var emp = EMPDevice(world: world)
        emp.knowinglyRejected = ["assetchanged", "liveDelay", "segmentmissing"]
        let loaded = emp.load("movie-1")
        #expect(loaded.empTypes == ["entitlementchange", "timeShiftEnabled", "assetchanged", "tracksupdated"])
        let vodPull = emp.emp("pull")
        #expect(vodPull.empTypes == ["volumechange", "timeShiftEnabled", "autoplay", "isLive", "startTimeLive", "assetchanged",
                                     "entitlementchange", "tracksupdated"])
        let missing = emp.media(["type": "SEEK", "currentTime": 612.5]).emp.filter { $0.type == "segmentmissing" }
        #expect(missing.first?.json["data"] == 612.5)
        emp.load("news-24")
        let livePull = emp.emp("pull")
        #expect(livePull.empTypes == ["volumechange", "timeShiftEnabled", "autoplay", "isLive", "liveDelay", "startTimeLive",
                                      "programchanged", "entitlementchange", "tracksupdated"])
        #expect(livePull.emp("liveDelay") == ["type": "liveDelay", "data": 30])
        // What the switch is for: each of these is one the iOS sender rejects.
        for message in (vodPull + missing + livePull).emp where emp.knowinglyRejected.contains(message.type ?? "") {
            #expect(!EMPSenderRules.problems(message.envelope.utf8 ?? "", for: .iOS).isEmpty)
        }
    }

    @Test("Operator inputs: any EMP event, an entitlement change, a program ended early, a segment gone missing")
    func operatorInputs() throws {
        var emp = EMPDevice()
        emp.load("news-24")
        #expect(emp.apply(.emp(.sendEvent(type: "isLive", data: nil))).emp("isLive") == ["type": "isLive", "data": true])
        #expect(emp.apply(.emp(.sendEvent(type: "error", data: ["type": "ERROR", "code": 500, "message": "CHROMECAST_TECH"])))
            .emp("error") == ["type": "error", "data": ["type": "ERROR", "code": 500, "message": "CHROMECAST_TECH"]])
        emp.advance(100)
        let ended = emp.apply(.emp(.endProgram))
        #expect(ended.sequence == ["emp:startTimeLive", "emp:programchanged", "media:MEDIA_STATUS"])
        #expect(ended.emp("programchanged")?["data"]?["program"]?["startTime"] == "2026-01-01T12:01:40.000Z")
        let change = emp.apply(.emp(.setEntitlement(.granted(.init(ffEnabled: false, rwEnabled: false)))))
        #expect(change.emp("entitlementchange")?["data"]?["entitlement"]?["rwEnabled"] == false)
        #expect((change.statuses.last?["supportedMediaCommands"]?.intValue ?? 2) & 2 == 0)
        let refused = emp.apply(.emp(.setEntitlement(.refused(.init(message: "CONCURRENT_STREAMS_LIMIT_REACHED")))))
        #expect(refused.emp("error") == ["type": "error", "data": ["type": "ERROR", "code": 102, "message": "CONCURRENT_STREAMS_LIMIT_REACHED"]])
        #expect(refused.statuses.last?["idleReason"] == "ERROR" && emp.session == nil && emp.state == nil)

        emp.load("movie-1")
        emp.apply(.emp(.segmentMissing(from: 100, to: 200)))
        #expect(emp.media(["type": "SEEK", "currentTime": 150]).emp("segmentmissing")?["data"] == 150)
    }
}
