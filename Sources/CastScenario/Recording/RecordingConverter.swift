import CastDevice
import CastWire
import Foundation

/// Turns a recording into a scenario that makes castsim behave as the recorded device did
/// for the same sender behaviour (`castsim scenario from-recording`).
///
/// The scenario starts from what castsim knows of the device: the scenario it ran, if
/// castsim recorded itself, or else the identity and a media catalog read from the
/// statuses. Operator inputs and clock moves become timeline steps. Then the recording is
/// played into a simulated device and what it sends is compared with what the recorded
/// device sent, request by request: where castsim would answer differently (or at another
/// time), a `respond` rule answers that request with the recorded messages, at their
/// recorded delays; messages the device sent on its own become `emit` steps. This repeats
/// until the simulation sends what the recording shows. Last, expectations ask that each
/// sender sends what it sent.
public struct RecordingConverter {
    /// Replies within this many seconds of the recorded time count as the same timing (a
    /// real device over a network answers a few milliseconds late).
    public static let timingTolerance = 0.25

    public struct Result: Sendable {
        /// The scenario, as a scenario file writes it (it validates).
        public var scenario: JSONValue
        /// What could not be reproduced, for a person to read.
        public var warnings: [String]
        /// How many requests the device answers from the recording, and how many messages it sends on its own.
        public var rulesAdded: Int
        public var stepsAdded: Int
    }

    public static func convert(_ recording: Recording, name: String? = nil) throws(RecordingConversionError) -> Result {
        var converter = RecordingConverter(recording)
        return try converter.run(name: name)
    }

    // MARK: State

    let header: RecordingHeader
    let events: [RecordedEvent]
    var base: [String: JSONValue]
    /// `segment`: the emits that fill in what castsim does not send after a request.
    var steps: [(time: Double, json: JSONValue, segment: Int?)] = []
    var rules: [(inbound: Int, json: JSONValue)] = []
    var warnings: [String] = []

    /// Indexes into `events` of the inbound messages, in order.
    let inbound: [Int]
    /// For each inbound message, which occurrence it is as a rule's pattern counts: of its
    /// namespace and type, and of its namespace (a pattern without a type).
    let occurrences: [(ofType: Int, onNamespace: Int)]

    private init(_ recording: Recording) {
        header = recording.header
        // After a reset the device started again from a scenario's start: what came before
        // is another run.
        var events = recording.events
        var scenarioJSON = recording.header.scenario
        if let reset = events.lastIndex(where: { if case .reset = $0.kind { true } else { false } }) {
            if case .reset(let scenario) = events[reset].kind, let scenario { scenarioJSON = scenario }
            events = Array(events[(reset + 1)...])
        }
        events = Self.renumbered(events)
        self.events = events
        inbound = events.indices.filter { if case .message(let m) = events[$0].kind { m.direction == .inbound } else { false } }
        var byType: [String: Int] = [:]
        var byNamespace: [String: Int] = [:]
        occurrences = inbound.map { index in
            guard case .message(let message) = events[index].kind else { return (0, 0) }
            let namespace = message.envelope.namespace
            byType[namespace + "\u{0}" + (message.type ?? ""), default: 0] += 1
            byNamespace[namespace, default: 0] += 1
            return (byType[namespace + "\u{0}" + (message.type ?? "")]!, byNamespace[namespace]!)
        }
        if case .object(var members)? = scenarioJSON {
            members["expectations"] = nil
            base = members
            if case .object(var device)? = members["device"] ?? .object([:]) {
                // The replay is the same device to its senders.
                if device["uuid"] == nil { device["uuid"] = .string(recording.header.device.uuid) }
                if device["name"] == nil { device["name"] = .string(recording.header.device.friendlyName) }
                base["device"] = .object(device)
            }
        } else {
            base = [:]
        }
    }

    /// Connections numbered 1, 2, 3 ... in the order they appear, as a device started for
    /// the replay numbers them (a recording made after a reset, or started with senders
    /// already connected, has other numbers).
    private static func renumbered(_ events: [RecordedEvent]) -> [RecordedEvent] {
        var numbers: [ConnectionID: ConnectionID] = [:]
        func number(_ id: ConnectionID) -> ConnectionID {
            if let known = numbers[id] { return known }
            let next = ConnectionID(UInt64(numbers.count + 1))
            numbers[id] = next
            return next
        }
        return events.map { event in
            var event = event
            switch event.kind {
            case .message(var message):
                message.connections = ConnectionList(message.connections.map(number))
                event.kind = .message(message)
            case .connected(let id, let peer): event.kind = .connected(number(id), peer: peer)
            case .disconnected(let id, let how): event.kind = .disconnected(number(id), how: how)
            case .upstream(let id, let connected, let reason): event.kind = .upstream(number(id), connected: connected, reason: reason)
            case .fault(.closeConnection(let id, let reset)): event.kind = .fault(.closeConnection(number(id), reset: reset))
            case .fault(.sendFrame(let id, let frame)): event.kind = .fault(.sendFrame(number(id), frame))
            case .fault(.delayReplies(let by, let until, let id?)): event.kind = .fault(.delayReplies(by: by, until: until, connection: number(id)))
            default: break
            }
            return event
        }
    }

    private mutating func run(name: String?) throws(RecordingConversionError) -> Result {
        let dropped = events.reduce(0) { if case .dropped(let count) = $1.kind { $0 + count } else { $0 } }
        if dropped > 0 { warnings.append("the recording lost \(dropped) events (its writer fell behind): the replay may differ where they were") }
        if !header.redacted.isEmpty {
            warnings.append("payloads were redacted (\(header.redacted.joined(separator: ", "))): answers and expectations carry \"<redacted>\" there")
        }
        if base.isEmpty {
            describeDevice()
        } else {
            // What played, for a scenario without a catalog (a run without a scenario file).
            if base["media"] == nil, let catalog = catalog() { base["media"] = catalog }
            do {
                _ = try Scenario.parse(.object(base))
            } catch {
                throw RecordingConversionError(message: "the recording's scenario does not validate: \(error)")
            }
        }
        let original = base["name"]?.stringValue
        base["name"] = .string(name ?? "replay of \(original ?? header.device.friendlyName) recorded \(ISOTime.text(milliseconds: header.recordedAt))")
        base["description"] = .string(
            "Made by castsim scenario from-recording from a \(header.source == .relay ? "relay recording of \(header.upstream ?? "a device")" : "castsim recording")"
                + "\(original.map { " of scenario \"\($0)\"" } ?? ""); castsim \(header.castsim).")
        base["clock"] = header.clock.json
        addInputSteps()

        // Simulate, compare, fix every request whose answers differ; again, until castsim
        // sends what the recording shows. A fix changes only what follows its request, so a
        // pass fixes all it finds: a few passes, not one simulation per fix.
        let recordedSegments = recordedSegments()
        let passes = inbound.count * 2 + 20
        var converged = false
        var scripted = Set<Int>()
        var accepted = Set<Int>()
        var emitted = Set<Int>()
        for _ in 0..<passes {
            let differences = differences(try simulate(), recordedSegments, skipping: accepted)
            guard !differences.isEmpty else {
                converged = true
                break
            }
            for (segment, recorded, produced) in differences {
                if !emitted.contains(segment), recorded.count > produced.count, isSubsequence(produced, of: recorded),
                   !answersRequest(segment, missing: recorded, produced) {
                    emitUnmatched(recorded, produced, segment: segment)
                    emitted.insert(segment)
                } else if segment > 0, !scripted.contains(segment) {
                    steps.removeAll { $0.segment == segment }
                    respond(toInbound: segment - 1, with: recorded)
                    scripted.insert(segment)
                } else {
                    warnings.append(differenceWarning(segment, recorded, produced))
                    accepted.insert(segment)
                }
            }
        }
        if !converged { warnings.append("stopped comparing after \(passes) passes: the replay may differ from the recording") }
        addDeviceCloses()
        var document = base
        document["timeline"] = .array(timeline())
        document["rules"] = .array((base["rules"]?.arrayValue ?? []) + rules.sorted { $0.inbound < $1.inbound }.map(\.json))
        document["expectations"] = .array(expectations())
        let json = JSONValue.object(document)
        do {
            _ = try Scenario.parse(json)
        } catch {
            throw RecordingConversionError(message: "the scenario made does not validate (a castsim bug): \(error)")
        }
        return Result(scenario: json, warnings: warnings, rulesAdded: rules.count,
                      stepsAdded: (document["timeline"]?.arrayValue?.count ?? 0) - (base["timeline"]?.arrayValue?.count ?? 0))
    }

    // MARK: The device

    /// The identity senders saw and a catalog of what played, for a recording without a scenario.
    private mutating func describeDevice() {
        var device: [String: JSONValue] = [
            "name": .string(header.device.friendlyName), "uuid": .string(header.device.uuid),
            "model": .string(header.device.modelName), "manufacturer": .string(header.device.manufacturer),
        ]
        if header.source == .relay {
            // The real device's PINGs are in the recording; castsim's own would be extra.
            device["heartbeatInterval"] = "0s"
            device["idleTimeout"] = "0s"
        }
        base["device"] = .object(device)
        if let catalog = catalog() { base["media"] = catalog }
    }

    /// A media catalog of what the device's statuses show: durations, stream types,
    /// content types, tracks and metadata, by content id.
    private mutating func catalog() -> JSONValue? {
        var catalog: [String: JSONValue] = [:]
        for event in events {
            guard case .message(let message) = event.kind, message.direction == .outbound, message.type == "MEDIA_STATUS",
                  let statuses = message.payload?["status"]?.arrayValue else { continue }
            for status in statuses {
                guard let media = status["media"], let contentId = media["contentId"]?.stringValue, !contentId.isEmpty else { continue }
                var entry = catalog[contentId]?.objectValue ?? [:]
                if let duration = media["duration"]?.doubleValue, duration > 0, ScenarioDuration.problem(with: duration) == nil {
                    entry["duration"] = .string(ScenarioDuration.format((duration * 1000).rounded() / 1000))
                }
                if let streamType = media["streamType"]?.stringValue, ["BUFFERED", "LIVE", "NONE"].contains(streamType) {
                    entry["streamType"] = .string(streamType)
                }
                if let contentType = media["contentType"]?.stringValue, !contentType.isEmpty { entry["contentType"] = .string(contentType) }
                if let tracks = media["tracks"], tracks.arrayValue?.isEmpty == false { entry["tracks"] = tracks }
                if let metadata = media["metadata"], metadata.objectValue != nil { entry["metadata"] = metadata }
                catalog[contentId] = .object(entry)
            }
        }
        // What a real device reports may be more than a catalog takes (a null language, a
        // subtype castsim does not know): such a member is left out, not the whole file.
        for (contentId, entry) in catalog {
            guard case .object(var members) = entry, !Self.catalogTakes(contentId, .object(members)) else { continue }
            for key in ["tracks", "metadata", "contentType"] where members[key] != nil && !Self.catalogTakes(contentId, .object(members)) {
                members[key] = nil
                warnings.append("the media \(contentId): its \(key) as the device reported it is no catalog entry; left out")
            }
            catalog[contentId] = Self.catalogTakes(contentId, .object(members)) ? .object(members) : nil
        }
        return catalog.isEmpty ? nil : .object(catalog)
    }

    private static func catalogTakes(_ contentId: String, _ entry: JSONValue) -> Bool {
        (try? Scenario.parse(["name": "catalog entry", "media": .object([contentId: entry])])) != nil
    }

    /// A namespace a pattern can name (a Cast namespace, or one of the short names).
    static func patternable(_ namespace: String) -> Bool {
        namespace.hasPrefix("urn:x-cast:") || MessagePattern.namespaceAliases[namespace] != nil
    }

    // MARK: Steps

    /// Operator inputs and manual clock moves, each anchored to the sender's message
    /// before it (so it keeps its timing relative to the sender's requests).
    private mutating func addInputSteps() {
        for (index, event) in events.enumerated() {
            switch event.kind {
            case .input(let action):
                // A household's step (a session moved elsewhere, a group made) is the
                // household's to replay, not one device's: the recording shows it, the
                // scenario made of it does not do it.
                guard var members = action.objectValue, Set(members.keys).isDisjoint(with: ScenarioKeys.householdActions) else { continue }
                members["name"] = .string("operator: \(Self.summary(of: action))")
                add(step: members, at: event.time, before: index)
            case .clock(let to):
                // The event is at the time the clock moved from.
                let seconds = Self.milliseconds(to.seconds - event.time.seconds)
                guard seconds > 0 else { continue }
                add(step: ["name": .string("clock moves \(ScenarioDuration.format(seconds))"), "advance": .string(ScenarioDuration.format(seconds))],
                    at: event.time, before: index)
            default:
                break
            }
        }
    }

    /// Adds a step with its trigger: after the last message or connection before `index`.
    private mutating func add(step members: [String: JSONValue], at time: SimTime, before index: Int, segment: Int? = nil) {
        var step = members
        for (key, value) in trigger(at: time, before: index) { step[key] = value }
        steps.append((time.seconds, .object(step), segment))
    }

    /// `after` the sender's latest message (its type's occurrence) or connection before
    /// `index`, with the delay since; `at` when there is none.
    private func trigger(at time: SimTime, before index: Int) -> [String: JSONValue] {
        var anchor: (event: String, occurrence: Int, time: Double)?
        var counts: [String: Int] = [:]
        for event in events[..<index] {
            switch event.kind {
            case .message(let message) where message.direction == .inbound:
                guard let type = message.type, ScenarioEvent.named[type] == nil else { continue }
                counts[type, default: 0] += 1
                anchor = (type, counts[type]!, event.time.seconds)
            case .connected:
                counts["connected", default: 0] += 1
                anchor = ("connected", counts["connected"]!, event.time.seconds)
            default:
                continue
            }
        }
        guard let anchor else {
            let at = Self.milliseconds(time.seconds)
            return at > 0 ? ["at": .string(ScenarioDuration.format(at))] : [:]
        }
        var after: [String: JSONValue] = ["event": .string(anchor.event), "occurrence": .number(Double(anchor.occurrence))]
        let delay = Self.milliseconds(time.seconds - anchor.time)
        if delay > 0 { after["delay"] = .string(ScenarioDuration.format(delay)) }
        return ["after": .object(after)]
    }

    /// Connections the recorded device closed that the simulated one does not: a
    /// closeConnection step each.
    private mutating func addDeviceCloses() {
        guard let closedBySimulation = try? simulate().closed else { return }
        for (index, event) in events.enumerated() {
            guard case .disconnected(let connection, let how) = event.kind, how == .device || how == .idleTimeout,
                  !closedBySimulation.contains(connection) else { continue }
            let reset = index > 0 && events[..<index].contains { if case .fault(.closeConnection(connection, true)) = $0.kind { true } else { false } }
            add(step: ["name": .string("the device closes connection \(connection.rawValue)"),
                       "closeConnection": ["which": .number(Double(connection.rawValue)), "mode": reset ? "reset" : "clean"]],
                at: event.time, before: index)
        }
    }

    // MARK: Fixes

    /// Answers the `index`th request with what the recorded device sent after it.
    private mutating func respond(toInbound index: Int, with recorded: [Sent]) {
        let eventIndex = inbound[index]
        guard case .message(let request) = events[eventIndex].kind else { return }
        let payload = request.payload
        let type = payload?["type"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        let namespace = request.envelope.namespace
        guard Self.patternable(namespace) else {
            warnings.append("a request on \"\(namespace)\", which no pattern can name, cannot be answered as recorded")
            return
        }
        var pattern: [String: JSONValue] = ["namespace": .string(Self.shortNamespace(namespace))]
        if let type { pattern["type"] = .string(type) }
        let occurrence = type == nil ? occurrences[index].onNamespace : occurrences[index].ofType
        let requester = request.connections.first
        var responses: [JSONValue] = []
        var index2 = 0
        while index2 < recorded.count {
            let sent = recorded[index2]
            // One message written to several connections is one response to all.
            var group = [sent]
            while index2 + group.count < recorded.count, case let next = recorded[index2 + group.count],
                  next.payload == sent.payload, next.time == sent.time, next.namespace == sent.namespace, next.source == sent.source {
                group.append(next)
            }
            index2 += group.count
            guard var body = try? JSONValue.parse(sent.payload), body["type"]?.stringValue != nil else {
                warnings.append("a reply to \(type ?? namespace) that is not a JSON object with a type cannot be scripted; left out")
                continue
            }
            if let requestId = payload?["requestId"], requestId != 0, body["requestId"] == requestId {
                body = body.replacing("requestId", with: Rule.Response.requestIdPlaceholder)
            }
            var response: [String: JSONValue] = ["payload": body]
            let after = Self.milliseconds(sent.offset)
            if after > 0 { response["after"] = .string(ScenarioDuration.format(after)) }
            if sent.namespace != namespace { response["namespace"] = .string(Self.shortNamespace(sent.namespace)) }
            if sent.source != request.envelope.destinationId { response["from"] = .string(sent.source) }
            if sent.destination != request.envelope.sourceId { response["sender"] = .string(sent.destination) }
            if group.count > 1 || group.first?.connection != requester { response["to"] = "all" }
            responses.append(.object(response))
        }
        let label = "\(Self.shortNamespace(namespace)) \(type ?? "message") #\(occurrence)"
        var rule: [String: JSONValue] = ["name": .string("\(label) answered as recorded"), "match": .object(pattern),
                                         "occurrence": .number(Double(occurrence))]
        if responses.isEmpty {
            rule["action"] = "drop"
            rule["name"] = .string("\(label) goes unanswered, as recorded")
        } else {
            rule["action"] = "respond"
            rule["respond"] = .array(responses)
        }
        rules.append((index, .object(rule)))
    }

    /// True when something castsim does not send answers the segment's request (carries its
    /// `requestId`): only a rule puts the live request's id on it.
    private func answersRequest(_ segment: Int, missing recorded: [Sent], _ produced: [Sent]) -> Bool {
        guard segment > 0, case .message(let request) = events[inbound[segment - 1]].kind,
              let requestId = request.payload?["requestId"]?.intValue, requestId != 0 else { return false }
        return recorded.contains { sent in
            !produced.contains { $0.same(as: sent) } && (try? JSONValue.parse(sent.payload))?["requestId"]?.intValue == requestId
        }
    }

    /// Emits what the recorded device sent on its own and castsim does not.
    private mutating func emitUnmatched(_ recorded: [Sent], _ produced: [Sent], segment: Int) {
        var next = 0
        let before = segment == 0 ? (inbound.first ?? events.count) : inbound[segment - 1] + 1
        for sent in recorded {
            if next < produced.count, produced[next].same(as: sent) {
                next += 1
                continue
            }
            guard let payload = try? JSONValue.parse(sent.payload), payload["type"]?.stringValue != nil else {
                warnings.append("a message at \(sent.time) s that is not a JSON object with a type cannot be emitted; left out")
                continue
            }
            let emit: [String: JSONValue] = [
                "namespace": .string(Self.shortNamespace(sent.namespace)), "from": .string(sent.source), "sender": .string(sent.destination),
                "to": .number(Double(sent.connection.rawValue)), "payload": payload,
            ]
            let type = payload["type"]?.stringValue ?? "message"
            add(step: ["name": .string("the device sends \(type) on its own"), "emit": .object(emit)], at: SimTime(seconds: sent.time),
                before: before, segment: segment)
        }
    }

    private func differenceWarning(_ segment: Int, _ recorded: [Sent], _ produced: [Sent]) -> String {
        let what = segment == 0 ? "before the first request" : "after request \(segment)"
        let types = { (list: [Sent]) in list.map { (try? JSONValue.parse($0.payload))?["type"]?.stringValue ?? "?" }.joined(separator: ", ") }
        return "\(what) castsim sends [\(types(produced))] where the recording has [\(types(recorded))]; left as castsim does it"
    }

    // MARK: Expectations

    /// Per sender connection: it sends what it sent, in order.
    private func expectations() -> [JSONValue] {
        var byConnection: [ConnectionID: [JSONValue]] = [:]
        var lastTime = 0.0
        for index in inbound {
            guard case .message(let message) = events[index].kind, let connection = message.connections.first,
                  message.envelope.namespace != CastNamespace.heartbeat, message.envelope.namespace != CastNamespace.deviceAuth else { continue }
            guard Self.patternable(message.envelope.namespace) else { continue }
            byConnection[connection, default: []].append(Self.pattern(of: message))
            lastTime = events[index].time.seconds
        }
        return byConnection.keys.sorted().map { connection in
            var expectation: [String: JSONValue] = [
                "name": .string("connection \(connection.rawValue) sends what it sent"), "sequence": .array(byConnection[connection]!),
            ]
            if header.clock != .manual {
                // Room for a slower run of the same sender.
                expectation["within"] = .string(ScenarioDuration.format(Self.milliseconds(lastTime * 1.5 + 30)))
            }
            return .object(expectation)
        }
    }

    /// A pattern for a sender's message: namespace, type and the fields that say what it
    /// asks for (content ids, positions, levels), not ids that change from run to run.
    static func pattern(of message: RecordedMessage) -> JSONValue {
        var pattern: [String: JSONValue] = ["namespace": .string(shortNamespace(message.envelope.namespace))]
        guard let payload = message.payload, case .object(let members) = payload else { return .object(pattern) }
        if let type = members["type"]?.stringValue, !type.isEmpty { pattern["type"] = .string(type) }
        var fields: [String: JSONValue] = [:]
        let volatile: Set<String> = ["type", "requestId", "sessionId", "mediaSessionId", "transportId", "customData", "credentials"]
        for (key, value) in members where !volatile.contains(key) {
            switch value {
            case .string, .number, .bool:
                fields[key] = value
            case .array(let elements) where elements.allSatisfy({ if case .number = $0 { true } else { false } }):
                fields[key] = value
            case .array(let elements) where key == "items":
                for (position, item) in elements.enumerated() {
                    if let contentId = item["media"]?["contentId"] { fields["items[\(position)].media.contentId"] = contentId }
                }
            case .object:
                for sub in ["contentId", "level", "muted"] {
                    if let member = value[sub], member != .null { fields["\(key).\(sub)"] = member }
                }
            default:
                continue
            }
        }
        if !fields.isEmpty { pattern["fields"] = .object(fields) }
        return .object(pattern)
    }

    // MARK: Text

    func timeline() -> [JSONValue] {
        (base["timeline"]?.arrayValue ?? []) + steps.sorted { $0.time < $1.time }.map(\.json)
    }

    static func shortNamespace(_ namespace: String) -> String {
        MessagePattern.namespaceAliases.first { $0.value == namespace }?.key ?? namespace
    }

    /// Seconds to the millisecond: what a duration text keeps.
    static func milliseconds(_ seconds: Double) -> Double { max(0, (seconds * 1000).rounded() / 1000) }

    static func summary(of action: JSONValue) -> String {
        guard let (key, value) = action.objectValue?.first(where: { $0.key != "name" }) else { return "action" }
        switch value {
        case .string(let text): return "\(key) \(text)"
        case .bool(true): return key
        default: return "\(key) \(value.jsonText().prefix(60))"
        }
    }
}

public struct RecordingConversionError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

extension RecordingConverter.Result {
    /// The scenario as a file: `name`, `description` and `clock` first, then the device,
    /// its media, the timeline, the rules and the expectations; two-space indents.
    public var text: String {
        let order = ["$schema", "name", "description", "clock", "device", "media", "exposure", "timeline", "rules", "expectations"]
        guard case .object(let members) = scenario else { return scenario.indentedJSONText() }
        let keys = order.filter { members[$0] != nil } + members.keys.filter { !order.contains($0) }.sorted()
        let lines = keys.map { key in
            let value = members[key]!.indentedJSONText().replacingOccurrences(of: "\n", with: "\n  ")
            return "  \(JSONValue.string(key).jsonText()): \(value)"
        }
        return "{\n" + lines.joined(separator: ",\n") + "\n}\n"
    }
}
