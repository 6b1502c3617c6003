import CastControl
import CastDevice
import CastScenario
import CastWire
import Foundation
import Testing

@Suite("A journal entry's JSON written straight into bytes, as an event stream sends it")
struct JournalViewTests {
    static func entry(_ payload: CastEnvelope.Payload, own: Bool = false, connections: ConnectionList = [ConnectionID(3)],
                      unhandled: String? = nil, direction: JournalEntry.Direction = .outbound) -> JournalEntry {
        JournalEntry(sequence: 42, time: SimTime(seconds: 12.345), direction: direction, connections: connections,
                     envelope: CastEnvelope(sourceId: "receiver-0", destinationId: "se\"nder-1", namespace: CastNamespace.receiver,
                                            payload: payload),
                     unhandled: unhandled, payloadIsOwnJSON: own)
    }

    @Test("Byte for byte the text of the entry's value: the device's own payloads copied, a sender's parsed, text and binary as they are")
    func sameBytesAsTheValue() {
        let status: JSONValue = ["type": "MEDIA_STATUS", "requestId": 7, "status": [["media": ["streamType": "BUFFERED", "tracks": [["type": "TEXT"]]],
                                                                                    "playerState": "PLAYING", "title": "é \"quoted\" 🎬\n"]]]
        let entries = [
            Self.entry(.string(status.jsonText()), own: true),
            Self.entry(.string(status.jsonText()), own: true, connections: [ConnectionID(1), ConnectionID(2), ConnectionID(9)]),
            // An own payload whose type has an escape: the scan is unsure, the text is parsed.
            Self.entry(.string(JSONValue.object(["type": "A\u{1}B"]).jsonText()), own: true),
            Self.entry(.string(JSONValue.object(["requestId": 1, "type": 5]).jsonText()), own: true),
            Self.entry(.string(#"{ "type": "GET_STATUS",  "requestId": 7 }"#), direction: .inbound),
            Self.entry(.string(#"{"type":"NOPE"}"#), unhandled: "no handler for urn:x-cast:x", direction: .inbound),
            Self.entry(.string("not JSON\n"), direction: .inbound),
            Self.entry(.string(#"[1,2]"#), direction: .inbound),
            Self.entry(.binary(Data([0, 1, 2, 255]))),
        ]
        for entry in entries {
            var bytes: [UInt8] = []
            JournalView.appendJSON(entry, to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == JournalView.json(entry).jsonText(), "\(entry.envelope.payload)")
        }
    }

    @Test("GET /journal's answer written as bytes is the text of its value, with no messages, one, and several")
    func pageSameBytesAsTheValue() {
        let entries = [
            Self.entry(.string(JSONValue.object(["type": "RECEIVER_STATUS", "requestId": 3]).jsonText()), own: true),
            Self.entry(.string(#"{"type":"PING"}"#), direction: .inbound),
            Self.entry(.binary(Data([7]))),
        ]
        for (count, complete, more) in [(0, true, false), (1, false, true), (3, true, true)] {
            let page = Array(entries.prefix(count))
            let value: JSONValue = [
                "messages": .array(page.map(JournalView.json)), "more": .bool(more), "complete": .bool(complete),
                "kept": 10000, "seen": 123456789,
            ]
            let bytes = JournalView.pageJSON(page, more: more, complete: complete, kept: 10000, seen: 123456789)
            #expect(String(decoding: bytes, as: UTF8.self) == value.jsonText(), "\(count) messages")
        }
    }
}
