import CastDevice
import CastScenario
import CastSimulatorTesting
import CastWire
import Foundation
import Testing

@Suite("Recording format: lines both ways, refusals, redaction, the schema")
struct RecordingFormatTests {
    static let header = RecordingHeader(
        castsim: "0.12.0", recordedAt: 1_764_072_000_123, source: .relay, upstream: "192.168.1.20:8009",
        device: try! DeviceIdentity(uuid: "0123456789abcdef0123456789abcdef", friendlyName: "Living Room TV"),
        host: "127.0.0.2", castPort: 8009, clock: .scaled(10), scenario: ["name": "s"], redacted: ["credentials"])

    static func event(_ t: Double, _ kind: RecordedEvent.Kind) -> RecordedEvent {
        RecordedEvent(time: SimTime(seconds: t), wall: 1_764_072_000_123 + Int64(t * 1000), kind: kind)
    }

    /// One event of every kind, and each payload form.
    static let events: [RecordedEvent] = [
        event(0, .connected(ConnectionID(1), peer: "127.0.0.1:50000")),
        event(0.5, .message(RecordedMessage(direction: .inbound, connections: [ConnectionID(1)], envelope: CastEnvelope(
            sourceId: "sender-0", destinationId: "receiver-0", namespace: CastNamespace.receiver,
            payload: .string(#"{"requestId":1,"type":"GET_STATUS"}"#)), unhandled: "no app"))),
        event(0.5, .message(RecordedMessage(direction: .outbound, connections: [ConnectionID(1), ConnectionID(2)], envelope: CastEnvelope(
            sourceId: "receiver-0", destinationId: "*", namespace: CastNamespace.receiver, payload: .string(#"{"requestId":1,"status":{},"type":"RECEIVER_STATUS"}"#))))),
        event(1, .message(RecordedMessage(direction: .outbound, connections: [ConnectionID(1)], envelope: CastEnvelope(
            sourceId: "a", destinationId: "b", namespace: "urn:x-cast:com.example", payload: .string("not json"))))),
        event(1, .message(RecordedMessage(direction: .inbound, connections: [ConnectionID(1)], envelope: CastEnvelope(
            sourceId: "a", destinationId: "b", namespace: "urn:x-cast:com.example", payload: .binary(Data([0, 1, 2, 255])))))),
        event(2, .input(["remote": "pause"])),
        event(2, .fault(.closeConnection(ConnectionID(1), reset: true))),
        event(2, .fault(.sendFrame(ConnectionID(1), .oversized))),
        event(2, .fault(.stopHeartbeats(until: SimTime(seconds: 32)))),
        event(2, .fault(.unresponsive(until: SimTime(seconds: 12)))),
        event(2, .fault(.delayReplies(by: 2, until: SimTime(seconds: 30), connection: nil))),
        event(2, .fault(.delayReplies(by: 2, until: SimTime(seconds: 30), connection: ConnectionID(2)))),
        event(3, .clock(to: SimTime(seconds: 13))),
        event(13, .disconnected(ConnectionID(1), how: .idleTimeout)),
        event(13, .upstream(ConnectionID(2), connected: false, reason: "upstream refused the connection")),
        event(13, .dropped(count: 7)),
        event(14, .streaming(["phase": "measured", "session": "1-4", "senderReports": 12,
                              "streams": [["kind": "video", "codec": "vp8", "framesReceived": 300, "ackLatencyP99": nil]]])),
        event(0, .reset(scenario: ["name": "next"])),
        event(0, .reset(scenario: nil)),
    ]

    @Test("Every kind of event and the header come back as they were written")
    func roundTrip() throws {
        let recording = Recording(header: Self.header, events: Self.events)
        let text = recording.text()
        #expect(text.split(separator: "\n").count == Self.events.count + 1)
        #expect(text.hasSuffix("\n"))
        let read = try Recording.read(Data(text.utf8))
        #expect(read.header == Self.header)
        #expect(read.events.count == Self.events.count)
        for (got, wanted) in zip(read.events, Self.events) { #expect(got == wanted) }
        // Every kind is in the list.
        #expect(Set(Self.events.map(\.kind.name)) == Set(RecordedEvent.Kind.names))
    }

    @Test("Lines are what docs/recording.md says: JSON payloads parsed, binary as base64, times as ISO 8601")
    func lineShapes() throws {
        let lines = Recording(header: Self.header, events: Self.events).text().split(separator: "\n").map { try! JSONValue.parse(String($0)) }
        #expect(lines[0]["format"] == "castsim-recording")
        #expect(lines[0]["version"] == 1)
        #expect(lines[0]["recordedAt"] == "2025-11-25T12:00:00.123Z")
        #expect(lines[0]["clock"] == ["mode": "scaled", "speed": 10])
        #expect(lines[0]["device"]?["uuid"] == "0123456789abcdef0123456789abcdef")
        #expect(lines[2]["payload"] == ["requestId": 1, "type": "GET_STATUS"])
        #expect(lines[2]["direction"] == "in")
        #expect(lines[2]["unhandled"] == "no app")
        #expect(lines[3]["connections"] == [1, 2])
        #expect(lines[4]["text"] == "not json")
        #expect(lines[5]["binary"] == "AAEC/w==")
        #expect(lines[7]["fault"] == "closeConnection" && lines[7]["reset"] == true)
        #expect(lines[1]["wall"] == "2025-11-25T12:00:00.123Z")
    }

    @Test("The device's own payloads are copied into their line: byte for byte what parsing and encoding them again gives")
    func ownPayloadsCopied() throws {
        let payloads: [JSONValue] = [
            ["type": "RECEIVER_STATUS", "requestId": 3, "status": [
                "volume": ["level": 0.25, "muted": false, "stepInterval": 0.05],
                "applications": [["displayName": "Default \"Media\" Receiver ✓", "namespaces": [["name": "urn:x-cast:com.google.cast.media"]]]],
            ]],
            ["type": "MEDIA_STATUS", "status": [], "requestId": 0, "big": 1e21, "small": -0.000001, "text": "line\nbreak \u{01} / é 🎬"],
        ]
        let redaction = try PayloadRedaction(["status"])
        for payload in payloads {
            let envelope = CastEnvelope(sourceId: "receiver-0", destinationId: "*", namespace: CastNamespace.receiver,
                                        payload: .string(payload.jsonText()))
            let parsed = Self.event(1.5, .message(RecordedMessage(direction: .outbound, connections: [ConnectionID(4), ConnectionID(5)],
                                                                  envelope: envelope)))
            let own = JournalEntry(sequence: 1, time: parsed.time, direction: .outbound, connections: [ConnectionID(4), ConnectionID(5)],
                                   envelope: envelope, payloadIsOwnJSON: true)
            let copied = own.recordingLine(wall: parsed.wall)
            #expect(copied == parsed.line() && copied == Recording.line(parsed.json()))
            #expect(try Recording.read(Data((Recording.line(Self.header.json) + copied).utf8)).events == [parsed])
            // Redacted, the payload is parsed and redacted as ever.
            #expect(own.recordingLine(wall: parsed.wall, redacting: redaction) == Recording.line(parsed.json(redacting: redaction)))
            #expect(!own.recordingLine(wall: parsed.wall, redacting: redaction).contains("applications"))
        }
    }

    @Test("A sender's payload nobody parsed is written sorted and compact, and a line written directly is the line of the event's value")
    func senderPayloadsWritten() throws {
        for (text, unhandled) in [(#"{ "type": "GET_STATUS",  "requestId": 7, "b": [1, 2.5, {"z": null, "a": true}] }"#, nil),
                                  (#"{"type":"NOPE"}"#, "no handler for urn:x-cast:x"), ("not JSON\n", "unparseable"), (#""\u00e9""#, nil)] {
            let message = RecordedMessage(direction: .inbound, connections: [ConnectionID(2)], envelope: CastEnvelope(
                sourceId: "sender-0", destinationId: "receiver-0", namespace: "urn:x-cast:x", payload: .string(text)), unhandled: unhandled)
            let event = Self.event(2.25, .message(message))
            #expect(event.line() == Recording.line(event.json()), "\(text)")
            // Read back, the payload is its sorted, compact text, which writes the same line.
            #expect(try Recording.read(Data((Recording.line(Self.header.json) + event.line()).utf8)).events.map { $0.line() } == [event.line()])
        }
    }

    @Test("The session marks what the device encoded itself, and which of a sender's payloads it parsed as JSON")
    func ownPayloadsMarked() throws {
        var device = try CastTestDevice(scenarioJSON: #"{"name": "plain"}"#)
        _ = device.launch()
        device.sendRaw(ConnectionID(1), CastEnvelope(sourceId: "sender-0", destinationId: "receiver-0", namespace: CastNamespace.receiver,
                                                     payload: .string("not JSON")))
        let messages = device.journal.entries
        #expect(messages.contains { $0.direction == .outbound } && messages.contains { $0.direction == .inbound })
        #expect(messages.allSatisfy { $0.payloadIsOwnJSON == ($0.direction == .outbound) })
        #expect(messages.allSatisfy { $0.payloadIsJSON == ($0.envelope.utf8 != "not JSON") })
    }

    @Test("A journal entry's recording line reads back as its event, for every payload form")
    func entryLines() throws {
        let texts = [#"{"type": "GET_STATUS", "requestId": 7}"#, "{\"type\":\n\"PING\"}", "not JSON", #"{"requestId":1,"type":"RECEIVER_STATUS"}"#]
        var entries: [JournalEntry] = []
        for (index, text) in texts.enumerated() {
            for direction in JournalEntry.Direction.allCases {
                entries.append(JournalEntry(
                    sequence: entries.count + 1, time: SimTime(seconds: 1.25 * Double(index)), direction: direction,
                    connections: direction == .inbound ? [ConnectionID(3)] : [ConnectionID(3), ConnectionID(4)],
                    envelope: CastEnvelope(sourceId: "sender-1", destinationId: "receiver-0", namespace: "urn:x-cast:x", payload: .string(text)),
                    unhandled: index == 2 ? "no handler" : nil, payloadIsOwnJSON: index == 3 && direction == .outbound,
                    payloadIsJSON: index < 2 || index == 3))
            }
        }
        entries.append(JournalEntry(sequence: 99, time: SimTime(seconds: 9), direction: .inbound, connections: [ConnectionID(1)],
                                    envelope: CastEnvelope(sourceId: "a", destinationId: "b", namespace: "urn:x-cast:x", payload: .binary(Data([0, 255])))))
        let redaction = try PayloadRedaction(["requestId"])
        for entry in entries {
            let event = RecordedEvent(time: entry.time, wall: 1_764_072_000_123, kind: .message(RecordedMessage(entry)))
            for redacting in [PayloadRedaction.none, redaction] {
                let line = entry.recordingLine(wall: 1_764_072_000_123, redacting: redacting)
                // One line, which reads back as the event's value; redacted, the event's own line.
                #expect(line.firstIndex(of: "\n") == line.index(before: line.endIndex))
                #expect(try JSONValue.parse(line) == event.json(redacting: redacting), "\(entry.envelope.utf8 ?? "binary")")
                if !redacting.isEmpty { #expect(line == event.line(redacting: redacting)) }
            }
        }
        // What was marked JSON and is one line is copied as it came; the rest written compact.
        #expect(entries[0].recordingLine().contains(#""payload":{"type": "GET_STATUS", "requestId": 7},"#))
        #expect(entries[2].recordingLine().contains(#""payload":{"type":"PING"},"#))
        #expect(entries[4].recordingLine().contains(#""text":"not JSON""#))
    }

    @Test("A recorder's line writer, which keeps what repeats from line to line, writes byte for byte the lines written anew")
    func keptLines() throws {
        // Each line changes one part of the last one in its slot (destination, namespace,
        // source, connections: 1 and 17 share a slot in each direction), the time or the
        // wall clock.
        func entry(_ connections: ConnectionList, _ direction: JournalEntry.Direction, source: String = "sender-0",
                   destination: String = "receiver-0", namespace: String = CastNamespace.receiver, t: Double,
                   unhandled: String? = nil) -> JournalEntry {
            JournalEntry(sequence: 1, time: SimTime(seconds: t), direction: direction, connections: connections,
                         envelope: CastEnvelope(sourceId: source, destinationId: destination, namespace: namespace,
                                                payload: .string(#"{"requestId":1,"type":"GET_STATUS"}"#)),
                         unhandled: unhandled, payloadIsOwnJSON: direction == .outbound, payloadIsJSON: true)
        }
        let timeline: [(JournalEntry, Int64)] = [
            (entry([ConnectionID(1)], .inbound, t: 1.5), 1_764_072_000_123),
            (entry([ConnectionID(1)], .outbound, source: "receiver-0", destination: "sender-0", t: 1.5), 1_764_072_000_123),
            (entry([ConnectionID(1)], .inbound, destination: "web-5", t: 1.75), 1_764_072_000_124),
            (entry([ConnectionID(1)], .inbound, destination: "web-5", namespace: CastNamespace.media, t: 1.75), 1_764_072_000_124),
            (entry([ConnectionID(1)], .inbound, source: "Tr\"x\u{1}", destination: "web-5", namespace: CastNamespace.media, t: 2),
             1_764_072_000_124),
            (entry([ConnectionID(17)], .inbound, source: "Tr\"x\u{1}", destination: "web-5", namespace: CastNamespace.media, t: 2),
             1_764_072_000_124),
            (entry([ConnectionID(1), ConnectionID(17)], .outbound, source: "receiver-0", destination: "*", t: 2, unhandled: "no app"),
             -1),
            (entry([], .outbound, source: "receiver-0", destination: "*", t: 0), 8_640_000_000_000_000),
            (entry([ConnectionID(1)], .inbound, t: 123_456.000_000_001), 8_640_000_000_000_000),
        ]
        var lines = RecordingLineWriter()
        let redaction = try PayloadRedaction(["requestId"])
        for pass in 0..<2 {
            for (index, (entry, wall)) in timeline.enumerated() {
                for redacting in [PayloadRedaction.none, redaction] {
                    var kept: [UInt8] = []
                    lines.append(entry, wall: wall, to: &kept, redacting: redacting)
                    #expect(String(decoding: kept, as: UTF8.self) == entry.recordingLine(wall: wall, redacting: redacting),
                            "pass \(pass + 1), line \(index + 1)")
                }
            }
        }
        // The line written anew is the event's own.
        let (first, wall) = timeline[4]
        #expect(try JSONValue.parse(first.recordingLine(wall: wall))
            == RecordedEvent(time: first.time, wall: wall, kind: .message(RecordedMessage(first))).json())
    }

    @Test("A bad line is refused with its number and what was expected")
    func refusals() {
        func problem(_ text: String) -> String? {
            do {
                _ = try Recording.read(Data(text.utf8))
                return nil
            } catch {
                return error.description
            }
        }
        let header = Recording.line(Self.header.json)
        #expect(problem("") == "line 1: empty file; expected a castsim recording header")
        #expect(problem(#"{"format": "other"}"# + "\n")?.hasPrefix("line 1: format: expected \"castsim-recording\"") == true)
        let future = Self.header.json.replacing("version", with: 2)
        #expect(problem(Recording.line(future)) == "line 1: version: version 2 is not one this castsim reads (it reads 1)")
        #expect(problem(header + #"{"event": "message", "t": 1, "wall": "2026-11-25T12:00:00Z"}"# + "\n")
            == "line 2: direction: missing; expected in or out")
        #expect(problem(header + #"{"event": "tick", "t": 1, "wall": "2026-11-25T12:00:00Z"}"# + "\n")?.hasPrefix("line 2: event: expected one of") == true)
        #expect(problem(header + "{nope\n")?.hasPrefix("line 2: not valid JSON at column") == true)
        #expect(problem(header + #"{"event": "clock", "t": 1, "wall": "yesterday", "to": 2}"# + "\n")?.contains("ISO 8601") == true)
        // A writer killed in the middle of a line: the partial line is dropped, the rest read.
        let complete = Recording.line(Self.events[0].json())
        let read = try? Recording.read(Data((header + complete + #"{"event": "mess"#).utf8))
        #expect(read?.events == [Self.events[0]])
    }

    @Test("Redaction replaces a path wherever it occurs, through arrays; other members stay")
    func redaction() throws {
        let redaction = try PayloadRedaction(["credentials", "customData.sessionToken"])
        let payload: JSONValue = [
            "type": "LOAD", "credentials": "secret", "customData": ["sessionToken": "t1", "keep": 1],
            "media": ["contentId": "a", "customData": ["sessionToken": "t2"]],
            "items": [["media": ["customData": ["sessionToken": "t3"]]]],
            "sessionToken": "not under customData",
        ]
        let redacted = redaction.apply(to: payload)
        #expect(redacted["credentials"] == "<redacted>")
        #expect(redacted["customData"] == ["sessionToken": "<redacted>", "keep": 1])
        #expect(redacted["media"]?["customData"]?["sessionToken"] == "<redacted>")
        #expect(redacted["items"]?.arrayValue?.first?["media"]?["customData"]?["sessionToken"] == "<redacted>")
        #expect(redacted["sessionToken"] == "not under customData")
        #expect(redacted["media"]?["contentId"] == "a")

        // In a recording: message payloads and emitted inputs; the header lists the paths.
        let message = RecordedEvent(time: .zero, wall: 0, kind: .message(RecordedMessage(
            direction: .inbound, connections: [ConnectionID(1)],
            envelope: CastEnvelope(sourceId: "s", destinationId: "d", namespace: CastNamespace.media, payload: .string(payload.jsonText())))))
        let input = RecordedEvent(time: .zero, wall: 0, kind: .input(["emit": ["namespace": "media", "payload": ["type": "X", "credentials": "c"]]]))
        let text = Recording(header: Self.header, events: [message, input]).text(redacting: redaction)
        #expect(!text.contains("secret") && !text.contains("t1") && !text.contains("t3") && !text.contains("\"c\""))
        let read = try Recording.read(Data(text.utf8))
        #expect(read.header.redacted == ["credentials", "customData.sessionToken"])

        #expect(throws: RedactionPathError.self) { try PayloadRedaction(["a..b"]) }
        #expect(throws: RedactionPathError.self) { try PayloadRedaction([""]) }
        // An element's index would never match a member's name: refused, with the path that works.
        #expect(throws: RedactionPathError.self) { try PayloadRedaction(["status[0].volume"]) }
        do {
            _ = try PayloadRedaction(["credentials", "status[0].volume", "items[12]"])
        } catch {
            #expect(error.description == #""status[0].volume" names an array's element; a redaction follows every element of an array, so write "status.volume""#)
        }
        let everyElement = try PayloadRedaction(["status.volume"]).apply(to: ["status": [["volume": 1, "a": 1], ["volume": 2]]])
        #expect(everyElement == ["status": [["volume": PayloadRedaction.marker, "a": 1], ["volume": PayloadRedaction.marker]]])
    }

    @Test("A sender's payload with a name given twice reads back from a recording, the last one winning, as the device read it")
    func duplicateNamesInPayloads() throws {
        let header = Recording.line(Self.header.json)
        let line = #"{"connections":[1],"destination":"receiver-0","direction":"in","event":"message","namespace":"urn:x-cast:com.google.cast.receiver","payload":{"requestId":1,"type":"GET_STATUS","requestId":2},"source":"sender-0","t":0.5,"wall":"2026-11-28T05:00:00.000Z"}"#
        let recording = try Recording.read(Data((header + line + "\n").utf8))
        guard case .message(let message)? = recording.events.first?.kind else { Issue.record("no message"); return }
        #expect(message.envelope.utf8.flatMap { try? JSONValue.parse($0) }?["requestId"] == 2)
    }

    @Test("ISO 8601 text for milliseconds reads back to the same milliseconds")
    func wallTimes() {
        for milliseconds: Int64 in [0, 1, 999, 86_399_999, 951_782_400_000, 1_764_072_000_123, 4_102_444_799_999] {
            let text = ISOTime.text(milliseconds: milliseconds)
            #expect(ISOTime.milliseconds(text) == milliseconds, "\(text)")
        }
        #expect(ISOTime.text(milliseconds: 951_782_400_000) == "2000-02-29T00:00:00.000Z")
        #expect(ISOTime.text(milliseconds: 1_764_072_000_123) == "2025-11-25T12:00:00.123Z")
        #expect(ISOTime.text(milliseconds: -1) == "1969-12-31T23:59:59.999Z")
        // JavaScript's Date ends: a sign and six digits outside years 0 to 9999.
        #expect(ISOTime.text(milliseconds: 8_640_000_000_000_000) == "+275760-09-13T00:00:00.000Z")
        #expect(ISOTime.text(milliseconds: -8_640_000_000_000_000) == "-271821-04-20T00:00:00.000Z")
        #expect(ISOTime.text(milliseconds: -62_198_755_200_000) == "-000001-01-01T00:00:00.000Z")
        // Written into bytes as a JSON string, after what is there: the same text in quotes.
        for milliseconds: Int64 in [0, -1, 1_764_072_000_123, 8_640_000_000_000_000, -8_640_000_000_000_000] {
            var bytes = Array("x".utf8)
            ISOTime.appendJSON(milliseconds: milliseconds, to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == "x\"" + ISOTime.text(milliseconds: milliseconds) + "\"")
        }
    }

    @Test("docs/recording.schema.json knows every event kind and member the writer writes")
    func schemaAgrees() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/recording.schema.json")
        let schema = try JSONValue.parse(String(decoding: try Data(contentsOf: url), as: UTF8.self))
        let kinds = schema["$defs"]?["event"]?["properties"]?["event"]?["enum"]?.arrayValue?.compactMap(\.stringValue)
        #expect(kinds == RecordedEvent.Kind.names)
        let headerMembers = Set(schema["$defs"]?["header"]?["properties"]?.objectValue?.keys.map { $0 } ?? [])
        #expect(Set(Self.header.json.objectValue!.keys).isSubset(of: headerMembers))
        // Every member an event line has is named by the schema for its kind.
        let clauses = schema["$defs"]?["event"]?["allOf"]?.arrayValue ?? []
        for event in Self.events {
            let line = event.json()
            let clause = clauses.first { $0["if"]?["properties"]?["event"]?["const"] == .string(event.kind.name) }
            let named = Set(clause?["then"]?["properties"]?.objectValue?.keys.map { $0 } ?? []).union(["event", "t", "wall"])
            let members = Set(line.objectValue!.keys)
            #expect(members.isSubset(of: named), "\(event.kind.name): \(members.subtracting(named))")
        }
    }
}

@Suite("castsim recording show: one line an event, filtered")
struct RecordingTranscriptTests {
    @Test("Messages show time, direction, connection, namespace, type and what matters; filters pick")
    func lines() {
        let recording = Recording(header: RecordingFormatTests.header, events: RecordingFormatTests.events + [
            RecordingFormatTests.event(14, .message(RecordedMessage(direction: .inbound, connections: [ConnectionID(2)], envelope: CastEnvelope(
                sourceId: "sender-0", destinationId: "app", namespace: CastNamespace.media,
                payload: .string(#"{"type":"LOAD","requestId":7,"media":{"contentId":"http://m.test/a.mp4"}}"#))))),
            RecordingFormatTests.event(15, .message(RecordedMessage(direction: .outbound, connections: [ConnectionID(2)], envelope: CastEnvelope(
                sourceId: "Tr@n$p0rt-0", destinationId: "Tr@n$p0rt-0", namespace: CastNamespace.heartbeat, payload: .string(#"{"type":"PING"}"#))))),
        ])
        #expect(RecordingTranscript.headline(recording.header)
            == "castsim recording v1 · device \"Living Room TV\" (Chromecast) · relayed from 192.168.1.20:8009 · scenario \"s\" · clock ×10 · recorded 2025-11-25T12:00:00.123Z · redacted: credentials")
        let all = RecordingTranscript.lines(recording)
        #expect(all.count == recording.events.count)
        #expect(all[0] == "     0.000 + c1 connected from 127.0.0.1:50000")
        #expect(all[1].hasPrefix("     0.500 → c1   receiver   GET_STATUS       #1  [sender-0→receiver-0]  unhandled: no app"))
        let loads = RecordingTranscript.lines(recording, filter: .init(namespace: "media", type: "LOAD"))
        #expect(loads == ["    14.000 → c2   media      LOAD             #7 contentId=http://m.test/a.mp4  [sender-0→app]"])
        let second = RecordingTranscript.lines(recording, filter: .init(connection: ConnectionID(2), direction: .outbound))
        #expect(second.count == 2, "the broadcast to 1 and 2, and the PING: \(second)")
        #expect(RecordingTranscript.lines(recording, filter: .init(connection: ConnectionID(2), direction: .outbound, hideHeartbeats: true)).count == 1)
        #expect(RecordingTranscript.lines(recording, filter: .init(messagesOnly: true)).allSatisfy { $0.contains("→") || $0.contains("←") })
        #expect(all.contains("     2.000 ! operator {\"remote\":\"pause\"}"))
        #expect(all.contains("    13.000 - c1 disconnected (idleTimeout)"))
        #expect(all.contains("    14.000 ▶ streaming measured 1-4 video vp8 300 frames"))
    }
}

extension JournalEntry {
    fileprivate func recordingLine(wall: Int64 = 0, redacting redaction: PayloadRedaction = .none) -> String {
        var bytes: [UInt8] = []
        appendRecordingLine(wall: wall, to: &bytes, redacting: redaction)
        return String(decoding: bytes, as: UTF8.self)
    }
}
