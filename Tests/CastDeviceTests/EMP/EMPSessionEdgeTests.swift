import CastDevice
import CastSimulatorTesting
import CastWire
import Testing

/// The EMP receiver where a session is at its edges: ended before it ever played, tracks
/// changed before the first PLAYING, a channel started outside its window, played faster
/// than live, or between two programs of its EPG.
@Suite("EMP receiver: sessions at their edges")
struct EMPSessionEdgeTests {
    @Test("A session that ends while loading (STOP, a player error) leaves no EMP playback behind")
    func endedWhileLoading() {
        var emp = EMPDevice { $0.mediaCatalog.add("movie-1", MediaLoadBehaviour(loadDelay: 5)) }
        emp.load("movie-1")
        #expect(emp.state?.assetId == "movie-1" && emp.session?.phase == .loading)
        emp.media(["type": "STOP", "mediaSessionId": .number(Double(emp.session?.mediaSessionId ?? 0))])
        #expect(emp.session == nil && emp.state == nil)
        // Nothing plays: a player error has no EMP session to report, the load never becomes ready.
        #expect(emp.apply(.playerError(detailedErrorCode: nil)).isEmpty)
        #expect(emp.advance(10).emp.isEmpty)

        emp.load("movie-1")
        let failed = emp.apply(.playerError(detailedErrorCode: 104))
        // The load it interrupted failed: LOAD_FAILED with the player's code, not LOAD_CANCELLED.
        #expect(failed.sequence == ["emp:error", "media:LOAD_FAILED", "media:MEDIA_STATUS"] && emp.state == nil)
        #expect(failed.ofType("LOAD_FAILED").first?.json["detailedErrorCode"] == 104)
        #expect(emp.apply(.playerError(detailedErrorCode: nil)).isEmpty)
    }

    @Test("A track change before the first PLAYING (autoplay false) is told at once; the load's own choice is not")
    func tracksBeforePlaying() throws {
        var emp = EMPDevice()
        let loaded = emp.load("movie-1", extra: ["subtitleLanguage": "en"], request: ["autoplay": false])
        #expect(emp.session?.playerState == .paused)
        #expect(!loaded.empTypes.contains("tracksupdated"))
        let shown = emp.emp("showtexttrack", ["language": "sv"])
        let update = try #require(shown.emp("tracksupdated"))
        // Text en 0, sv 1; audio en 2, de 3: sv and the first audio track.
        #expect(update["data"]?["tracksInfo"]?["activeTrackIds"]?.arrayValue.map(Set.init) == [1, 2])
        // PLAYING still announces the tracks, as on every first play.
        #expect(emp.media(["type": "PLAY"]).emp("tracksupdated")?["data"]?["tracksInfo"]?["activeTrackIds"]?.arrayValue.map(Set.init) == [1, 2])
    }

    @Test("A channel started past its window's ends starts at the end, and its program is the one there from the start")
    func liveStartOutsideWindow() throws {
        var emp = EMPDevice { $0.liveWindow = 300 }
        emp.advance(1000)  // Noon (600–1200) is on air; the window reaches back to 700
        // Morning's 100 s is before the window: the player starts at the window's start, in Noon.
        let early = emp.load("news-24", extra: ["playbackProperties": ["playFrom": "startTime",
                                                                       "startTime": .number(Double(EMPDevice.epoch + 100_000))]])
        #expect(early.statuses.map { $0["media"]?["contentId"] }.allSatisfy { $0 == "a-p2" })
        #expect(early.statuses.last?["currentTime"] == 0)
        #expect(early.emp("programchanged")?["data"]?["program"]?["programId"] == "p2")
        #expect(early.empTypes.filter { $0 == "programchanged" }.count == 1)
        // An offset into the program beyond now: the live edge, and the program on air.
        let late = emp.load("news-24", extra: ["playbackProperties": ["playFrom": "defaultBehaviour", "startOffset": 700_000]])
        #expect(late.statuses.compactMap { $0["media"]?["contentId"] }.allSatisfy { $0 == "a-p2" })
        #expect(late.statuses.last?["currentTime"] == 300)
        #expect(late.emp("programchanged")?["data"]?["program"]?["programId"] == "p2")
    }

    @Test("Faster than live: behind the edge the playhead's time runs at the rate, at the edge at 1×")
    func programBoundaryAtRate() {
        var emp = EMPDevice()
        emp.advance(400)
        emp.load("news-24", extra: ["playbackProperties": ["playFrom": "beginning"]])  // Morning's start, 400 s behind
        emp.media(["type": "SET_PLAYBACK_RATE", "playbackRate": 2])
        // 12:10 of stream time is 600 s of stream ahead: 300 s at 2×, before the edge is caught up (400 s).
        #expect(emp.device.device.nextDeadline == SimTime(seconds: 700))
        #expect(emp.advance(300).emp("programchanged")?["data"]?["program"]?["programId"] == "p2")
        // 100 s behind now: caught up at 800, then the edge shows now, and Evening starts at 1200.
        #expect(emp.device.device.nextDeadline == SimTime(seconds: 1200))
        #expect(emp.advance(499).emp.isEmpty)
        #expect(emp.advance(1).emp("programchanged")?["data"]?["program"]?["programId"] == "p3")
    }

    @Test("Between two programs and after the last: the media says the channel alone, no programchanged")
    func programGuideGap() throws {
        var world = EMPDevice.world
        world.channels["gappy"] = .init(title: "Gappy", programs: [
            .init(programId: "g1", assetId: "a-g1", title: "First", start: 0, end: 600),
            .init(programId: "g2", assetId: "a-g2", title: "Second", start: 900, end: 1200),
        ])
        var emp = EMPDevice(world: world)
        emp.load("gappy")
        let gap = emp.advance(600)
        #expect(gap.sequence == ["media:MEDIA_STATUS"])
        let media = try #require(gap.statuses.last?["media"])
        #expect(media["contentId"] == "gappy" && media["metadata"]?["title"] == "Gappy")
        #expect(media["customData"] == ["channelId": "gappy"] && media["empPayload"] == media["customData"])
        #expect(emp.state?.programId == nil)
        let second = emp.advance(300)
        #expect(second.sequence == ["emp:startTimeLive", "emp:programchanged", "media:MEDIA_STATUS"])
        #expect(second.statuses.last?["media"]?["contentId"] == "a-g2")
        let after = emp.advance(300)
        #expect(after.sequence == ["media:MEDIA_STATUS"] && after.statuses.last?["media"]?["contentId"] == "gappy")
    }

    @Test("Dates before year 1000 keep four digits, as JavaScript writes them")
    func earlyYears() {
        var world = EMPDevice.world
        world.epochMilliseconds = -62_135_596_800_000  // 0001-01-01T00:00:00Z
        var emp = EMPDevice(world: world)
        let program = emp.load("news-24").emp("programchanged")?["data"]?["program"]
        #expect(program?["startTime"] == "0001-01-01T00:00:00.000Z" && program?["endTime"] == "0001-01-01T00:10:00.000Z")
    }

    @Test("The LOAD's playbackRate applies to the EMP session")
    func loadPlaybackRate() {
        var emp = EMPDevice()
        #expect(emp.load("movie-1", request: ["playbackRate": 1.5]).statuses.last?["playbackRate"] == 1.5)
        #expect(emp.session?.playbackRate == 1.5)
    }
}
