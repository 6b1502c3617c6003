import CastDevice
import CastWire
import Foundation

extension Scenario {
    /// Reads and checks a scenario file. Every problem is reported, each with its path.
    public static func load(contentsOf url: URL) throws -> Scenario {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ScenarioValidationError(file: url.path, issues: [ScenarioIssue(path: "", message: "cannot read the file: \(error.localizedDescription)")])
        }
        return try parse(data, file: url.path)
    }

    public static func parse(_ data: Data, file: String? = nil) throws(ScenarioValidationError) -> Scenario {
        let json: JSONValue
        do {
            json = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw ScenarioValidationError(file: file, issues: [ScenarioIssue(path: "", message: "not valid JSON: \(jsonErrorSummary(error))")])
        }
        let reader = ScenarioReader()
        let scenario = ScenarioParser(reader: reader).scenario(json)
        guard reader.issues.isEmpty, let scenario else {
            throw ScenarioValidationError(file: file, issues: reader.issues)
        }
        return scenario
    }

    private static func jsonErrorSummary(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return underlying ?? context.debugDescription
        }
        return "\(error)"
    }
}

/// Turns the JSON of a scenario into a ``Scenario``, reporting problems to the reader.
struct ScenarioParser {
    let reader: ScenarioReader
    typealias R = ScenarioReader

    static let topKeys: Set<String> = ["name", "description", "device", "clock", "media", "timeline", "rules", "expectations"]

    func scenario(_ json: JSONValue) -> Scenario? {
        guard let top = reader.object(json, at: "", allowed: Self.topKeys) else { return nil }
        let name = reader.string(reader.required(top, "name", at: "", what: "the scenario's name"), at: "name", nonEmpty: true)
        let description = reader.string(top["description"], at: "description")
        let device = device(top["device"])
        let clock = clock(top["clock"])
        let media = catalog(top["media"])
        let timeline = (reader.array(top["timeline"], at: "timeline") ?? []).enumerated().compactMap { index, step in
            self.step(step, at: R.join("timeline", index))
        }
        let rules = (reader.array(top["rules"], at: "rules") ?? []).enumerated().compactMap { index, rule in
            self.rule(rule, at: R.join("rules", index))
        }
        let expectations = (reader.array(top["expectations"], at: "expectations") ?? []).enumerated().compactMap { index, value in
            expectation(value, at: R.join("expectations", index))
        }
        var names = Set<String>()
        for (index, expectation) in expectations.enumerated() where !names.insert(expectation.name).inserted {
            reader.fail(R.join(R.join("expectations", index), "name"), "\"\(expectation.name)\" names another expectation too")
        }
        if clock != .manual {
            for step in timeline where { if case .advance = step.action { true } else { false } }() {
                reader.fail(R.join(step.path, "advance"), "advance needs \"clock\": {\"mode\": \"manual\"}")
            }
        }
        guard let name, var configuration = device else { return nil }
        let entries = media
        configuration.mediaLoadPolicy.resolver = { info in
            entries.first { !$0.isPattern && $0.matches(info.contentId) }?.behaviour
                ?? entries.first { $0.isPattern && $0.matches(info.contentId) }?.behaviour
        }
        return Scenario(name: name, description: description, device: configuration, clock: clock, media: media,
                        timeline: timeline, rules: rules, expectations: expectations)
    }

    // MARK: device

    static let deviceKeys: Set<String> = [
        "name", "model", "manufacturer", "uuid", "capabilities", "volume", "apps", "heartbeatInterval", "idleTimeout",
        "defaultMediaDuration", "playbackRateRange", "liveWindow", "isolateRequestIds",
    ]

    private func device(_ value: JSONValue?) -> DeviceConfiguration? {
        let path = "device"
        let members = reader.object(value ?? [:], at: path, allowed: Self.deviceKeys) ?? [:]
        let capabilities = reader.object(members["capabilities"], at: R.join(path, "capabilities"), allowed: ["video", "audio"]) ?? [:]
        let video = reader.bool(capabilities["video"], at: R.join(path, "capabilities.video")) ?? true
        let audio = reader.bool(capabilities["audio"], at: R.join(path, "capabilities.audio")) ?? true
        let name = reader.string(members["name"], at: R.join(path, "name"), nonEmpty: true) ?? "castsim"
        var uuid = "5ce7a55c0de5ce7a55c0de5ce7a55c0d"
        if let text = reader.string(members["uuid"], at: R.join(path, "uuid")) {
            if let normalized = DeviceIdentity.normalizeUUID(text) {
                uuid = normalized
            } else {
                reader.fail(R.join(path, "uuid"), "expected 32 hex digits, with or without dashes, got \"\(text)\"")
            }
        }
        guard var identity = try? DeviceIdentity(uuid: uuid, friendlyName: name, supportsVideo: video, supportsAudio: audio) else {
            return nil
        }
        identity.modelName = reader.string(members["model"], at: R.join(path, "model"), nonEmpty: true) ?? identity.modelName
        identity.manufacturer = reader.string(members["manufacturer"], at: R.join(path, "manufacturer"), nonEmpty: true) ?? identity.manufacturer
        var configuration = DeviceConfiguration(identity: identity)
        if let volume = reader.object(members["volume"], at: R.join(path, "volume"), allowed: ["level", "muted"]) {
            configuration.initialVolume = reader.number(volume["level"], at: R.join(path, "volume.level"), range: 0...1) ?? 1
            configuration.initiallyMuted = reader.bool(volume["muted"], at: R.join(path, "volume.muted")) ?? false
        }
        if let value = members["heartbeatInterval"] {
            let seconds = reader.duration(value, at: R.join(path, "heartbeatInterval"))
            configuration.heartbeatInterval = seconds == 0 ? nil : seconds ?? configuration.heartbeatInterval
        }
        if let value = members["idleTimeout"] {
            let seconds = reader.duration(value, at: R.join(path, "idleTimeout"))
            configuration.idleTimeout = seconds == 0 ? nil : seconds ?? configuration.idleTimeout
        }
        if let seconds = reader.duration(members["defaultMediaDuration"], at: R.join(path, "defaultMediaDuration"), allowZero: false) {
            configuration.defaultMediaDuration = seconds
        }
        if let seconds = reader.duration(members["liveWindow"], at: R.join(path, "liveWindow"), allowZero: false) {
            configuration.liveWindow = seconds
        }
        if let isolate = reader.bool(members["isolateRequestIds"], at: R.join(path, "isolateRequestIds")) {
            configuration.isolateRequestIds = isolate
        }
        if let range = reader.array(members["playbackRateRange"], at: R.join(path, "playbackRateRange")) {
            let bounds = range.enumerated().compactMap { reader.number($1, at: R.join(R.join(path, "playbackRateRange"), $0)) }
            if bounds.count == 2, bounds[0] > 0, bounds[0] <= bounds[1] {
                configuration.playbackRateRange = bounds[0]...bounds[1]
            } else if bounds.count == range.count {
                reader.fail(R.join(path, "playbackRateRange"), "expected [minimum, maximum] with 0 < minimum <= maximum")
            }
        }
        if let apps = reader.array(members["apps"], at: R.join(path, "apps")) {
            for (index, value) in apps.enumerated() {
                guard let app = app(value, at: R.join(R.join(path, "apps"), index)) else { continue }
                if let existing = configuration.apps.firstIndex(where: { $0.appId == app.appId }) {
                    configuration.apps[existing] = app
                } else {
                    configuration.apps.append(app)
                }
            }
        }
        return configuration
    }

    private func app(_ value: JSONValue, at path: String) -> CastAppDefinition? {
        guard let members = reader.object(value, at: path, allowed: ["appId", "displayName", "namespaces", "behaviour"]) else {
            return nil
        }
        let appId = reader.string(reader.required(members, "appId", at: path, what: "the app id, e.g. \"CC1AD845\""),
                                  at: R.join(path, "appId"), nonEmpty: true)
        let behaviourName = reader.choice(members["behaviour"] ?? "custom", at: R.join(path, "behaviour"),
                                          ["defaultMediaReceiver", "custom", "idleScreen"])
        var namespaces: [String] = []
        for (index, value) in (reader.array(members["namespaces"], at: R.join(path, "namespaces")) ?? []).enumerated() {
            let namespacePath = R.join(R.join(path, "namespaces"), index)
            guard let text = reader.string(value, at: namespacePath, nonEmpty: true) else { continue }
            let resolved = MessagePattern.namespaceAliases[text] ?? text
            if !resolved.hasPrefix("urn:x-cast:") { reader.fail(namespacePath, "expected \"urn:x-cast:...\", got \"\(text)\"") }
            namespaces.append(resolved)
        }
        guard let appId, let behaviourName else { return nil }
        let behaviour: CastAppDefinition.Behaviour = switch behaviourName {
        case "defaultMediaReceiver": .mediaReceiver
        case "idleScreen": .idleScreen
        default: .custom
        }
        if behaviour == .mediaReceiver, !namespaces.contains(CastNamespace.media) {
            namespaces = CastAppDefinition.defaultMediaReceiver.namespaces + namespaces
        }
        let displayName = reader.string(members["displayName"], at: R.join(path, "displayName")) ?? appId
        return CastAppDefinition(appId: appId, displayName: displayName, namespaces: namespaces, behaviour: behaviour)
    }

    // MARK: clock

    private func clock(_ value: JSONValue?) -> Scenario.ClockSetting? {
        guard let members = reader.object(value, at: "clock", allowed: ["mode", "speed"]) else { return nil }
        switch reader.choice(members["mode"] ?? "real", at: "clock.mode", ["real", "scaled", "manual"]) {
        case "scaled":
            guard let speed = reader.number(reader.required(members, "speed", at: "clock", what: "how many times faster than real time"),
                                            at: "clock.speed", range: 0.001...1_000_000) else { return nil }
            return .scaled(speed)
        case "manual":
            return .manual
        case "real":
            return .real
        default:
            return nil
        }
    }

    // MARK: media

    static let mediaKeys: Set<String> = ["duration", "streamType", "contentType", "tracks", "metadata", "load"]

    private func catalog(_ value: JSONValue?) -> [MediaCatalogEntry] {
        guard let members = reader.object(value, at: "media") else { return [] }
        var entries: [MediaCatalogEntry] = []
        for key in members.keys.sorted() {
            let path = "media[\"\(key)\"]"
            guard let fields = reader.object(members[key], at: path, allowed: Self.mediaKeys) else { continue }
            var behaviour = MediaLoadBehaviour()
            behaviour.duration = reader.duration(fields["duration"], at: R.join(path, "duration"), allowZero: false)
            if let type = reader.choice(fields["streamType"], at: R.join(path, "streamType"), ["BUFFERED", "LIVE", "NONE"]) {
                behaviour.streamType = MediaInformation.StreamType(rawValue: type)
            }
            behaviour.contentType = reader.string(fields["contentType"], at: R.join(path, "contentType"), nonEmpty: true)
            if let tracks = fields["tracks"] {
                // The same checks as a LOAD's media.tracks, reported at this file's path.
                if let problem = MediaInformation.problem(inTracks: tracks, path: R.join(path, "tracks")) {
                    reader.fail(problem.path, problem.message)
                } else {
                    behaviour.tracks = tracks
                }
            }
            if let metadata = fields["metadata"] {
                if reader.object(metadata, at: R.join(path, "metadata")) != nil { behaviour.metadata = metadata }
            }
            if let load = reader.object(fields["load"], at: R.join(path, "load"), allowed: ["delay", "buffering", "fail", "neverAnswers"]) {
                let loadPath = R.join(path, "load")
                behaviour.loadDelay = reader.duration(load["delay"], at: R.join(loadPath, "delay")) ?? 0
                for (index, phase) in (reader.array(load["buffering"], at: R.join(loadPath, "buffering")) ?? []).enumerated() {
                    let phasePath = R.join(R.join(loadPath, "buffering"), index)
                    guard let members = reader.object(phase, at: phasePath, allowed: ["at", "for"]) else { continue }
                    let at = reader.duration(reader.required(members, "at", at: phasePath, what: "the media position, e.g. \"10s\""),
                                             at: R.join(phasePath, "at"))
                    let length = reader.duration(reader.required(members, "for", at: phasePath, what: "how long, e.g. \"3s\""),
                                                 at: R.join(phasePath, "for"), allowZero: false)
                    if let at, let length { behaviour.bufferingPhases.append(.init(position: at, duration: length)) }
                }
                if let fail = reader.object(load["fail"], at: R.join(loadPath, "fail"), allowed: ["detailedErrorCode", "reason"]) {
                    let failPath = R.join(loadPath, "fail")
                    let code = reader.integer(fail["detailedErrorCode"] ?? 905, at: R.join(failPath, "detailedErrorCode"), minimum: 0)
                    let reason = reader.string(fail["reason"], at: R.join(failPath, "reason"), nonEmpty: true)
                    behaviour.outcome = .fail(detailedErrorCode: code ?? 905, reason: reason)
                }
                if reader.bool(load["neverAnswers"], at: R.join(loadPath, "neverAnswers")) == true {
                    if load["fail"] != nil { reader.fail(loadPath, "fail and neverAnswers exclude each other") }
                    behaviour.outcome = .neverAnswer
                }
            }
            entries.append(MediaCatalogEntry(key: key, behaviour: behaviour))
        }
        return entries
    }

    // MARK: timeline

    static let actionKeys = [
        "emit", "volume", "buffering", "playerError", "stopApp", "launchApp", "standby", "remote", "closeConnection",
        "stopHeartbeats", "unresponsive", "delayReplies", "sendFrame", "advance",
    ]

    private func step(_ value: JSONValue, at path: String) -> TimelineStep? {
        guard let members = reader.object(value, at: path, allowed: Set(Self.actionKeys + ["at", "after", "name"])) else { return nil }
        var trigger: TimelineStep.Trigger?
        switch (members["at"], members["after"]) {
        case (let at?, nil):
            trigger = reader.duration(at, at: R.join(path, "at")).map(TimelineStep.Trigger.at)
        case (nil, let after?):
            trigger = self.after(after, at: R.join(path, "after"))
        case (nil, nil):
            trigger = .at(0)
        case (_?, _?):
            reader.fail(path, "has both \"at\" and \"after\"; a step fires at a time or after an event, not both")
        }
        let present = Self.actionKeys.filter { members[$0] != nil }
        guard present.count == 1, let key = present.first else {
            reader.fail(path, present.isEmpty
                ? "no action; expected one of \(Self.actionKeys.joined(separator: ", "))"
                : "has \(present.count) actions (\(present.joined(separator: ", "))); one step does one thing")
            return nil
        }
        guard let action = action(key, members[key]!, at: R.join(path, key)), let trigger else { return nil }
        return TimelineStep(trigger: trigger, action: action, path: path)
    }

    private func after(_ value: JSONValue, at path: String) -> TimelineStep.Trigger? {
        guard let members = reader.object(value, at: path, allowed: ["event", "delay", "occurrence"]) else { return nil }
        let delay = reader.duration(members["delay"] ?? "0s", at: R.join(path, "delay")) ?? 0
        let occurrence = reader.integer(members["occurrence"] ?? 1, at: R.join(path, "occurrence"), minimum: 1) ?? 1
        guard let name = reader.string(reader.required(members, "event", at: path, what: "an event such as \"LOAD\" or \"connected\""),
                                       at: R.join(path, "event"), nonEmpty: true) else { return nil }
        if let event = ScenarioEvent.named[name] {
            return .after(event: event, delay: delay, occurrence: occurrence)
        }
        guard name.allSatisfy({ $0.isUppercase || $0 == "_" || $0.isNumber }) else {
            reader.fail(R.join(path, "event"),
                        "expected a message type such as \"LOAD\" or one of \(ScenarioEvent.named.keys.sorted().joined(separator: ", ")), got \"\(name)\"")
            return nil
        }
        return .after(event: .message(name), delay: delay, occurrence: occurrence)
    }

    private func selector(_ value: JSONValue?, at path: String, default fallback: TimelineStep.ConnectionSelector)
        -> TimelineStep.ConnectionSelector?
    {
        guard let value else { return fallback }
        return reader.choice(value, at: path, ["all", "first", "last"]).flatMap(TimelineStep.ConnectionSelector.init)
    }

    private func action(_ key: String, _ value: JSONValue, at path: String) -> TimelineStep.Action? {
        switch key {
        case "emit":
            guard let members = reader.object(value, at: path, allowed: ["namespace", "from", "to", "payload"]) else { return nil }
            let namespace = reader.string(reader.required(members, "namespace", at: path, what: "a namespace"),
                                          at: R.join(path, "namespace"), nonEmpty: true)
            let payload = reader.required(members, "payload", at: path, what: "the JSON object to send")
            if let payload, payload.objectValue?["type"]?.stringValue == nil {
                reader.fail(R.join(path, "payload"), "expected an object with a \"type\" (senders index data[\"type\"])")
            }
            let source = reader.string(members["from"], at: R.join(path, "from"), nonEmpty: true)
            let to = selector(members["to"], at: R.join(path, "to"), default: .all)
            guard let namespace, let payload, let to else { return nil }
            return .emit(namespace: MessagePattern.namespaceAliases[namespace] ?? namespace,
                         source: source == "app" ? nil : source, to: to, payload: payload)
        case "volume":
            guard let members = reader.object(value, at: path, allowed: ["level", "muted"]) else { return nil }
            let level = reader.number(members["level"], at: R.join(path, "level"), range: 0...1)
            let muted = reader.bool(members["muted"], at: R.join(path, "muted"))
            if members["level"] == nil, members["muted"] == nil { reader.fail(path, "expected level and/or muted") }
            return .device(.setDeviceVolume(level: level, muted: muted))
        case "buffering":
            return reader.duration(value, at: path, allowZero: false).map { .device(.buffer(seconds: $0)) }
        case "playerError":
            guard let members = reader.object(value, at: path, allowed: ["detailedErrorCode"]) else { return nil }
            return .device(.playerError(detailedErrorCode: reader.integer(members["detailedErrorCode"], at: R.join(path, "detailedErrorCode"))))
        case "stopApp":
            guard reader.bool(value, at: path) == true else {
                if value.boolValue == false { reader.fail(path, "expected true") }
                return nil
            }
            return .device(.stopApp)
        case "launchApp":
            return reader.string(value, at: path, nonEmpty: true).map { .device(.launchApp(appId: $0)) }
        case "standby":
            return reader.bool(value, at: path).map { .device(.setStandby($0)) }
        case "remote":
            return reader.choice(value, at: path, ["play", "pause", "stop"])
                .flatMap(OperatorInput.RemoteKey.init).map { .device(.remote($0)) }
        case "closeConnection":
            guard let members = reader.object(value, at: path, allowed: ["which", "mode"]) else { return nil }
            let which = selector(members["which"], at: R.join(path, "which"), default: .all)
            let mode = reader.choice(members["mode"] ?? "clean", at: R.join(path, "mode"), ["clean", "reset"])
            guard let which, let mode else { return nil }
            return .closeConnection(which, reset: mode == "reset")
        case "stopHeartbeats":
            return reader.duration(value, at: path, allowZero: false).map { .stopHeartbeats(seconds: $0) }
        case "unresponsive":
            return reader.duration(value, at: path, allowZero: false).map { .unresponsive(seconds: $0) }
        case "delayReplies":
            guard let members = reader.object(value, at: path, allowed: ["by", "for"]) else { return nil }
            let by = reader.duration(reader.required(members, "by", at: path, what: "the delay, e.g. \"2s\""), at: R.join(path, "by"), allowZero: false)
            let length = reader.duration(reader.required(members, "for", at: path, what: "how long, e.g. \"30s\""), at: R.join(path, "for"), allowZero: false)
            guard let by, let length else { return nil }
            return .delayReplies(by: by, seconds: length)
        case "sendFrame":
            guard let members = reader.object(value, at: path, allowed: ["kind", "which"]) else { return nil }
            let kind = reader.choice(reader.required(members, "kind", at: path, what: "\"malformed\" or \"oversized\""),
                                     at: R.join(path, "kind"), ["malformed", "oversized"])
            let which = selector(members["which"], at: R.join(path, "which"), default: .last)
            guard let kind = kind.flatMap(RawFrame.init), let which else { return nil }
            return .sendFrame(which, kind)
        case "advance":
            return reader.duration(value, at: path, allowZero: false).map { .advance(seconds: $0) }
        default:
            return nil
        }
    }

    // MARK: rules and expectations

    private func rule(_ value: JSONValue, at path: String) -> Rule? {
        guard let members = reader.object(value, at: path, allowed: ["name", "match", "action", "reply", "delay", "times"]) else {
            return nil
        }
        let pattern = reader.pattern(reader.required(members, "match", at: path, what: "a message pattern"), at: R.join(path, "match"))
        let times = reader.integer(members["times"], at: R.join(path, "times"), minimum: 1)
        let name = reader.string(members["name"], at: R.join(path, "name"), nonEmpty: true) ?? path
        let kind = reader.choice(reader.required(members, "action", at: path, what: "\"reply\", \"replyAlso\", \"delay\" or \"drop\""),
                                 at: R.join(path, "action"), ["reply", "replyAlso", "delay", "drop"])
        var action: Rule.Action?
        switch kind {
        case "reply", "replyAlso":
            if let reply = reader.required(members, "reply", at: path, what: "the JSON object to answer with") {
                if reply.objectValue?["type"]?.stringValue == nil {
                    reader.fail(R.join(path, "reply"), "expected an object with a \"type\"")
                } else {
                    action = kind == "reply" ? .reply(reply) : .replyAlso(reply)
                }
            }
        case "delay":
            action = reader.duration(reader.required(members, "delay", at: path, what: "how long, e.g. \"2s\""),
                                     at: R.join(path, "delay"), allowZero: false).map(Rule.Action.delay)
        case "drop":
            action = .drop
        default:
            break
        }
        guard let pattern, let action else { return nil }
        return Rule(name: name, pattern: pattern, action: action, times: times)
    }

    private func expectation(_ value: JSONValue, at path: String) -> Expectation? {
        guard let members = reader.object(value, at: path, allowed: ["name", "message", "sequence", "never", "within"]) else {
            return nil
        }
        let name = reader.string(reader.required(members, "name", at: path, what: "a name for the report"), at: R.join(path, "name"), nonEmpty: true)
        let within = reader.duration(members["within"], at: R.join(path, "within"), allowZero: false)
        let kinds = ["message", "sequence", "never"].filter { members[$0] != nil }
        guard kinds.count == 1, let key = kinds.first else {
            reader.fail(path, kinds.isEmpty ? "expected one of message, sequence, never" : "has \(kinds.joined(separator: " and ")); expected exactly one")
            return nil
        }
        var kind: Expectation.Kind?
        switch key {
        case "message": kind = reader.pattern(members[key], at: R.join(path, key)).map(Expectation.Kind.message)
        case "never": kind = reader.pattern(members[key], at: R.join(path, key)).map(Expectation.Kind.never)
        default:
            let items = reader.array(members[key], at: R.join(path, key)) ?? []
            if items.isEmpty, members[key]?.arrayValue != nil { reader.fail(R.join(path, key), "expected at least one pattern") }
            let patterns = items.enumerated().compactMap { reader.pattern($1, at: R.join(R.join(path, key), $0)) }
            if patterns.count == items.count, !patterns.isEmpty { kind = .sequence(patterns) }
        }
        guard let name, let kind else { return nil }
        return Expectation(name: name, kind: kind, within: within)
    }
}
