import CastDevice
import CastWire

/// A recording as text a person reads in a terminal (`castsim recording show`): one line
/// an event, messages as time, direction, connection, namespace, type and what matters in them.
public enum RecordingTranscript {
    /// Which events to show; nil members admit everything.
    public struct Filter: Sendable {
        public var namespace: String?
        public var type: String?
        public var connection: ConnectionID?
        public var direction: JournalEntry.Direction?
        /// Only messages (no connections, inputs, faults ...).
        public var messagesOnly = false
        /// Leave heartbeat PING/PONG out.
        public var hideHeartbeats = false

        public init(namespace: String? = nil, type: String? = nil, connection: ConnectionID? = nil,
                    direction: JournalEntry.Direction? = nil, messagesOnly: Bool = false, hideHeartbeats: Bool = false) {
            // "media" and the full name both name the media namespace.
            self.namespace = namespace.map(MessagePattern.namespace)
            self.type = type
            self.connection = connection
            self.direction = direction
            self.messagesOnly = messagesOnly
            self.hideHeartbeats = hideHeartbeats
        }

        func admits(_ event: RecordedEvent) -> Bool {
            guard case .message(let message) = event.kind else {
                guard !messagesOnly, namespace == nil, type == nil, direction == nil else { return false }
                return connection.map { event.kind.connections.contains($0) } ?? true
            }
            if let namespace, message.envelope.namespace != namespace { return false }
            if let type, message.type != type { return false }
            if let direction, message.direction != direction { return false }
            if let connection, !message.connections.contains(connection) { return false }
            if hideHeartbeats, message.envelope.namespace == CastNamespace.heartbeat { return false }
            return true
        }
    }

    /// The header's summary line.
    public static func headline(_ header: RecordingHeader) -> String {
        var parts = ["castsim recording v\(RecordingHeader.version)", "device \"\(header.device.friendlyName)\" (\(header.device.modelName))"]
        parts.append(header.source == .relay ? "relayed from \(header.upstream ?? "?")" : "simulated by castsim \(header.castsim)")
        if let name = header.scenario?["name"]?.stringValue { parts.append("scenario \"\(name)\"") }
        switch header.clock {
        case .real: parts.append("real clock")
        case .manual: parts.append("manual clock")
        case .scaled(let speed): parts.append("clock ×\(NumberText.format(speed))")
        }
        parts.append("recorded \(ISOTime.text(milliseconds: header.recordedAt))")
        if !header.redacted.isEmpty { parts.append("redacted: \(header.redacted.joined(separator: ", "))") }
        return parts.joined(separator: " · ")
    }

    /// One line per admitted event.
    public static func lines(_ recording: Recording, filter: Filter = Filter()) -> [String] {
        recording.events.filter(filter.admits).map(line)
    }

    public static func line(_ event: RecordedEvent) -> String {
        let time = String(format: "%10.3f", event.time.seconds)
        switch event.kind {
        case .message(let message):
            let arrow = message.direction == .inbound ? "→" : "←"
            let connections = message.connections.map { "\($0.rawValue)" }.joined(separator: ",")
            let namespace = short(message.envelope.namespace)
            let payload = message.payload
            let type = payload?["type"]?.stringValue ?? (message.envelope.utf8 == nil ? "<binary>" : "?")
            var text = "\(time) \(arrow) c\(connections.padding(toLength: 3)) \(namespace.padding(toLength: 10)) \(type.padding(toLength: 16))"
            let endpoints = "\(message.envelope.sourceId)→\(message.envelope.destinationId)"
            let details = payload.map(fields) ?? ""
            text += " \(details.isEmpty ? "" : details + "  ")[\(endpoints)]"
            if let unhandled = message.unhandled { text += "  unhandled: \(unhandled)" }
            return LogText.escape(text, limit: 400)
        case .connected(let connection, let peer):
            return "\(time) + c\(connection.rawValue) connected\(peer.map { " from \($0)" } ?? "")"
        case .disconnected(let connection, let how):
            return "\(time) - c\(connection.rawValue) disconnected (\(how.rawValue))"
        case .input(let action):
            return LogText.escape("\(time) ! operator \(action.jsonText())", limit: 400)
        case .fault(let fault):
            return "\(time) ! fault \(fault)"
        case .clock(let to):
            return "\(time) ⏩ clock to \(NumberText.format(to.seconds)) s"
        case .reset(let scenario):
            return "\(time) ⟲ reset\(scenario?["name"]?.stringValue.map { " to scenario \"\($0)\"" } ?? "")"
        case .upstream(let connection, let connected, let reason):
            return LogText.escape("\(time) ⇄ c\(connection.rawValue) upstream \(connected ? "connected" : "failed")\(reason.map { ": \($0)" } ?? "")", limit: 400)
        case .dropped(let count):
            return "\(time) ! \(count) events lost (the writer fell behind)"
        case .streaming(let event):
            return LogText.escape("\(time) ▶ streaming \(Self.streaming(event))", limit: 400)
        }
    }

    /// A streaming event in a few words: its phase, and what the phase has to say.
    static func streaming(_ event: JSONValue) -> String {
        let phase = event["phase"]?.stringValue ?? "?"
        func text(_ key: String) -> String { event[key]?.jsonText() ?? "?" }
        var words = [phase, event["session"]?.stringValue].compactMap { $0 }
        switch phase {
        case "started": words.append("on UDP port \(text("udpPort"))")
        case "refused": words.append("OFFER \(text("seqNum")): \(text("code")) \(event["description"]?.stringValue ?? "")")
        case "ended": words.append(event["reason"]?.stringValue ?? "")
        default: break
        }
        if case .array(let streams)? = event["streams"] {
            words.append(streams.map { stream in
                [stream["kind"]?.stringValue, stream["codec"]?.stringValue, stream["framesReceived"].map { "\($0.jsonText()) frames" }]
                    .compactMap { $0 }.joined(separator: " ")
            }.joined(separator: ", "))
        }
        return words.joined(separator: " ")
    }

    static func short(_ namespace: String) -> String {
        if let alias = MessagePattern.namespaceAliases.first(where: { $0.value == namespace })?.key { return alias }
        return namespace.split(separator: ".").last.map(String.init) ?? namespace
    }

    /// The members that say what a message is about.
    static func fields(_ payload: JSONValue) -> String {
        var parts: [String] = []
        func add(_ name: String, _ value: JSONValue?) {
            guard let value, value != .null else { return }
            let text: String
            switch value {
            case .string(let string): text = string.count > 60 ? String(string.prefix(60)) + "…" : string
            case .number, .bool: text = value.jsonText()
            default: text = String(value.jsonText().prefix(60))
            }
            parts.append("\(name)=\(text)")
        }
        if let id = payload["requestId"]?.intValue, id != 0 { parts.append("#\(id)") }
        add("appId", payload["appId"])
        add("contentId", payload["media"]?["contentId"])
        if let items = payload["items"]?.arrayValue { parts.append("items=\(items.count)") }
        add("currentTime", payload["currentTime"])
        add("level", payload["volume"]?["level"])
        add("muted", payload["volume"]?["muted"])
        add("reason", payload["reason"])
        add("detailedErrorCode", payload["detailedErrorCode"])
        if let status = payload["status"] {
            if let entries = status.arrayValue {
                for entry in entries.prefix(2) {
                    add("playerState", entry["playerState"])
                    add("idleReason", entry["idleReason"])
                    add("item", entry["currentItemId"])
                    add("title", entry["media"]?["metadata"]?["title"])
                    add("at", entry["currentTime"].flatMap { $0.doubleValue.map { .number(($0 * 10).rounded() / 10) } })
                }
                if entries.isEmpty { parts.append("status=[]") }
            } else {
                add("app", status["applications"]?.arrayValue?.first?["displayName"])
                add("level", status["volume"]?["level"])
                add("muted", status["volume"]?["muted"])
                add("standby", status["isStandBy"])
            }
        }
        if parts.isEmpty || (parts.count == 1 && parts[0].hasPrefix("#")) {
            // Anything else: its scalar members.
            for (key, value) in (payload.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) where !["type", "requestId"].contains(key) {
                if case .array = value { continue }
                if case .object = value { continue }
                add(key, value)
            }
        }
        return parts.joined(separator: " ")
    }
}

extension RecordedEvent.Kind {
    /// The connections an event concerns.
    var connections: [ConnectionID] {
        switch self {
        case .message(let message): Array(message.connections)
        case .connected(let id, _), .disconnected(let id, _), .upstream(let id, _, _): [id]
        case .fault(.closeConnection(let id, _)), .fault(.sendFrame(let id, _)): [id]
        case .fault(.delayReplies(_, _, let id?)): [id]
        default: []
        }
    }
}

extension String {
    fileprivate func padding(toLength length: Int) -> String {
        count >= length ? self : self + String(repeating: " ", count: length - count)
    }
}
