import CastWire
import Testing

@Suite("One string member read from a JSON object's text")
struct JSONMemberScanTests {
    @Test("A top-level string member is found; one nested deeper, in a string or of another kind is not", arguments: [
        (#"{"requestId":1,"type":"RECEIVER_STATUS"}"#, JSONMemberScan.Result.string("RECEIVER_STATUS")),
        (#"{"type":"PONG"}"#, .string("PONG")),
        (#" { "type" : "MEDIA_STATUS" , "x" : 1 } "#, .string("MEDIA_STATUS")),
        (#"{"status":[{"media":{"type":"nested"},"tracks":[{"type":"TEXT"}]}],"type":"MEDIA_STATUS"}"#, .string("MEDIA_STATUS")),
        (#"{"a":"{\"type\":\"fake\"}","b":"]}","type":"REAL"}"#, .string("REAL")),
        (#"{"a":[1,[2,{"type":"no"}],"]"],"c":true,"d":null,"e":-1.5e3,"type":"YES"}"#, .string("YES")),
        (#"{"status":{"type":"nested"}}"#, .absent),
        (#"{"type":7}"#, .absent),
        (#"{"type":null,"x":"y"}"#, .absent),
        (#"{"type":{"a":1}}"#, .absent),
        ("{}", .absent),
        (#"{"types":"no","typ":"no"}"#, .absent),
        (#"{"type":"A\u00e9"}"#, .unsure),
        (#"{"ty\u0070e":"X"}"#, .unsure),
        (#"["type","X"]"#, .unsure),
        (#""type""#, .unsure),
        (#"{"a":"unterminated"#, .unsure),
        (#"{"a":1"#, .unsure),
        (#"{"a" 1,"type":"X"}"#, .unsure),
        ("", .unsure),
    ])
    func stringMember(text: String, expected: JSONMemberScan.Result) {
        #expect(JSONMemberScan.stringMember("type", of: text) == expected, "\(text)")
    }

    @Test("An integer member read from text the parser refuses, the last one given; nothing that is no integer")
    func integerMember() {
        let deep = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
        let cases: [(String, Int?)] = [
            (#"{"type":"GET_STATUS","x":\#(deep),"requestId":7}"#, 7),
            (#"{"requestId":8,"v":1e999}"#, 8),
            (#"{"requestId":9,"s":"\ud800","t":"}"}"#, 9),
            (#"{"requestId":1,"requestId":2}"#, 2),
            (#"{"requestId":3.0}"#, 3),
            (#"{"requestId":3.5}"#, nil),
            (#"{"requestId":"3"}"#, nil),
            (#"{"requestId":0x10}"#, nil),
            (#"{"requestId":1e400}"#, nil),
            (#"{"a":{"requestId":4}}"#, nil),
            (#"{"requestId":5,"broken"#, 5),
            (#"{"broken" "requestId":5}"#, nil),
            ("[1]", nil),
            ("", nil),
        ]
        for (text, expected) in cases {
            #expect(JSONMemberScan.integerMember("requestId", of: text) == expected, "\(text)")
        }
    }

    @Test("Where it is sure, it agrees with the parser")
    func agreesWithTheParser() throws {
        for text in [#"{"requestId":1,"type":"RECEIVER_STATUS"}"#, #"{"status":{"type":"x"}}"#, #"{"type":7}"#, "{}",
                     #"{"a":"{\"type\":\"fake\"}","b":"]}","type":"REAL"}"#] {
            let parsed = try JSONValue.parse(text)["type"]?.stringValue
            switch JSONMemberScan.stringMember("type", of: text) {
            case .string(let found): #expect(found == parsed, "\(text)")
            case .absent: #expect(parsed == nil, "\(text)")
            case .unsure: Issue.record("unsure of \(text)")
            }
        }
    }
}
