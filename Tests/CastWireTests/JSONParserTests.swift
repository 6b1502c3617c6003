import CastWire
import Foundation
import Testing

@Suite("JSON parser")
struct JSONParserTests {
    /// What the parser refuses `text` with.
    private func refusal(_ text: String, limits: JSONLimits = .castPayload) -> String? {
        do {
            _ = try JSONValue.parse(Data(text.utf8), limits: limits)
            return nil
        } catch {
            return error.description
        }
    }

    @Test("Every JSON type, with whitespace anywhere it may be")
    func types() throws {
        let value = try JSONValue.parse(" {\"a\" : [ null , true,false, 0, -12, 3.25, 1e3, -2.5E-3, \"x\" ],\r\n\t\"b\":{}, \"c\":[]} ")
        #expect(value == ["a": [nil, true, false, 0, -12, 3.25, 1000, -0.0025, "x"], "b": [:], "c": []])
        #expect(try JSONValue.parse("42") == 42)
        #expect(try JSONValue.parse("\"fragment\"") == "fragment")
    }

    @Test("Numbers parse as the standard library parses them")
    func numbers() throws {
        for text in ["0", "-0", "1", "123456789012345", "1234567890123456789", "0.1", "0.30000000000000004",
                     "1e308", "2.2250738585072014e-308", "5e-324", "-1.7976931348623157e308", "9007199254740993"] {
            #expect(try JSONValue.parse(text) == .number(Double(text)!), "\(text)")
        }
    }

    @Test("Numbers are written as NumberText formats them, and read back as the same Double")
    func numbersWritten() throws {
        for value in [0, -0.0, 1, -12, 0.1, 0.25, 3.25, -0.0025, 5.1234567890123455, 12.345678, 0.30000000000000004, 1e-7,
                      999_999_999_999_999, 1e15, -1e15, 5_000_000_000_000_001, 9_007_199_254_740_991, 9_007_199_254_740_992, 1e21,
                      -1.7976931348623157e308, 5e-324, 1_795_000_000.123] {
            var bytes: [UInt8] = []
            JSONValue.writeNumber(value, to: &bytes)
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(text == NumberText.format(value), "\(value)")
            #expect(try JSONValue.parse(text) == .number(value), "\(value)")
        }
        var bytes: [UInt8] = Array("[".utf8)
        JSONValue.writeNumber(.infinity, to: &bytes)
        JSONValue.writeNumber(0.5, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "[null0.5", "written after what is there, never over it")
    }

    @Test("Times to the nanosecond, written digit by digit, are Swift's shortest text of the Double, at every width and edge")
    func nanosecondNumbersWritten() throws {
        func written(_ value: Double) -> String {
            var bytes: [UInt8] = []
            JSONValue.writeNumber(value, to: &bytes)
            return String(decoding: bytes, as: UTF8.self)
        }
        // The edges of the digit-by-digit path (1e-4 and 1e6, and a nanosecond either side),
        // the zeros it drops at the end, and values just off a nanosecond (the general path's).
        let edges: [Double] = [1e-4, 0.0001000001, 0.000099999, 9.9999e-5, 999_999.999999999, 1e6 - 0.5, 1e6 + 0.5, 1.000000001,
                               0.100000000, 0.120000000, 123.000000001, 1.216171730, 0.5, -0.25, -999_999.5, 1.0000000001, 0.1 + 0.2]
        for value in edges {
            #expect(written(value) == NumberText.format(value), "\(value)")
        }
        // Times as a recording has them (nanoseconds over 1e9) from a nanosecond to 11 days,
        // and the same values' neighbours, a bit away from the nearest nanosecond.
        var generator = SystemRandomNumberGenerator()
        for digits in 1...15 {
            for _ in 0..<2000 {
                let nanoseconds = UInt64.random(in: 1...UInt64(pow(10, Double(digits))), using: &generator)
                let value = Double(nanoseconds) / 1e9
                #expect(written(value) == NumberText.format(value), "\(nanoseconds) ns")
                #expect(written(value.nextUp) == NumberText.format(value.nextUp), "\(nanoseconds) ns, next up")
                #expect(written(-value) == NumberText.format(-value), "-\(nanoseconds) ns")
            }
        }
    }

    @Test("Strings are escaped as a byte-at-a-time escaper would, whatever the byte's place among the eight read at once")
    func escapesAtEveryPlace() throws {
        func reference(_ bytes: [UInt8]) -> [UInt8] {
            var text: [UInt8] = [0x22]
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\""): text += Array(#"\""#.utf8)
                case UInt8(ascii: "\\"): text += Array(#"\\"#.utf8)
                case 0x0A: text += Array(#"\n"#.utf8)
                case 0x0D: text += Array(#"\r"#.utf8)
                case 0x09: text += Array(#"\t"#.utf8)
                case 0x08: text += Array(#"\b"#.utf8)
                case 0x0C: text += Array(#"\f"#.utf8)
                case ..<0x20: text += Array(String(format: #"\u%04x"#, byte).utf8)
                default: text.append(byte)
                }
            }
            return text + [0x22]
        }
        // ASCII bytes on either side of each escaped one (0x1F, 0x20, 0x21, 0x5B, 0x5D, 0x7F),
        // each escaped byte at every place of strings up to 20 long.
        let special: [UInt8] = [0x00, 0x01, 0x08, 0x09, 0x0A, 0x0C, 0x0D, 0x1F, 0x22, 0x5C]
        let plain: [UInt8] = [0x20, 0x21, 0x23, 0x5B, 0x5D, 0x61, 0x7F]
        for length in 0...20 {
            for place in 0..<max(length, 1) {
                for byte in special + plain {
                    var bytes = (0..<length).map { plain[$0 % plain.count] }
                    if length > 0 { bytes[place] = byte }
                    var output: [UInt8] = []
                    JSONValue.writeString(String(decoding: bytes, as: UTF8.self), to: &output)
                    #expect(output == reference(bytes), "\(bytes)")
                    #expect(bytes.withUnsafeBufferPointer(JSONEscapeScan.hasControlByte) == bytes.contains { $0 < 0x20 }, "\(bytes)")
                    #expect(try JSONValue.parse(Data(output), limits: .castPayload) == .string(String(decoding: bytes, as: UTF8.self)))
                }
            }
        }
        // Multi-byte UTF-8 (every byte 0x80 and above) is copied as it is, beside escapes.
        for text in ["Mörk ✨ film 🎬 ég", "🎬🎬🎬🎬\"🎬🎬\n", "ÿÿÿÿÿÿÿÿ\u{1F}", String(repeating: "é", count: 17) + "\\"] {
            var output: [UInt8] = []
            JSONValue.writeString(text, to: &output)
            #expect(try JSONValue.parse(Data(output), limits: .castPayload) == .string(text), "\(text)")
            #expect(output == reference(Array(text.utf8)), "\(text)")
        }
    }

    @Test("Malformed numbers are refused", arguments: [
        ("01", "byte 1: a number may not start with 0"),
        ("1.", "byte 2: expected a digit after \".\", got the end"),
        (".5", "byte 0: expected a value, got \".\""),
        ("+1", "byte 0: expected a value, got \"+\""),
        ("-", "byte 1: expected a digit, got the end"),
        ("1e", "byte 2: expected a digit in the exponent, got the end"),
        ("1e309", "byte 0: number out of range"),
        ("NaN", "byte 0: expected a value, got \"N\""),
    ])
    func badNumbers(text: String, expected: String) {
        #expect(refusal(text) == expected)
    }

    @Test("Strings: escapes, surrogate pairs, Unicode as is")
    func strings() throws {
        #expect(try JSONValue.parse(#""a\"b\\c\/d\b\f\n\r\t""#) == "a\"b\\c/d\u{08}\u{0C}\n\r\t")
        #expect(try JSONValue.parse(#""\u00e9\u4E2D\ud83c\udfac""#) == "é中🎬")
        #expect(try JSONValue.parse("\"Mörk ✨ film 🎬\"") == "Mörk ✨ film 🎬")
    }

    @Test("Malformed strings are refused", arguments: [
        (#""\ud83c""#, #"byte 1: unpaired surrogate \uD83C"#),
        (#""\udfac x""#, #"byte 1: unpaired surrogate \uDFAC"#),
        (#""\ud83c\u0041""#, #"byte 1: unpaired surrogate \uD83C"#),
        (#""\x""#, #"byte 2: unknown escape \"x" in a string"#),
        (#""\u12G4""#, #"byte 5: expected 4 hex digits after \u, got "G""#),
        ("\"tab\there\"", "byte 4: control character 0x09 in a string"),
        ("\"open", "byte 0: unterminated string"),
        ("\"a\\", "byte 0: unterminated string"),
    ])
    func badStrings(text: String, expected: String) {
        #expect(refusal(text) == expected)
    }

    @Test("Invalid UTF-8 is refused with where it starts")
    func invalidUTF8() throws {
        var bytes = Array("{\"title\":\"ab".utf8)
        bytes += [0xC3, 0x28]  // a two-byte lead followed by no continuation
        bytes += Array("\"}".utf8)
        #expect(throws: JSONParseError(offset: 12, reason: "invalid UTF-8")) {
            try JSONValue.parse(bytes, limits: .castPayload)
        }
    }

    @Test("Structure errors name the byte and what was expected", arguments: [
        ("[1,]", "byte 3: trailing comma before \"]\""),
        ("{\"a\":1,}", "byte 7: trailing comma before \"}\""),
        ("[1 2]", "byte 3: expected \",\" or \"]\" in an array, got \"2\""),
        ("{'a':1}", "byte 1: expected a member name in quotes, got \"'\""),
        ("{\"a\" 1}", "byte 5: expected \":\" after a member name, got \"1\""),
        ("{\"a\":}", "byte 5: expected a value, got \"}\""),
        ("", "byte 0: expected a value, got the end"),
        ("nul", "byte 0: expected a value, got \"n\""),
        ("{} x", "byte 3: unexpected \"x\" after the value"),
        ("[1] // comment", "byte 4: unexpected \"/\" after the value"),
    ])
    func badStructure(text: String, expected: String) {
        #expect(refusal(text) == expected)
    }

    @Test("In a payload the last of duplicate keys wins; a document refuses the second, at its name")
    func duplicateKeys() throws {
        #expect(try JSONValue.parse(#"{"a":1,"a":2}"#) == ["a": 2])
        #expect(try JSONValue.parse(Array(#"{"a":1,"a":2}"#.utf8), limits: .recording) == ["a": 2])
        #expect(throws: JSONParseError(offset: 21, reason: #""a" is given twice in one object"#)) {
            try JSONValue.parse(Array(#"{"b":{"a":1}, "a":1, "a":2}"#.utf8), limits: .document)
        }
    }

    @Test("Nesting: 32 levels are taken, the 33rd is refused; a 511-deep payload is refused")
    func depth() throws {
        let deepest = String(repeating: "[", count: 32) + String(repeating: "]", count: 32)
        #expect(refusal(deepest) == nil)
        let tooDeep = String(repeating: "[", count: 33) + String(repeating: "]", count: 33)
        #expect(refusal(tooDeep) == "byte 32: nesting deeper than 32 levels")
        // What took 0.85 s of CPU before: an 11 KB message nested 511 deep.
        let hostile = #"{"type":"LOAD","customData":"# + String(repeating: #"{"a":"#, count: 511) + "1"
            + String(repeating: "}", count: 512) + String(repeating: " ", count: 8_000)
        #expect(refusal(hostile)?.hasSuffix("nesting deeper than 32 levels") == true)
        #expect(refusal(hostile, limits: .document) == nil || refusal(hostile, limits: .document)?.contains("64 levels") == true)
        // Refused where the depth runs out, at a cost of the bytes read so far: the best of
        // a few runs is far under a millisecond even in a debug build.
        let refused = (0..<10).map { _ in ContinuousClock().measure { _ = refusal(hostile) } }.min()!
        #expect(refused < .milliseconds(1), "refusing the 511-deep payload took \(refused)")
    }

    @Test("Members and elements of one container are bounded; so is the size")
    func counts() {
        let limits = JSONLimits(maxDepth: 8, maxElements: 3, maxBytes: 64)
        #expect(refusal("[1,2,3]", limits: limits) == nil)
        #expect(refusal("[1,2,3,4]", limits: limits) == "byte 8: more than 3 elements in one array")
        #expect(refusal(#"{"a":1,"b":2,"c":3,"d":4}"#, limits: limits) == "byte 24: more than 3 members in one object")
        #expect(refusal("[" + String(repeating: " ", count: 70) + "]", limits: limits) == "byte 64: 72 bytes, over the 64-byte limit")
    }

    /// Payloads as real senders and receivers write them.
    static let castPayloads = [
        #"{"type":"CONNECT","origin":{},"userAgent":"PyChromecast","senderInfo":{"sdkType":2,"version":"15.6.0","platform":4,"connectionType":1}}"#,
        #"{"type":"LAUNCH","appId":"CC1AD845","requestId":2}"#,
        #"{"type":"SET_VOLUME","volume":{"level":0.35000000000000003},"requestId":3}"#,
        #"{"type":"LOAD","requestId":7,"autoplay":"false","currentTime":12.5,"activeTrackIds":[1],"customData":null,"media":{"contentId":"https://example.com/m.m3u8","contentType":"application/x-mpegurl","streamType":"BUFFERED","duration":5400.5,"metadata":{"metadataType":1,"title":"M\u00f6rk \u2728 film \ud83c\udfac","images":[{"url":"https://example.com/p.jpg","width":480,"height":720}]},"tracks":[{"trackId":1,"type":"TEXT","subtype":"SUBTITLES","language":"en-US","trackContentType":"text/vtt"}]}}"#,
        ##"{"type":"EDIT_TRACKS_INFO","mediaSessionId":1,"requestId":13,"activeTrackIds":[1,2],"textTrackStyle":{"backgroundColor":"#00000080","edgeType":"OUTLINE","fontScale":1.2,"fontFamily":"Droid Sans"}}"##,
        #"{"type":"QUEUE_LOAD","requestId":14,"startIndex":1,"repeatMode":"REPEAT_ALL","items":[{"media":{"contentId":"a.mp3"},"autoplay":true,"preloadTime":5},{"media":{"contentId":"b.mp3"}}]}"#,
        #"{"requestId":5,"status":[{"mediaSessionId":1,"playbackRate":1,"playerState":"PLAYING","currentTime":-0.0,"supportedMediaCommands":274447,"volume":{"level":1,"muted":false},"items":[{"itemId":1,"autoplay":true,"media":{"contentId":"x","duration":1e-7}}],"repeatMode":"REPEAT_OFF"}],"type":"MEDIA_STATUS"}"#,
        #"{"type":"RECEIVER_STATUS","requestId":1,"status":{"applications":[{"appId":"E8C28D3C","displayName":"Backdrop","namespaces":[{"name":"urn:x-cast:com.google.cast.sse"}],"sessionId":"6a3c","statusText":"","transportId":"6a3c","isIdleScreen":true}],"volume":{"controlType":"attenuation","level":1,"muted":false,"stepInterval":0.05}}}"#,
        #"{"type":"PING"}"#,
        "{\n  \"name\": \"a scenario\",\n  \"steps\": [ { \"at\": \"5s\", \"log\": \"tab\\there\" } ]\n}",
    ]

    @Test("Real Cast payloads parse exactly as Foundation's JSONDecoder parses them, and survive a round trip")
    func agreesWithFoundation() throws {
        for text in Self.castPayloads {
            let ours = try JSONValue.parse(text)
            let foundation = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
            #expect(ours == foundation, "\(text)")
            #expect(try JSONValue.parse(ours.jsonText()) == ours)
        }
    }
}
