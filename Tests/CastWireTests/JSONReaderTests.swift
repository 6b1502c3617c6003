import CastWire
import Testing

@Suite("JSONReader: typed values with their path")
struct JSONReaderTests {
    static let load: JSONValue = [
        "type": "LOAD", "requestId": 7, "sessionId": .null,
        "media": ["contentId": "a.mp4", "tracks": [["trackId": 1], ["trackId": 2], ["trackId": "2"]]],
    ]

    @Test("An error names its place: keys dotted, array elements indexed")
    func paths() throws {
        let reader = JSONReader(Self.load, nullIsAbsent: true)
        let third = try reader.required("media", "media").required("tracks", "tracks").array()[2]
        let error = #expect(throws: JSONReadError.self) { try third.required("trackId", "an integer").int() }
        #expect(error?.description == #"media.tracks[2].trackId: expected an integer, got "2""#)
        #expect(error?.path == JSONPath([.key("media"), .key("tracks"), .index(2), .key("trackId")]))
    }

    @Test("Keys that are not plain identifiers are bracketed and escaped, so no key can pass for a separator")
    func oddKeys() {
        #expect(JSONPath([.key("media"), .key("http://a.test/x: y.mp4"), .key("duration")]).description
            == #"media["http://a.test/x: y.mp4"].duration"#)
        #expect(JSONPath([.key("a\"b\nc")]).description == #"["a\"b\nc"]"#)
        #expect(JSONPath([.key("$schema"), .key("_x1")]).description == "$schema._x1")
        #expect(JSONPath([.index(0), .key("1st")]).description == #"[0]["1st"]"#)
        #expect(JSONPath.root.description == "")
    }

    @Test("What was found, in the message: strings quoted and cut, scalars with their value, containers by kind")
    func describes() {
        #expect(JSONReader.describe("5 sec") == #""5 sec""#)
        #expect(JSONReader.describe(.number(9.2e18)) == "a number (9.2e+18)")
        #expect(JSONReader.describe(true) == "a boolean (true)")
        #expect(JSONReader.describe(.null) == "null")
        #expect(JSONReader.describe([1, 2]) == "an array")
        #expect(JSONReader.describe(.string(String(repeating: "x", count: 100))).count < 80)
        #expect(JSONReader.describe("a\u{1B}[2Jb") == #""a\u001b[2Jb""#)
    }

    @Test("In sender payloads a null reads as absent; in files it is a value of the wrong type")
    func nulls() throws {
        let payload = JSONReader(Self.load, nullIsAbsent: true)
        #expect(payload["sessionId"] == nil)
        #expect(try payload.optionalString("sessionId") == nil)
        let file = JSONReader(Self.load)
        #expect(file["sessionId"] != nil)
        #expect(throws: JSONReadError(path: JSONPath([.key("sessionId")]), message: "expected a string, got null")) {
            try file.optionalString("sessionId")
        }
    }

    @Test("Typed reads refuse the wrong type, a bad element of an integer array names its index")
    func typedReads() throws {
        let reader = JSONReader(["ids": [1, 2, 3.5], "level": "loud", "n": 4, "flag": 1, "mode": "SLOW"])
        #expect(throws: JSONReadError(path: JSONPath([.key("ids"), .index(2)]), message: "expected an integer, got a number (3.5)")) {
            try reader.optionalIntArray("ids")
        }
        #expect(throws: JSONReadError(path: JSONPath([.key("level")]), message: #"expected a number, got "loud""#)) {
            try reader.optionalDouble("level")
        }
        #expect(throws: JSONReadError(path: JSONPath([.key("flag")]), message: "expected true or false, got a number (1)")) {
            try reader.optionalBool("flag")
        }
        #expect(throws: JSONReadError(path: JSONPath([.key("n")]), message: "expected an integer >= 5, got 4")) {
            try reader.required("n", "a count").int(minimum: 5)
        }
        #expect(throws: JSONReadError(path: JSONPath([.key("mode")]), message: #"expected one of "FAST", "NORMAL", got "SLOW""#)) {
            try reader.required("mode", "a mode").oneOf(["FAST", "NORMAL"])
        }
        #expect(throws: JSONReadError(path: JSONPath([.key("gone")]), message: "missing; expected a thing")) {
            try reader.required("gone", "a thing")
        }
        #expect(try reader.required("n", "a count").int() == 4)
    }
}
