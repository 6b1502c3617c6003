import CastDevice
import CastScenario
import CastWire
import Foundation
import Testing

@Suite("Scenario files: the Exposure world and the emp step")
struct ExposureParsingTests {
    private func parse(_ text: String) throws(ScenarioValidationError) -> Scenario { try ScenarioText.parse(text) }
    private func issues(_ text: String) -> [String] { ScenarioText.issues(text) }

    /// A file with this `exposure` section and nothing else to check.
    private static func exposure(_ section: String) -> String { #"{"name": "x", "exposure": "# + section + "}" }

    /// A file whose only step is this `emp` action.
    private static func step(_ action: String) -> String { #"{"name": "x", "timeline": [{"at": "1s", "emp": "# + action + "}]}" }

    @Test("A full section parses into the exact model values")
    func fullSection() throws {
        let scenario = try parse(Self.exposure("""
        {
          "epoch": "2026-05-01T18:00:00Z",
          "businessUnits": [
            {"customer": "Blixt", "businessUnit": "Play", "sessionTokens": {"tok-valid": "valid", "tok-old": "expired"}},
            {"customer": "Blixt", "businessUnit": "Kids"}
          ],
          "assets": {
            "movie-1": {"title": "The Movie", "duration": "1h30m", "textLanguages": ["en", "sv"], "audioLanguages": ["en", "de"],
                        "gaps": [{"from": "10m", "to": "11m"}, {"from": "1h", "to": "1h30m"}], "bookmark": "25m",
                        "entitlement": {"ffEnabled": false, "airplayBlocked": true, "minBitrate": 0, "maxBitrate": 5000000, "maxResHeight": 1080}},
            "blocked": {"entitlement": {"refuse": "GEO_BLOCKED"}},
            "busy": {"entitlement": {"refuse": "CONCURRENT_STREAMS_LIMIT_REACHED", "code": 103}},
            "plain": {}
          },
          "channels": {
            "news-24": {
              "title": "News 24", "audioLanguages": ["sv"],
              "programs": [
                {"programId": "p1", "assetId": "a1", "title": "Morning", "start": "0s", "end": "30m"},
                {"programId": "p2", "assetId": "a2", "start": "45m", "end": "1h"}
              ],
              "entitlement": {"live": true, "rwEnabled": false, "timeshiftEnabled": false}
            }
          },
          "realReceiverExtras": true,
          "liveDelay": "12s"
        }
        """))
        let expected = ExposureWorld(
            epochMilliseconds: 1_777_658_400_000, isOpen: false,
            businessUnits: [
                .init(customer: "Blixt", businessUnit: "Play", sessionTokens: ["tok-valid": .valid, "tok-old": .expired]),
                .init(customer: "Blixt", businessUnit: "Kids", sessionTokens: [:]),
            ],
            assets: [
                "movie-1": .init(title: "The Movie", duration: 5400, textLanguages: ["en", "sv"], audioLanguages: ["en", "de"],
                                 gaps: [.init(from: 600, to: 660), .init(from: 3600, to: 5400)], bookmark: 1500,
                                 entitlement: .granted(.init(ffEnabled: false, airplayBlocked: true, minBitrate: 0,
                                                             maxBitrate: 5_000_000, maxResHeight: 1080))),
                "blocked": .init(entitlement: .refused(.init(message: "GEO_BLOCKED", code: EMPErrorCode.entitlement))),
                "busy": .init(entitlement: .refused(.init(message: "CONCURRENT_STREAMS_LIMIT_REACHED", code: 103))),
                "plain": .init(),
            ],
            channels: [
                "news-24": .init(title: "News 24",
                                 programs: [
                                     .init(programId: "p1", assetId: "a1", title: "Morning", start: 0, end: 1800),
                                     .init(programId: "p2", assetId: "a2", title: nil, start: 2700, end: 3600),
                                 ],
                                 textLanguages: [], audioLanguages: ["sv"],
                                 entitlement: .granted(.init(live: true, rwEnabled: false, timeshiftEnabled: false))),
            ],
            realReceiverExtras: true, liveDelay: 12)
        #expect(scenario.device.exposure == expected)
        // Grant defaults, spelled out: live unset (the receiver decides by asset or channel).
        #expect(scenario.device.exposure.assets["plain"]?.entitlement
            == .granted(.init(live: nil, ffEnabled: true, rwEnabled: true, timeshiftEnabled: true, airplayBlocked: false)))
    }

    @Test("Without the section the world is open; an empty section closes it with the defaults")
    func openAndEmpty() throws {
        #expect(try parse(#"{"name": "x"}"#).device.exposure == ExposureWorld())
        #expect(try parse(#"{"name": "x"}"#).device.exposure.isOpen)
        let closed = try parse(Self.exposure("{}")).device.exposure
        #expect(closed == ExposureWorld(isOpen: false))
        #expect(closed.epochMilliseconds == ExposureWorld.defaultEpochMilliseconds && closed.liveDelay == 30 && !closed.realReceiverExtras)
    }

    @Test("ISO 8601 epochs: Z or an offset, fractional seconds optional", arguments: [
        ("2026-05-01T18:00:00Z", 1_777_658_400_000), ("2026-05-01T20:00:00+02:00", 1_777_658_400_000),
        ("2026-05-01T13:30:00-04:30", 1_777_658_400_000), ("2026-05-01T18:00:00.5Z", 1_777_658_400_500),
        ("2026-05-01T18:00:00.123456Z", 1_777_658_400_123), ("2026-01-01T12:00:00Z", ExposureWorld.defaultEpochMilliseconds),
        ("1970-01-01T00:00:00Z", 0), ("1969-12-31T23:59:59Z", -1000), ("2024-02-29T00:00:00Z", 1_709_164_800_000),
        ("2000-03-01T00:00:00Z", 951_868_800_000), ("9999-12-31T23:59:59Z", 253_402_300_799_000),
    ] as [(String, Int64)])
    func isoTimes(text: String, milliseconds: Int64) throws {
        #expect(ISOTime.milliseconds(text) == milliseconds)
        #expect(try parse(Self.exposure(#"{"epoch": "\#(text)"}"#)).device.exposure.epochMilliseconds == milliseconds)
    }

    @Test("Not ISO 8601 epochs", arguments: [
        "2026-05-01", "2026-05-01 18:00:00Z", "2026-05-01T18:00:00", "2026-05-01T18:00Z", "2026-05-01T18:00:00.Z",
        "2026-05-01T18:00:00+0200", "2026-05-01T18:00:00+02", "2026-02-29T00:00:00Z", "2026-04-31T00:00:00Z",
        "2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z", "2026-05-01T24:00:00Z", "2026-05-01T18:60:00Z", "2026-05-01T18:00:60Z",
        "2026-05-01T18:00:00+24:00", "26-05-01T18:00:00Z", "2026-05-01T18:00:00Zz", "2026-05-01t18:00:00z", "",
    ])
    func notIsoTimes(text: String) {
        #expect(ISOTime.milliseconds(text) == nil)
    }

    /// A file and the one issue it must produce: every check of the section and the step.
    static let problemFiles: [(file: String, issue: String)] = [
        // the section
        (exposure(#"{"epoch": "yesterday"}"#),
         #"exposure.epoch: expected an ISO 8601 time like "2026-05-01T18:00:00Z" (Z or an offset like +02:00; fractional seconds optional), got "yesterday""#),
        (exposure(#"{"epoch": 1777658400000}"#),
         #"exposure.epoch: expected an ISO 8601 time like "2026-05-01T18:00:00Z" (Z or an offset like +02:00; fractional seconds optional), got a number (1777658400000)"#),
        (exposure(#"{"tokens": {}}"#),
         "exposure.tokens: unknown key; expected one of assets, businessUnits, channels, epoch, liveDelay, realReceiverExtras"),
        (exposure(#"{"liveDelay": 30}"#), #"exposure.liveDelay: expected a duration like "5s", got a number (30)"#),
        (exposure(#"{"realReceiverExtras": "yes"}"#), #"exposure.realReceiverExtras: expected true or false, got "yes""#),
        (exposure(#"{"assets": {"x": {}}, "channels": {"x": {}}}"#),
         #"exposure.channels.x: "x" is an asset too; expected an id to name an asset or a channel, not both"#),
        (exposure(#"{"assets": {"": {}}}"#), #"exposure.assets[""]: expected a non-empty id"#),
        // business units and tokens
        (exposure(#"{"businessUnits": [{"businessUnit": "Play"}]}"#),
         #"exposure.businessUnits[0].customer: missing; expected the customer, e.g. "Blixt""#),
        (exposure(#"{"businessUnits": [{"customer": "Blixt", "businessUnit": ""}]}"#),
         #"exposure.businessUnits[0].businessUnit: expected a non-empty string, got """#),
        (exposure(#"{"businessUnits": [{"customer": "Blixt", "businessUnit": "Play", "sessionTokens": {"t": "stale"}}]}"#),
         #"exposure.businessUnits[0].sessionTokens.t: expected one of "valid", "expired", got "stale""#),
        (exposure(#"{"businessUnits": [{"customer": "Blixt", "businessUnit": "Play", "sessionTokens": {"": "valid"}}]}"#),
         #"exposure.businessUnits[0].sessionTokens[""]: expected a non-empty token"#),
        (exposure(#"{"businessUnits": [{"customer": "B", "businessUnit": "P", "sessionTokens": {"tok-1": "valid"}}, {"customer": "B", "businessUnit": "Q", "sessionTokens": {"tok-1": "expired"}}]}"#),
         #"exposure.businessUnits[1].sessionTokens["tok-1"]: "tok-1" is a token of businessUnits[0] too; a token belongs to one business unit"#),
        (exposure(#"{"businessUnits": [{"customer": "Blixt", "businessUnit": "Play"}, {"customer": "Blixt", "businessUnit": "Play"}]}"#),
         "exposure.businessUnits[1]: Blixt/Play is declared by businessUnits[0] too; expected each customer and businessUnit pair once"),
        // assets
        (exposure(#"{"assets": {"a": {"duration": "0s"}}}"#), #"exposure.assets.a.duration: expected a duration like "5s" (more than 0), got "0s""#),
        (exposure(#"{"assets": {"a": {"textLanguages": ["en", ""]}}}"#),
         #"exposure.assets.a.textLanguages[1]: expected a non-empty string, got """#),
        (exposure(#"{"assets": {"a": {"audioLanguages": ["en", "de", "en"]}}}"#),
         #"exposure.assets.a.audioLanguages[2]: "en" is listed twice; expected each language once"#),
        (exposure(#"{"assets": {"a": {"textLanguages": "en"}}}"#), #"exposure.assets.a.textLanguages: expected an array, got "en""#),
        (exposure(#"{"assets": {"a": {"gaps": [{"from": "11m", "to": "10m"}]}}}"#),
         #"exposure.assets.a.gaps[0].to: expected a time after from (11m), got "10m""#),
        (exposure(#"{"assets": {"a": {"gaps": [{"from": "10m", "to": "10m"}]}}}"#),
         #"exposure.assets.a.gaps[0].to: expected a time after from (10m), got "10m""#),
        (exposure(#"{"assets": {"a": {"duration": "1h", "gaps": [{"from": "10m", "to": "2h"}]}}}"#),
         #"exposure.assets.a.gaps[0].to: expected at most the asset's duration (1h), got "2h""#),
        (exposure(#"{"assets": {"a": {"gaps": [{"from": "10m"}]}}}"#),
         #"exposure.assets.a.gaps[0].to: missing; expected where they end, e.g. "12m""#),
        (exposure(#"{"assets": {"a": {"gaps": [{"from": "1m", "to": "2m", "at": "11m"}]}}}"#),
         "exposure.assets.a.gaps[0].at: unknown key; expected one of from, to"),
        (exposure(#"{"assets": {"a": {"duration": "1h", "bookmark": "1h"}}}"#),
         #"exposure.assets.a.bookmark: expected less than the asset's duration (1h), got "1h""#),
        // An asset without a duration lasts the device's defaultMediaDuration (default 10m).
        (exposure(#"{"assets": {"a": {"bookmark": "3h"}}}"#),
         #"exposure.assets.a.bookmark: expected less than the device's defaultMediaDuration, which an asset without a duration lasts (10m), got "3h""#),
        (#"{"name": "x", "device": {"defaultMediaDuration": "2h"}, "exposure": {"assets": {"a": {"gaps": [{"from": "1h", "to": "3h"}]}}}}"#,
         #"exposure.assets.a.gaps[0].to: expected at most the device's defaultMediaDuration, which an asset without a duration lasts (2h), got "3h""#),
        (exposure(#"{"assets": {"a": {"bookmark": "soon"}}}"#), #"exposure.assets.a.bookmark: expected a duration like "5s", got "soon""#),
        // channels and their programs
        (exposure(#"{"channels": {"c": {"programs": [{"assetId": "a", "start": "0s", "end": "1m"}]}}}"#),
         "exposure.channels.c.programs[0].programId: missing; expected the program's id"),
        (exposure(#"{"channels": {"c": {"programs": [{"programId": "p", "assetId": "", "start": "0s", "end": "1m"}]}}}"#),
         #"exposure.channels.c.programs[0].assetId: expected a non-empty string, got """#),
        (exposure(#"{"channels": {"c": {"programs": [{"programId": "p", "assetId": "a", "start": "0s"}]}}}"#),
         #"exposure.channels.c.programs[0].end: missing; expected when it goes off air, in scenario time, e.g. "30m""#),
        (exposure(#"{"channels": {"c": {"programs": [{"programId": "p", "assetId": "a", "start": "10m", "end": "10m"}]}}}"#),
         #"exposure.channels.c.programs[0].end: expected a time after start (10m), got "10m""#),
        (exposure(#"{"channels": {"news-24": {"programs": [{"programId": "p1", "assetId": "a", "start": "10m", "end": "20m"}, {"programId": "p2", "assetId": "a", "start": "0s", "end": "5m"}]}}}"#),
         #"exposure.channels["news-24"].programs[1].start: starts before programs[0] (10m); expected programs in start order"#),
        (exposure(#"{"channels": {"news-24": {"programs": [{"programId": "p1", "assetId": "a", "start": "0s", "end": "30m"}, {"programId": "p2", "assetId": "a", "start": "20m", "end": "40m"}]}}}"#),
         #"exposure.channels["news-24"].programs[1].start: overlaps programs[0] (0s–30m); expected a start at or after 30m"#),
        (exposure(#"{"channels": {"c": {"programs": [{"programId": "p1", "assetId": "a", "start": "0s", "end": "30m"}, {"programId": "p1", "assetId": "b", "start": "30m", "end": "40m"}]}}}"#),
         #"exposure.channels.c.programs[1].programId: "p1" names programs[0] too; expected program ids unique within a channel"#),
        (exposure(#"{"channels": {"c": {"duration": "1h"}}}"#),
         "exposure.channels.c.duration: unknown key; expected one of audioLanguages, entitlement, programs, textLanguages, title"),
        // entitlements
        (exposure(#"{"assets": {"a": {"entitlement": {"refuse": "NOT_ENTITLED", "live": false, "ffEnabled": true}}}}"#),
         "exposure.assets.a.entitlement: has refuse and ffEnabled, live; expected a grant or a refusal, not both"),
        (exposure(#"{"assets": {"a": {"entitlement": {"refuse": ""}}}}"#),
         #"exposure.assets.a.entitlement.refuse: expected a non-empty string, got """#),
        (exposure(#"{"assets": {"a": {"entitlement": {"refuse": "GEO_BLOCKED", "code": "102"}}}}"#),
         #"exposure.assets.a.entitlement.code: expected an integer, got "102""#),
        (exposure(#"{"assets": {"a": {"entitlement": {"code": 102}}}}"#),
         #"exposure.assets.a.entitlement.code: code goes with refuse; expected {"refuse": "NOT_ENTITLED", "code": 102} for a refusal"#),
        (exposure(#"{"assets": {"a": {"entitlement": {"maxBitrate": -1}}}}"#),
         "exposure.assets.a.entitlement.maxBitrate: expected an integer >= 0, got -1"),
        (exposure(#"{"assets": {"a": {"entitlement": {"maxResHeight": 720.5}}}}"#),
         "exposure.assets.a.entitlement.maxResHeight: expected an integer, got a number (720.5)"),
        (exposure(#"{"channels": {"c": {"entitlement": {"timeshiftEnabled": "no"}}}}"#),
         #"exposure.channels.c.entitlement.timeshiftEnabled: expected true or false, got "no""#),
        (exposure(#"{"assets": {"a": {"entitlement": {"airplay": true}}}}"#),
         "exposure.assets.a.entitlement.airplay: unknown key; expected one of airplayBlocked, code, ffEnabled, live, maxBitrate, maxResHeight, minBitrate, refuse, rwEnabled, timeshiftEnabled"),
        // the emp step
        (step("{}"), "timeline[0].emp: expected one of event, entitlement, endProgram, segmentMissing"),
        (step(#"{"event": "isLive", "endProgram": true}"#),
         "timeline[0].emp: has event and endProgram; expected exactly one of event, entitlement, endProgram, segmentMissing"),
        (step(#"{"endProgram": true, "data": 1}"#),
         #"timeline[0].emp.data: data goes with event; expected {"event": "error", "data": {...}}"#),
        (step(#"{"event": ""}"#), #"timeline[0].emp.event: expected a non-empty string, got """#),
        (step(#"{"endProgram": false}"#), "timeline[0].emp.endProgram: expected true"),
        (step(#"{"endProgram": "now"}"#), #"timeline[0].emp.endProgram: expected true or false, got "now""#),
        (step(#"{"segmentMissing": {"from": "12m", "to": "10m"}}"#),
         #"timeline[0].emp.segmentMissing.to: expected a time after from (12m), got "10m""#),
        (step(#"{"segmentMissing": {"to": "10m"}}"#),
         #"timeline[0].emp.segmentMissing.from: missing; expected where the missing segments start, e.g. "10m""#),
        (step(#"{"entitlement": {"refuse": "NOT_ENTITLED", "rwEnabled": false}}"#),
         "timeline[0].emp.entitlement: has refuse and rwEnabled; expected a grant or a refusal, not both"),
        (step(#"{"event": "error", "colour": 1}"#),
         "timeline[0].emp.colour: unknown key; expected one of data, endProgram, entitlement, event, segmentMissing"),
        (step(#""tracksupdated""#), #"timeline[0].emp: expected an object, got "tracksupdated""#),
    ]

    @Test("Each problem in a section or an emp step: its exact message at its exact path", arguments: problemFiles)
    func problems(text: String, expected: String) {
        #expect(issues(text) == [expected])
    }

    @Test("The emp step's forms")
    func empSteps() throws {
        let scenario = try parse(#"""
        {"name": "x", "timeline": [
          {"at": "1s", "emp": {"event": "tracksupdated"}},
          {"at": "2s", "emp": {"event": "error", "data": {"type": "ERROR", "code": 500, "message": "boom"}}},
          {"at": "3s", "emp": {"event": "custom", "data": null}},
          {"at": "4s", "emp": {"entitlement": {"refuse": "NOT_ENTITLED"}}},
          {"at": "5s", "emp": {"entitlement": {"ffEnabled": false, "maxBitrate": 800000}}},
          {"at": "6s", "emp": {"entitlement": {}}},
          {"at": "7s", "emp": {"endProgram": true}},
          {"at": "8s", "emp": {"segmentMissing": {"from": "10m", "to": "12m"}}}
        ]}
        """#)
        let error = try JSONValue.parse(#"{"type": "ERROR", "code": 500, "message": "boom"}"#)
        let inputs = scenario.timeline.map { step -> EMPInput? in
            guard case .device(.app(let action)) = step.action else { return nil }
            return EMPInput(action)
        }
        #expect(inputs == [
            .sendEvent(type: "tracksupdated", data: nil),
            .sendEvent(type: "error", data: error),
            .sendEvent(type: "custom", data: .null),
            .setEntitlement(.refused(.init(message: "NOT_ENTITLED", code: 102))),
            .setEntitlement(.granted(.init(ffEnabled: false, maxBitrate: 800_000))),
            .setEntitlement(.granted(.init())),
            .endProgram,
            .segmentMissing(from: 600, to: 720),
        ])
        #expect(scenario.timeline.map(\.trigger) == (1...8).map { .at(Double($0)) })
    }

    @Test("`emp` names the EMP namespace in patterns, emit steps and app namespaces")
    func empAlias() throws {
        let scenario = try parse(#"""
        {"name": "x",
         "device": {"apps": [{"appId": "ABCD1234", "namespaces": ["emp"]}]},
         "timeline": [{"emit": {"namespace": "emp", "payload": {"type": "isLive", "data": true}}}],
         "rules": [{"match": {"namespace": "emp", "type": "pull"}, "action": "drop"}],
         "expectations": [{"name": "tracks", "message": {"namespace": "emp", "type": "showtexttrack", "fields": {"data.language": "sv"}}}]}
        """#)
        #expect(MessagePattern.namespaceAliases["emp"] == "urn:x-cast:com.ericsson.cast.receiver")
        #expect(scenario.device.app(withId: "ABCD1234")?.namespaces == [CastNamespace.emp])
        #expect(scenario.timeline[0].action == .emit(namespace: CastNamespace.emp, source: nil, to: .all, payload: ["type": "isLive", "data": true]))
        #expect(scenario.rules[0].pattern == MessagePattern(namespace: CastNamespace.emp, type: "pull"))
        guard case .message(let pattern) = scenario.expectations[0].kind else {
            Issue.record("not a message expectation")
            return
        }
        #expect(pattern == MessagePattern(namespace: CastNamespace.emp, type: "showtexttrack", fields: [("data.language", .equals("sv"))]))
    }

    @Test("An emp app gets the media and EMP namespaces it lacks, first; the built-in one is F40E2D17")
    func empApps() throws {
        let scenario = try parse(#"""
        {"name": "x", "device": {"apps": [
          {"appId": "5D5D5CE6", "displayName": "EMP (Android)", "behaviour": "emp"},
          {"appId": "E5A43176", "behaviour": "emp", "namespaces": ["urn:x-cast:com.example.extra"]},
          {"appId": "ABCDEF01", "behaviour": "emp", "namespaces": ["emp"]}
        ]}}
        """#)
        let device = scenario.device
        #expect(device.app(withId: "5D5D5CE6") == CastAppDefinition(
            appId: "5D5D5CE6", displayName: "EMP (Android)", namespaces: [CastNamespace.media, CastNamespace.emp], behaviour: .emp))
        #expect(device.app(withId: "E5A43176")?.namespaces == [CastNamespace.media, CastNamespace.emp, "urn:x-cast:com.example.extra"])
        #expect(device.app(withId: "ABCDEF01")?.namespaces == [CastNamespace.media, CastNamespace.emp])
        #expect(device.app(withId: "F40E2D17") == .emp)
        #expect(CastAppDefinition.emp.displayName == "EMP Receiver")
    }
}
