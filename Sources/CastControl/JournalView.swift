import CastDevice
import CastScenario
import CastWire
import Foundation

/// Journal entries as the API shows them, and the filters of `GET /api/v1/journal`.
package enum JournalView {
    package static func json(_ entry: JournalEntry) -> JSONValue {
        var fields: [String: JSONValue] = [
            "seq": .number(Double(entry.sequence)),
            "time": .number(entry.time.seconds),
            "direction": .string(entry.direction.rawValue),
            "connections": .array(entry.connections.map { .number(Double($0.rawValue)) }),
            "namespace": .string(entry.envelope.namespace),
            "sourceId": .string(entry.envelope.sourceId),
            "destinationId": .string(entry.envelope.destinationId),
            "unhandled": entry.unhandled.map(JSONValue.string) ?? nil,
        ]
        switch entry.envelope.payload {
        case .string(let text):
            let payload = try? JSONValue.parse(text)
            fields["payload"] = payload ?? .null
            fields["type"] = payload?["type"]?.stringValue.map(JSONValue.string) ?? .null
            if payload == nil { fields["text"] = .string(text) }
        case .binary(let data):
            fields["payload"] = .null
            fields["type"] = .null
            fields["binary"] = .string(data.base64EncodedString())
        }
        return .object(fields)
    }

    /// Appends ``json(_:)``'s text for `entry`, byte for byte, without building the value: an
    /// event stream writes one for every message. The device's own payload is copied as it
    /// is (its `type` read from the text); a sender's is parsed and written again, as there.
    package static func appendJSON(_ entry: JournalEntry, to output: inout [UInt8]) {
        /// The payload as it is written: copied, written again from its parse, or null.
        enum Payload {
            case copied(String)
            case parsed(JSONValue)
            case none
        }
        var payload = Payload.none
        var type: String?
        var text: String?
        var binary: String?
        switch entry.envelope.payload {
        case .string(let string):
            if entry.payloadIsOwnJSON, case let scanned = JSONMemberScan.stringMember("type", of: string), scanned != .unsure {
                payload = .copied(string)
                if case .string(let found) = scanned { type = found }
            } else if let parsed = try? JSONValue.parse(string) {
                payload = .parsed(parsed)
                type = parsed["type"]?.stringValue
            } else {
                text = string
            }
        case .binary(let data):
            binary = data.base64EncodedString()
        }
        // Keys in the order jsonText() sorts them.
        output.append(UInt8(ascii: "{"))
        if let binary {
            output.append(contentsOf: #""binary":"#.utf8)
            JSONValue.writeString(binary, to: &output)
            output.append(UInt8(ascii: ","))
        }
        output.append(contentsOf: #""connections":"#.utf8)
        entry.connections.writeJSON(to: &output)
        output.append(contentsOf: #","destinationId":"#.utf8)
        JSONValue.writeString(entry.envelope.destinationId, to: &output)
        output.append(contentsOf: #","direction":"#.utf8)
        JSONValue.writeString(entry.direction.rawValue, to: &output)
        output.append(contentsOf: #","namespace":"#.utf8)
        JSONValue.writeString(entry.envelope.namespace, to: &output)
        output.append(contentsOf: #","payload":"#.utf8)
        switch payload {
        case .copied(let string): output.append(utf8Of: string)
        case .parsed(let value): value.write(to: &output)
        case .none: JSONValue.null.write(to: &output)
        }
        output.append(contentsOf: #","seq":"#.utf8)
        JSONValue.writeNumber(Double(entry.sequence), to: &output)
        output.append(contentsOf: #","sourceId":"#.utf8)
        JSONValue.writeString(entry.envelope.sourceId, to: &output)
        if let text {
            output.append(contentsOf: #","text":"#.utf8)
            JSONValue.writeString(text, to: &output)
        }
        output.append(contentsOf: #","time":"#.utf8)
        JSONValue.writeNumber(entry.time.seconds, to: &output)
        output.append(contentsOf: #","type":"#.utf8)
        (type.map(JSONValue.string) ?? .null).write(to: &output)
        output.append(contentsOf: #","unhandled":"#.utf8)
        (entry.unhandled.map(JSONValue.string) ?? .null).write(to: &output)
        output.append(UInt8(ascii: "}"))
    }

    /// The text of `GET /journal`'s answer, `{"complete", "kept", "messages", "more", "seen"}`,
    /// written as bytes: a poller that follows a busy device asks for hundreds of messages
    /// a second, and each one built as a value (its payload parsed) and encoded cost more
    /// than the device's own work on it.
    package static func pageJSON(_ entries: [JournalEntry], more: Bool, complete: Bool, kept: Int, seen: Int) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(entries.reduce(128) { $0 + $1.envelope.payloadByteCount + 256 })
        // Keys in the order jsonText() sorts them.
        output.append(contentsOf: #"{"complete":"#.utf8)
        JSONValue.bool(complete).write(to: &output)
        output.append(contentsOf: #","kept":"#.utf8)
        JSONValue.writeNumber(Double(kept), to: &output)
        output.append(contentsOf: #","messages":["#.utf8)
        for (index, entry) in entries.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            appendJSON(entry, to: &output)
        }
        output.append(contentsOf: #"],"more":"#.utf8)
        JSONValue.bool(more).write(to: &output)
        output.append(contentsOf: #","seen":"#.utf8)
        JSONValue.writeNumber(Double(seen), to: &output)
        output.append(UInt8(ascii: "}"))
        return output
    }

    /// Which entries a journal request wants.
    struct Filter {
        var namespace: String?
        var type: String?
        var direction: JournalEntry.Direction?
        var connection: ConnectionID?
        var since: Double?
        var until: Double?
        var after: Int?
        var unhandledOnly = false
        var limit = 1000

        static let maximumLimit = 10_000

        /// Reads the query; a problem is named with what was expected.
        init(query: [String: String]) throws(ControlError) {
            let known: Set<String> = ["namespace", "type", "direction", "connection", "since", "until", "after", "unhandled", "limit", "token"]
            if let unknown = query.keys.sorted().first(where: { !known.contains($0) }) {
                throw .badRequest("unknown query parameter \"\(unknown)\"; expected \(known.subtracting(["token"]).sorted().joined(separator: ", "))")
            }
            if let namespace = query["namespace"] {
                // As a pattern's namespace: a misspelt short name is refused, not a filter
                // that matches nothing.
                guard MessagePattern.namespaceAliases[namespace] != nil || namespace.hasPrefix("urn:x-cast:") else {
                    throw .badRequest("namespace: expected \"urn:x-cast:...\" or one of \(MessagePattern.namespaceAliases.keys.sorted().joined(separator: ", ")), got \"\(namespace)\"")
                }
                self.namespace = MessagePattern.namespace(namespace)
            }
            type = query["type"]
            if let direction = query["direction"] {
                guard let value = JournalEntry.Direction(rawValue: direction) else {
                    throw .badRequest("direction: expected \"in\" or \"out\", got \"\(direction)\"")
                }
                self.direction = value
            }
            if let text = query["connection"] {
                connection = ConnectionID(UInt64(try Self.integer(text, "connection", in: 1...Int.max)))
            }
            since = try query["since"].map { text throws(ControlError) in try Self.seconds(text, "since") }
            until = try query["until"].map { text throws(ControlError) in try Self.seconds(text, "until") }
            after = try query["after"].map { text throws(ControlError) in try Self.integer(text, "after", in: 0...Int.max) }
            if let text = query["unhandled"] {
                guard let flag = Bool(text) else { throw .badRequest("unhandled: expected true or false, got \"\(text)\"") }
                unhandledOnly = flag
            }
            if let text = query["limit"] { limit = try Self.integer(text, "limit", in: 1...Self.maximumLimit) }
            if let since, let until, since > until {
                throw .badRequest("since \(since) is after until \(until): no message is in that window")
            }
        }

        init() {}

        func admits(_ entry: JournalEntry) -> Bool {
            if let namespace, entry.envelope.namespace != namespace { return false }
            if let direction, entry.direction != direction { return false }
            if let connection, !entry.connections.contains(connection) { return false }
            if let since, entry.time.seconds < since { return false }
            if let until, entry.time.seconds > until { return false }
            if let after, entry.sequence <= after { return false }
            if unhandledOnly, entry.unhandled == nil { return false }
            if let type, entry.payload?["type"]?.stringValue != type { return false }
            return true
        }

        /// The entries that pass, oldest first, at most `limit`: after a cursor (`after`),
        /// the oldest ones past it, so that a poller who fell behind reads on from where
        /// it was; without one, the newest. `more` says some that pass were left out.
        func apply(_ entries: [JournalEntry]) -> (entries: [JournalEntry], more: Bool) {
            var kept: [JournalEntry] = []
            if after != nil {
                for entry in entries where admits(entry) {
                    if kept.count == limit { return (kept, true) }
                    kept.append(entry)
                }
                return (kept, false)
            }
            for entry in entries.reversed() where admits(entry) {
                if kept.count == limit { return (kept.reversed(), true) }
                kept.append(entry)
            }
            return (kept.reversed(), false)
        }

        static func integer(_ text: String, _ name: String, in range: ClosedRange<Int>) throws(ControlError) -> Int {
            guard let value = Int(text), range.contains(value) else {
                throw .badRequest("\(name): expected an integer \(range.upperBound == Int.max ? ">= \(range.lowerBound)" : "from \(range.lowerBound) to \(range.upperBound)"), got \"\(text)\"")
            }
            return value
        }

        static func seconds(_ text: String, _ name: String) throws(ControlError) -> Double {
            guard let value = Double(text), value.isFinite, value >= 0 else {
                throw .badRequest("\(name): expected simulation seconds (a number >= 0), got \"\(text)\"")
            }
            return value
        }
    }
}
