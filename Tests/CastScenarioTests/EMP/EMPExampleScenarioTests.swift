import CastDevice
import CastScenario
import CastSimulatorTesting
import CastWire
import Foundation
import Testing

/// The EMP example scenarios do what their descriptions say, with the LOADs they describe.
@Suite("The EMP example scenarios play as described")
struct EMPExampleScenarioTests {
    private func device(_ file: String) throws -> CastTestDevice {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../scenarios")
        return CastTestDevice(scenario: try Scenario.load(contentsOf: folder.appendingPathComponent(file)))
    }

    private func load(_ contentId: String, token: String, custom: [String: JSONValue] = [:]) -> JSONValue {
        var customData: [String: JSONValue] = ["customer": "Blixt", "businessUnit": "Play"]
        customData.merge(custom) { $1 }
        return ["type": "LOAD", "requestId": 2, "media": ["contentId": .string(contentId)], "credentials": .string(token),
                "customData": .object(customData)]
    }

    @Test("emp-vod-bookmark: starts at the bookmark, tracks numbered text first, the asked languages active")
    func vodBookmark() throws {
        var harness = try device("emp-vod-bookmark.json")
        // Every EMP message the scenario made must decode under the iOS and Android Enigma rules.
        defer { #expect(harness.sent().empSenderProblems == []) }
        let (connection, transport) = harness.launch(CastAppDefinition.emp.appId)
        let sent = harness.send(connection, to: transport, CastNamespace.media, load("movie-1", token: "tok-valid", custom: [
            "subtitleLanguage": "sv", "audioLanguage": "de", "playbackProperties": ["playFrom": "bookmark"],
        ]))
        #expect(sent.statuses.last?["currentTime"]?.doubleValue == 1500)
        let tracks = try #require(sent.emp("tracksupdated").last?["data"]?["tracksInfo"])
        #expect(tracks["tracks"]?.arrayValue?.compactMap { $0["language"]?.stringValue } == ["en", "sv", "en", "de"])
        #expect(tracks["tracks"]?.arrayValue?.compactMap { $0["id"]?.intValue } == [0, 1, 2, 3])
        #expect(tracks["activeTrackIds"] == [1, 3])
        // The expectation on the EMP namespace (`"namespace": "emp"`) is met by the sender's command.
        #expect(harness.expectation("changes the subtitles on the EMP namespace")?.passed != true)
        let shown = harness.send(connection, to: transport, CastNamespace.emp, ["type": "showtexttrack", "data": ["language": "en"]])
        #expect(shown.emp("tracksupdated").last?["data"]?["tracksInfo"]?["activeTrackIds"] == [3, 0])
        #expect(harness.expectation("changes the subtitles on the EMP namespace")?.passed == true)
    }

    @Test("emp-live-epg: the timeline carries a live channel across its two program boundaries")
    func liveEPG() throws {
        var harness = try device("emp-live-epg.json")
        // Every EMP message the scenario made must decode under the iOS and Android Enigma rules.
        defer { #expect(harness.sent().empSenderProblems == []) }
        let (connection, transport) = harness.launch(CastAppDefinition.emp.appId)
        let sent = harness.send(connection, to: transport, CastNamespace.media, load("news-24", token: "tok-valid"))
        let epoch: Int64 = 1_777_658_400_000
        #expect(harness.session.now == SimTime(seconds: 1500))
        // The last two: the program on air at the LOAD may be announced too.
        #expect(sent.emp("programchanged").compactMap { $0["data"]?["program"]?["programId"]?.stringValue }.suffix(2)
            == ["news-24-weather", "news-24-sport"])
        let weather = sent.emp("programchanged").last { $0["data"]?["program"]?["programId"] == "news-24-weather" }
        #expect(weather?["data"]?["program"]?["startTime"] == "2026-05-01T18:10:00.000Z")
        #expect(weather?["data"]?["program"]?["endTime"] == "2026-05-01T18:20:00.000Z")
        #expect(sent.emp("startTimeLive").compactMap { $0["data"]?.intValue }.suffix(2) == [Int(epoch) + 600_000, Int(epoch) + 1_200_000])
    }

    @Test("emp-entitlement-failure: GEO_BLOCKED and an expired token, each an error event and LOAD_FAILED")
    func entitlementFailure() throws {
        var harness = try device("emp-entitlement-failure.json")
        // Every EMP message the scenario made must decode under the iOS and Android Enigma rules.
        defer { #expect(harness.sent().empSenderProblems == []) }
        let (connection, transport) = harness.launch(CastAppDefinition.emp.appId)
        for (content, token, code, message) in [("abroad-1", "tok-valid", 102, "GEO_BLOCKED"), ("movie-1", "tok-old", 102, "SESSION_TOKEN_EXPIRED"),
                                                ("movie-1", "tok-nobody", 102, "INVALID_SESSION_TOKEN"), ("gone", "tok-valid", 101, "UNKNOWN_ASSET")] {
            let sent = harness.send(connection, to: transport, CastNamespace.media, load(content, token: token))
            #expect(sent.emp("error").map { $0["data"] } == [["type": "ERROR", "code": .number(Double(code)), "message": .string(message)]],
                    "\(content) \(token)")
            #expect(sent.ofType("LOAD_FAILED").count == 1, "\(content) \(token)")
        }
        #expect(harness.expectation("sends a LOAD with the expired token")?.passed == true)
    }

    @Test("emp-missing-segment: seeks into the declared gap and into the one the step adds are cancelled")
    func missingSegment() throws {
        var harness = try device("emp-missing-segment.json")
        // Every EMP message the scenario made must decode under the iOS and Android Enigma rules.
        defer { #expect(harness.sent().empSenderProblems == []) }
        let (connection, transport) = harness.launch(CastAppDefinition.emp.appId)
        let loaded = harness.send(connection, to: transport, CastNamespace.media, load("gappy-1", token: "tok-valid"))
        let session = try #require(loaded.statuses.last?["mediaSessionId"])
        let first = harness.send(connection, to: transport, CastNamespace.media,
                                 ["type": "SEEK", "requestId": 3, "mediaSessionId": session, "currentTime": 630])
        #expect(first.emp("segmentmissing").map { $0["data"] } == [630])
        harness.advance(10)
        let second = harness.send(connection, to: transport, CastNamespace.media,
                                  ["type": "SEEK", "requestId": 4, "mediaSessionId": session, "currentTime": 1230])
        #expect(second.emp("segmentmissing").map { $0["data"] } == [1230])
        let fine = harness.send(connection, to: transport, CastNamespace.media,
                                ["type": "SEEK", "requestId": 5, "mediaSessionId": session, "currentTime": 900])
        #expect(fine.emp("segmentmissing").isEmpty && fine.statuses.last?["currentTime"]?.doubleValue == 900)
    }

    @Test("emp-legacy-load: app 5D5D5CE6 takes a v2.2 LOAD from customData")
    func legacyLoad() throws {
        var harness = try device("emp-legacy-load.json")
        // Every EMP message the scenario made must decode under the iOS and Android Enigma rules.
        defer { #expect(harness.sent().empSenderProblems == []) }
        let (connection, transport) = harness.launch("5D5D5CE6")
        #expect(harness.snapshot.runningApp?.appId == "5D5D5CE6")
        let sent = harness.send(connection, to: transport, CastNamespace.media, [
            "type": "LOAD", "requestId": 2, "media": ["contentId": "movie-1", "streamType": "NONE", "contentType": "video/mp4"],
            "customData": [
                "ericssonexposure": ["exposureApiURL": "https://exposure.example", "customer": "Blixt", "businessUnit": "Play",
                                     "sessionToken": "tok-valid"],
                "assetId": "movie-1", "playbackProperties": ["playFrom": "bookmark"], "subtitleLanguage": "en",
            ],
        ])
        #expect(sent.ofType("LOAD_FAILED").isEmpty)
        #expect(sent.statuses.last?["currentTime"]?.doubleValue == 600)
        #expect(sent.emp("tracksupdated").last?["data"]?["tracksInfo"]?["activeTrackIds"] == [0])
    }
}

extension Array where Element == SentMessage {
    /// The EMP events of one type.
    fileprivate func emp(_ type: String) -> [JSONValue] {
        filter { $0.envelope.namespace == CastNamespace.emp && $0.type == type }.map(\.json)
    }
}
