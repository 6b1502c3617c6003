import CastDevice
import CastWire
import Foundation

// The JSON of each line of a recording, both ways. `docs/recording.md` is the prose,
// `docs/recording.schema.json` the schema; a test checks the three agree.

extension RecordingHeader {
    public var json: JSONValue {
        var members: [String: JSONValue] = [
            "format": .string(Self.format), "version": .number(Double(Self.version)), "castsim": .string(castsim),
            "recordedAt": .string(ISOTime.text(milliseconds: recordedAt)), "source": .string(source.rawValue),
            "device": device.recordingJSON(host: host, castPort: castPort), "clock": clock.json,
            "scenario": scenario ?? .null, "redacted": .array(redacted.map(JSONValue.string)),
        ]
        if let upstream { members["upstream"] = .string(upstream) }
        return .object(members)
    }

    package init(json: JSONValue) throws(JSONReadError) {
        let root = JSONReader(json)
        let format = try root.required("format", "\"\(Self.format)\"").string()
        guard format == Self.format else { throw root["format"]!.error("expected \"\(Self.format)\", got \"\(format)\": no castsim recording") }
        let version = try root.required("version", "the format's version").int()
        guard version == Self.version else {
            throw root["version"]!.error("version \(version) is not one this castsim reads (it reads \(Self.version))")
        }
        castsim = try root.required("castsim", "castsim's version").string()
        let recordedAtText = try root.required("recordedAt", "an ISO 8601 time").string()
        guard let recordedAt = ISOTime.milliseconds(recordedAtText) else {
            throw root["recordedAt"]!.error("expected an ISO 8601 time like 2026-11-25T12:00:00.000Z, got \"\(recordedAtText)\"")
        }
        self.recordedAt = recordedAt
        source = try root.required("source", "device or relay").oneOf(Source.self)
        upstream = try root["upstream"]?.string(nonEmpty: true)
        let device = try root.required("device", "the device's identity")
        let uuid = try device.required("uuid", "32 hex digits").string()
        let name = try device["name"]?.string() ?? "castsim"
        let model = try device["model"]?.string() ?? "Chromecast"
        let manufacturer = try device["manufacturer"]?.string() ?? "Google Inc."
        do {
            self.device = try DeviceIdentity(uuid: uuid, friendlyName: name, modelName: model, manufacturer: manufacturer)
        } catch {
            throw device["uuid"]!.error("expected 32 hex digits (dashes allowed), got \"\(uuid)\"")
        }
        host = try device["host"]?.string()
        castPort = try device["castPort"]?.int(in: 0...65535)
        clock = try Scenario.ClockSetting(recording: try root.required("clock", "{\"mode\": ...}"))
        if let scenario = root["scenario"], !scenario.value.isNull {
            _ = try scenario.object()
            self.scenario = scenario.value
        } else {
            scenario = nil
        }
        var redacted: [String] = []
        for path in try root["redacted"]?.array() ?? [] { redacted.append(try path.string()) }
        self.redacted = redacted
    }
}

extension DeviceIdentity {
    func recordingJSON(host: String?, castPort: Int?) -> JSONValue {
        var members: [String: JSONValue] = [
            "name": .string(friendlyName), "uuid": .string(uuid), "model": .string(modelName), "manufacturer": .string(manufacturer),
        ]
        if let host { members["host"] = .string(host) }
        if let castPort { members["castPort"] = .number(Double(castPort)) }
        return .object(members)
    }
}

extension Scenario.ClockSetting {
    /// As a scenario file and a recording's header write it.
    public var json: JSONValue {
        switch self {
        case .real: ["mode": "real"]
        case .manual: ["mode": "manual"]
        case .scaled(let speed): ["mode": "scaled", "speed": .number(speed)]
        }
    }

    init(recording value: JSONReader) throws(JSONReadError) {
        switch try value.required("mode", "real, scaled or manual").oneOf(["real", "scaled", "manual"]) {
        case "manual": self = .manual
        case "scaled": self = .scaled(try value.required("speed", "how many times faster").double(in: 0.001...1_000_000))
        default: self = .real
        }
    }
}

extension RecordedEvent {
    /// Times in a recording are scenario seconds, at most twice the longest duration castsim takes.
    static let longest = ScenarioDuration.maximum * 2

    /// The event's line, its payloads passed through `redaction`.
    public func json(redacting redaction: PayloadRedaction = .none) -> JSONValue {
        var members: [String: JSONValue] = [
            "event": .string(kind.name), "t": .number(time.seconds), "wall": .string(ISOTime.text(milliseconds: wall)),
        ]
        func id(_ connection: ConnectionID) -> JSONValue { .number(Double(connection.rawValue)) }
        switch kind {
        case .message(let message):
            members["direction"] = .string(message.direction.rawValue)
            members["connections"] = .array(message.connections.map(id))
            members["namespace"] = .string(message.envelope.namespace)
            members["source"] = .string(message.envelope.sourceId)
            members["destination"] = .string(message.envelope.destinationId)
            switch message.envelope.payload {
            case .string(let text):
                if let payload = try? JSONValue.parse(text) {
                    members["payload"] = redaction.apply(to: payload)
                } else {
                    // Text that is no JSON castsim reads cannot be searched for the paths:
                    // with redaction on, none of it is kept.
                    members["text"] = redaction.isEmpty ? .string(text) : PayloadRedaction.marker
                }
            case .binary(let data):
                members["binary"] = .string(data.base64EncodedString())
            }
            if let unhandled = message.unhandled { members["unhandled"] = .string(unhandled) }
        case .connected(let connection, let peer):
            members["connection"] = id(connection)
            if let peer { members["peer"] = .string(peer) }
        case .disconnected(let connection, let how):
            members["connection"] = id(connection)
            members["how"] = .string(how.rawValue)
        case .input(let action):
            members["action"] = redaction.apply(to: action)
        case .fault(let fault):
            switch fault {
            case .closeConnection(let connection, let reset):
                members["fault"] = "closeConnection"
                members["connection"] = id(connection)
                members["reset"] = .bool(reset)
            case .sendFrame(let connection, let frame):
                members["fault"] = "sendFrame"
                members["connection"] = id(connection)
                members["frame"] = .string(frame.rawValue)
            case .stopHeartbeats(let until):
                members["fault"] = "stopHeartbeats"
                members["until"] = .number(until.seconds)
            case .unresponsive(let until):
                members["fault"] = "unresponsive"
                members["until"] = .number(until.seconds)
            case .delayReplies(let by, let until, let connection):
                members["fault"] = "delayReplies"
                members["by"] = .number(by)
                members["until"] = .number(until.seconds)
                if let connection { members["connection"] = id(connection) }
            }
        case .clock(let to):
            members["to"] = .number(to.seconds)
        case .reset(let scenario):
            members["scenario"] = scenario ?? .null
        case .upstream(let connection, let connected, let reason):
            members["connection"] = id(connection)
            members["status"] = connected ? "connected" : "failed"
            if let reason { members["reason"] = .string(reason) }
        case .dropped(let count):
            members["count"] = .number(Double(count))
        case .streaming(let event):
            members["streaming"] = event
        }
        return .object(members)
    }

    package init(json: JSONValue) throws(JSONReadError) {
        let root = JSONReader(json)
        let name = try root.required("event", "one of \(Kind.names.joined(separator: ", "))").oneOf(Kind.names)
        time = SimTime(seconds: try root.required("t", "scenario seconds").double(in: 0...Self.longest))
        let wallText = try root.required("wall", "an ISO 8601 time").string()
        guard let wall = ISOTime.milliseconds(wallText) else {
            throw root["wall"]!.error("expected an ISO 8601 time like 2026-11-25T12:00:00.000Z, got \"\(wallText)\"")
        }
        self.wall = wall
        func connection(_ key: String = "connection") throws(JSONReadError) -> ConnectionID {
            ConnectionID(UInt64(try root.required(key, "a connection id").int(minimum: 1)))
        }
        switch name {
        case "message":
            let direction = try root.required("direction", "in or out").oneOf(JournalEntry.Direction.self)
            var connections: [ConnectionID] = []
            let list = try root.required("connections", "connection ids")
            for id in try list.array() { connections.append(ConnectionID(UInt64(try id.int(minimum: 1)))) }
            if direction == .inbound, connections.count != 1 {
                throw list.error("a message from a sender came on one connection; got \(connections.count)")
            }
            let payload: CastEnvelope.Payload
            if [root["payload"], root["text"], root["binary"]].compactMap({ $0 }).count > 1 {
                throw root.error("a message has one of payload, text and binary")
            }
            if let value = root["payload"] {
                payload = .string(value.value.jsonText())
            } else if let text = root["text"] {
                payload = .string(try text.string())
            } else if let binary = root["binary"] {
                guard let data = Data(base64Encoded: try binary.string()) else { throw binary.error("expected base64") }
                payload = .binary(data)
            } else {
                throw root.error("a message needs payload, text or binary")
            }
            let envelope = CastEnvelope(
                sourceId: try root.required("source", "the source id").string(), destinationId: try root.required("destination", "the destination id").string(),
                namespace: try root.required("namespace", "the namespace").string(nonEmpty: true), payload: payload)
            kind = .message(RecordedMessage(direction: direction, connections: ConnectionList(connections), envelope: envelope,
                                            unhandled: try root["unhandled"]?.string()))
        case "connected":
            kind = .connected(try connection(), peer: try root["peer"]?.string())
        case "disconnected":
            kind = .disconnected(try connection(), how: try root.required("how", "clean, reset, idleTimeout or device").oneOf(ConnectionEnding.self))
        case "input":
            let action = try root.required("action", "a timeline action")
            _ = try action.object()
            kind = .input(action.value)
        case "fault":
            let until = { () throws(JSONReadError) -> SimTime in SimTime(seconds: try root.required("until", "seconds").double(in: 0...Self.longest)) }
            switch try root.required("fault", "the fault's kind").oneOf(["closeConnection", "sendFrame", "stopHeartbeats", "unresponsive", "delayReplies"]) {
            case "closeConnection": kind = .fault(.closeConnection(try connection(), reset: try root["reset"]?.bool() ?? false))
            case "sendFrame": kind = .fault(.sendFrame(try connection(), try root.required("frame", "malformed or oversized").oneOf(RawFrame.self)))
            case "stopHeartbeats": kind = .fault(.stopHeartbeats(until: try until()))
            case "unresponsive": kind = .fault(.unresponsive(until: try until()))
            default:
                kind = .fault(.delayReplies(by: try root.required("by", "seconds").double(in: 0...Self.longest), until: try until(),
                                            connection: root["connection"] == nil ? nil : try connection()))
            }
        case "clock":
            kind = .clock(to: SimTime(seconds: try root.required("to", "seconds").double(in: 0...Self.longest)))
        case "reset":
            let scenario = root["scenario"]?.value
            kind = .reset(scenario: scenario == nil || scenario == .null ? Optional<JSONValue>.none : scenario)
        case "upstream":
            let status = try root.required("status", "connected or failed").oneOf(["connected", "failed"])
            kind = .upstream(try connection(), connected: status == "connected", reason: try root["reason"]?.string())
        case "streaming":
            let event = try root.required("streaming", "the streaming event: {\"phase\": ...}")
            _ = try event.required("phase", "negotiating, started, impaired, refused, measured or ended").string(nonEmpty: true)
            kind = .streaming(event.value)
        default:
            kind = .dropped(count: try root.required("count", "how many").int(minimum: 1))
        }
    }
}

extension RecordedEvent {
    /// The event's line (``json(redacting:)`` and a newline).
    public func line(redacting redaction: PayloadRedaction = .none) -> String {
        var bytes: [UInt8] = []
        appendLine(to: &bytes, redacting: redaction)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the event's line. A message with a JSON payload is written straight into
    /// bytes (``RecordingLineWriter``), its payload parsed and written again as nobody has
    /// said what its text is (a recorder writes the journal's entries, which say:
    /// ``JournalEntry/appendRecordingLine(wall:to:redacting:)``); anything else through
    /// its value.
    package func appendLine(to output: inout [UInt8], redacting redaction: PayloadRedaction = .none) {
        var lines = RecordingLineWriter.uncached
        guard case .message(let message) = kind, redaction.isEmpty,
              lines.appendMessageLine(message.direction, message.connections, message.envelope, unhandled: message.unhandled,
                                      ownJSON: false, json: false, time: time, wall: wall, to: &output)
        else { return appendSlowLine(to: &output, redacting: redaction) }
    }

    /// Whether JSON text is on one line: a line break (or any control character) can only
    /// be whitespace between its tokens, as strings escape them.
    /// Read from the string's bytes where they lie, eight at a time: through the UTF-8 view's
    /// iterator it was a twentieth of a recorder's writer.
    static func isOneLine(_ text: String) -> Bool { text.withUTF8Bytes { !JSONEscapeScan.hasControlByte($0) } }

    private func appendSlowLine(to output: inout [UInt8], redacting redaction: PayloadRedaction) {
        json(redacting: redaction).write(to: &output)
        output.append(UInt8(ascii: "\n"))
    }
}

extension JournalEntry {
    /// The message's line in a recording, written at `wall` (milliseconds since 1970), every
    /// part written anew: a recorder's writer keeps a ``RecordingLineWriter`` instead.
    package func appendRecordingLine(wall: Int64, to output: inout [UInt8], redacting redaction: PayloadRedaction = .none) {
        var lines = RecordingLineWriter.uncached
        lines.append(self, wall: wall, to: &output, redacting: redaction)
    }
}

extension Recording {
    /// One line of JSON Lines: the value's JSON and a newline.
    public static func line(_ value: JSONValue) -> String { value.jsonText() + "\n" }

    /// The whole recording as JSON Lines.
    public func text(redacting redaction: PayloadRedaction = .none) -> String {
        var header = header
        header.redacted = Array(Set(header.redacted + redaction.paths)).sorted()
        return Self.line(header.json) + events.map { Self.line($0.json(redacting: redaction)) }.joined()
    }

    /// Reads a recording; a problem is refused with its line number and JSON path.
    public static func read(_ data: Data) throws(RecordingReadError) -> Recording {
        var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        // A recording whose writer was killed may end inside a line: that line is dropped.
        let complete = data.last == UInt8(ascii: "\n")
        if lines.last?.isEmpty == true { lines.removeLast() }
        guard let first = lines.first else { throw RecordingReadError(line: 1, message: "empty file; expected a castsim recording header") }
        func parse(_ bytes: Data.SubSequence, line: Int) throws(RecordingReadError) -> JSONValue {
            do {
                return try JSONValue.parse(Data(bytes), limits: .recording)
            } catch {
                throw RecordingReadError(line: line, message: "not valid JSON at column \(error.offset + 1): \(error.reason)")
            }
        }
        let header: RecordingHeader
        do {
            header = try RecordingHeader(json: try parse(first, line: 1))
        } catch let error as JSONReadError {
            throw RecordingReadError(line: 1, message: error.description)
        } catch let error as RecordingReadError {
            throw error
        } catch {
            throw RecordingReadError(line: 1, message: "\(error)")
        }
        var events: [RecordedEvent] = []
        events.reserveCapacity(lines.count - 1)
        for (index, bytes) in lines.enumerated().dropFirst() {
            let event: RecordedEvent
            do {
                if !complete, index == lines.count - 1, index > 0, (try? JSONValue.parse(Data(bytes), limits: .recording)) == nil { break }
                event = try RecordedEvent(json: try parse(bytes, line: index + 1))
            } catch let error as JSONReadError {
                throw RecordingReadError(line: index + 1, message: error.description)
            } catch let error as RecordingReadError {
                throw error
            } catch {
                throw RecordingReadError(line: index + 1, message: "\(error)")
            }
            events.append(event)
        }
        return Recording(header: header, events: events)
    }
}

public struct RecordingReadError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var message: String
    public init(line: Int, message: String) {
        self.line = line
        self.message = message
    }
    public var description: String { "line \(line): \(message)" }
}
