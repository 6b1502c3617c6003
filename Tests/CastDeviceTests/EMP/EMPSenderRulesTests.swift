import CastDevice
import CastSimulatorTesting
import CastWire
import Foundation
import Testing

/// The EMP senders' decoding rules against the messages docs/protocol/emp.md says they accept
/// (§4) and reject (§6), with the exact problems so the helper cannot silently pass everything.
@Suite("EMP sender decoding rules")
struct EMPSenderRulesTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let payload: String
        /// Exact problems, iOS's then Enigma's; empty: both senders accept.
        let problems: [String]
        var testDescription: String { name }

        init(_ name: String, _ payload: String, _ problems: [String] = []) {
            self.name = name
            self.payload = payload
            self.problems = problems
        }
    }

    /// emp.md §4.1: the mock's tracks, with both `id` (iOS) and `trackId` (Enigma).
    static func tracksupdated(_ track: String) -> String {
        #"{"type":"tracksupdated","data":{"tracksInfo":{"activeTrackIds":[0],"tracks":[\#(track)]}}}"#
    }

    static let accepted: [Case] = [
        Case("tracksupdated, emp.md §4.1 example with id and trackId", #"""
            {"type":"tracksupdated","data":{"tracksInfo":{"activeTrackIds":[1,3],"tracks":[
            {"label":"English","language":"en","type":"text","id":0,"trackId":0,"kind":"subtitles"},
            {"label":"Svenska","language":"sv","type":"text","id":1,"trackId":1,"kind":"subtitles"},
            {"label":"English","language":"en","type":"audio","id":2,"trackId":2,"kind":"main"},
            {"label":"Deutsch","language":"de","type":"audio","id":3,"trackId":3,"kind":"main"}]}}}
            """#),
        Case("tracksupdated, empty (emp.md §4.1)", #"{"type":"tracksupdated","data":{"tracksInfo":{"activeTrackIds":[],"tracks":[]}}}"#),
        Case("timeShiftEnabled (emp.md §4.2)", #"{"type":"timeShiftEnabled","data":true}"#),
        Case("autoplay (emp.md §4.2)", #"{"type":"autoplay","data":true}"#),
        Case("isLive (emp.md §4.2)", #"{"type":"isLive","data":false}"#),
        Case("volumechange with senderId (emp.md §4.3)", #"{"type":"volumechange","data":{"volume":0.5,"muted":false,"senderId":null}}"#),
        Case("durationchange (emp.md §4.9)", #"{"type":"durationchange","data":3600.5}"#),
        Case("startTimeLive (emp.md §4.4)", #"{"type":"startTimeLive","data":1700000000000}"#),
        Case("programchanged, full program with asset (emp.md §4.5, §8 item 9)", #"""
            {"type":"programchanged","data":{"program":{"programId":"p1","assetId":"a1","channelId":"c1",
            "startTime":"2024-01-01T10:00:00Z","endTime":"2024-01-01T11:00:00Z","start":"2024-01-01T10:00:00.000Z",
            "asset":{"assetId":"a1"}}}}
            """#),
        Case("programchanged without times (emp.md §4.5: optional)", #"{"type":"programchanged","data":{"program":{"programId":"p1","assetId":"a1","channelId":"c1","endTime":null}}}"#),
        Case("segmentmissing -1 (emp.md §4.7)", #"{"type":"segmentmissing","data":-1}"#),
        Case("entitlementchange, full (emp.md §4.6)", #"""
            {"type":"entitlementchange","data":{"entitlement":{"live":false,"ffEnabled":true,"timeshiftEnabled":true,
            "rwEnabled":true,"airplayBlocked":false,"minBitrate":0,"maxBitrate":8000000,"maxResHeight":1080,"playToken":"t"}}}
            """#),
        Case("entitlementchange, five booleans only (emp.md §4.6)", #"""
            {"type":"entitlementchange","data":{"entitlement":{"live":true,"ffEnabled":false,"timeshiftEnabled":false,"rwEnabled":false,"airplayBlocked":true}}}
            """#),
        Case("error from the player (emp.md §4.8)", #"{"type":"error","data":{"type":"ERROR","code":102,"message":"NOT_ENTITLED"}}"#),
    ]

    static let rejected: [Case] = [
        // emp.md §6: unknown types; Enigma handles assetchanged and liveDelay and ignores the rest.
        Case("assetchanged", #"{"type":"assetchanged","data":{"asset":{"assetId":"a1"}}}"#,
             [#"iOS: type: "assetchanged" is not a type iOS decodes (unsupportedMessage)"#]),
        Case("liveDelay", #"{"type":"liveDelay","data":30}"#,
             [#"iOS: type: "liveDelay" is not a type iOS decodes (unsupportedMessage)"#]),
        Case("liveDelay not a number", #"{"type":"liveDelay","data":"soon"}"#,
             [#"iOS: type: "liveDelay" is not a type iOS decodes (unsupportedMessage)"#,
              "Enigma: data: expected a number (getDouble), got a string"]),
        Case("timeshiftenabled, lower case", #"{"type":"timeshiftenabled","data":true}"#,
             [#"iOS: type: "timeshiftenabled" is not a type iOS decodes (unsupportedMessage)"#]),
        Case("no type", #"{"data":true}"#, ["iOS: type: missing", "Enigma: type: missing"]),
        Case("not an object", #"["tracksupdated"]"#,
             ["iOS: payload: expected an object, got an array", "Enigma: payload: expected an object, got an array"]),
        Case("not JSON", #"{"type":"#, ["iOS: payload: not JSON", "Enigma: payload: not JSON"]),
        // emp.md §4.1, §6.2: the track id key.
        Case("track with only trackId", tracksupdated(#"{"label":"English","type":"text","trackId":0,"language":"en"}"#),
             ["iOS: data.tracksInfo.tracks[0].id: missing"]),
        Case("track with only id", tracksupdated(#"{"label":"English","type":"text","id":0,"language":"en"}"#),
             ["Enigma: data.tracksInfo.tracks[0].trackId: missing"]),
        Case("track without label", tracksupdated(#"{"type":"text","id":0,"trackId":0,"language":"en"}"#),
             ["iOS: data.tracksInfo.tracks[0].label: missing"]),
        Case("track with null language", tracksupdated(#"{"label":"English","type":"text","id":0,"trackId":0,"language":null}"#),
             ["iOS: data.tracksInfo.tracks[0].language: expected a string, got null"]),
        Case("track id beyond Java int", tracksupdated(#"{"label":"English","type":"text","id":2147483648,"trackId":2147483648,"language":"en"}"#),
             ["Enigma: data.tracksInfo.tracks[0].trackId: getInt cannot hold 2147483648"]),
        Case("activeTrackIds as strings",
             #"{"type":"tracksupdated","data":{"tracksInfo":{"activeTrackIds":["0"],"tracks":[]}}}"#,
             ["iOS: data.tracksInfo.activeTrackIds[0]: expected an integer, got a string"]),
        // emp.md §4.5, §6.2: the v1 shape.
        Case("programchanged v1 {data:{programId}}", #"{"type":"programchanged","data":{"programId":"p1"}}"#,
             ["iOS: data.program: missing", "Enigma: data.program: missing"]),
        Case("programchanged with a numeric assetId", #"{"type":"programchanged","data":{"program":{"programId":"p1","assetId":7,"channelId":"c1"}}}"#,
             ["iOS: data.program.assetId: expected a string, got a number"]),
        // emp.md §4.7, §6.2: integers.
        Case("segmentmissing 12.5", #"{"type":"segmentmissing","data":12.5}"#,
             ["iOS: data: expected an integer, got 12.5", "Enigma: data: getLong truncates 12.5"]),
        Case("startTimeLive as a numeric string", #"{"type":"startTimeLive","data":"1700000000000"}"#,
             ["iOS: data: expected an integer, got a string"]),
        // emp.md §4.8, §6.2: error code and message.
        Case("error with string code", #"{"type":"error","data":{"code":"102","message":"NOT_ENTITLED"}}"#,
             ["iOS: data.code: expected an integer, got a string"]),
        Case("error with numeric message", #"{"type":"error","data":{"code":102,"message":404}}"#,
             ["iOS: data.message: expected a string, got a number"]),
        // emp.md §4.8, §6.2, §6.3: iOS makes -1 / UNKNOWN_ERROR of an error without an object;
        // Enigma's getJSONObject("data") fails the conversion.
        Case("error without data", #"{"type":"error"}"#, ["Enigma: data: missing"]),
        Case("error with string data", #"{"type":"error","data":"boom"}"#,
             ["Enigma: data: expected an object (getJSONObject), got a string"]),
        Case("error with array data", #"{"type":"error","data":[1]}"#,
             ["Enigma: data: expected an object (getJSONObject), got an array"]),
        // emp.md §4.2: bare booleans; org.json's getBoolean also reads "true", not 1.
        Case("isLive as a string", #"{"type":"isLive","data":"true"}"#, ["iOS: data: expected a boolean, got a string"]),
        Case("isLive as 1", #"{"type":"isLive","data":1}"#,
             ["iOS: data: expected a boolean, got a number", "Enigma: data: expected a boolean (getBoolean), got a number"]),
        Case("autoplay without data", #"{"type":"autoplay"}"#, ["iOS: data: missing", "Enigma: data: missing"]),
        // emp.md §4.3, §6.2: volume.
        Case("volumechange volume 1e30", #"{"type":"volumechange","data":{"volume":1e30,"muted":false}}"#,
             ["iOS: data.volume: 1e+30 is outside 0...1 (iOS apps trap on Int(volume * 100))"]),
        Case("volumechange without muted", #"{"type":"volumechange","data":{"volume":1}}"#,
             ["iOS: data.muted: missing", "Enigma: data.muted: missing"]),
        // emp.md §4.6: the five booleans and integer limits.
        Case("entitlementchange missing airplayBlocked, fractional maxBitrate", #"""
            {"type":"entitlementchange","data":{"entitlement":{"live":true,"ffEnabled":true,"timeshiftEnabled":true,"rwEnabled":true,"maxBitrate":1.5}}}
            """#,
             ["iOS: data.entitlement.airplayBlocked: missing", "iOS: data.entitlement.maxBitrate: expected an integer, got 1.5"]),
        Case("entitlementchange without data", #"{"type":"entitlementchange"}"#,
             ["iOS: data: missing", "Enigma: data: missing"]),
    ]

    @Test("Accepted by both senders", arguments: accepted)
    func accepts(_ example: Case) {
        #expect(EMPSenderRules.problems(example.payload) == [])
    }

    @Test("Rejected with exactly these problems", arguments: rejected)
    func rejects(_ example: Case) {
        #expect(EMPSenderRules.problems(example.payload) == example.problems)
    }

    @Test("Each sender's problems carry its own prefix, and the parsed form agrees with the text")
    func perSender() throws {
        let text = Self.tracksupdated(#"{"label":"English","type":"text","trackId":0,"language":"en"}"#)
        #expect(EMPSenderRules.problems(text, for: .iOS) == ["iOS: data.tracksInfo.tracks[0].id: missing"])
        #expect(EMPSenderRules.problems(text, for: .androidEnigma) == [])
        let payload = try JSONValue.parse(text)
        for sender in EMPSender.allCases {
            #expect(EMPSenderRules.problems(payload, for: sender) == EMPSenderRules.problems(text, for: sender))
        }
    }

    @Test("Sent messages: only the EMP namespace is checked, each problem names the message")
    func sentMessages() {
        func sent(_ namespace: String, _ payload: CastEnvelope.Payload) -> SentMessage {
            let envelope = CastEnvelope(sourceId: "receiver-0", destinationId: "*", namespace: namespace, payload: payload)
            return SentMessage(DeviceOutput.send(envelope, to: [ConnectionID(1)]))!
        }
        let messages = [
            sent("urn:x-cast:com.google.cast.media", .string(#"{"type":"MEDIA_STATUS","status":[]}"#)),
            sent(EMPSenderRules.namespace, .string(#"{"type":"isLive","data":true}"#)),
            sent(EMPSenderRules.namespace, .string(#"{"type":"segmentmissing","data":12.5}"#)),
            sent(EMPSenderRules.namespace, .binary(.init([1, 2]))),
        ]
        #expect(messages.empSenderProblems == [
            "#2 segmentmissing: iOS: data: expected an integer, got 12.5",
            "#2 segmentmissing: Enigma: data: getLong truncates 12.5",
            "#3 ?: binary payload",
        ])
    }
}
