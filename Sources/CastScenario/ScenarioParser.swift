import CastDevice
import CastWire
import Foundation

extension Scenario {
    /// Reads and checks a scenario file. Every problem is reported, each with its path.
    public static func load(contentsOf url: URL) throws -> Scenario {
        try parse(try read(url), file: url.path)
    }

    /// A scenario file's bytes; one that cannot be read is a validation error saying why.
    static func read(_ url: URL) throws(ScenarioValidationError) -> Data {
        do {
            return try Data(contentsOf: url)
        } catch {
            throw ScenarioValidationError(file: url.path, issues: [ScenarioIssue(path: "", message: "cannot read the file: \(error.localizedDescription)")])
        }
    }

    public static func parse(_ data: Data, file: String? = nil) throws(ScenarioValidationError) -> Scenario {
        let json: JSONValue
        do {
            json = try JSONValue.parse(data, limits: .document)
        } catch {
            // A person reads this: where, as their editor shows it, not a byte offset.
            let before = data.prefix(error.offset)
            let line = before.count(where: { $0 == UInt8(ascii: "\n") }) + 1
            let column = before.count - (before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 - before.startIndex } ?? 0) + 1
            throw ScenarioValidationError(file: file, issues: [
                ScenarioIssue(path: "", message: "not valid JSON at line \(line), column \(column): \(error.reason)"),
            ])
        }
        return try parse(json, file: file)
    }

    /// Reads and checks a scenario already parsed as JSON; the scenario keeps it as its ``source``.
    public static func parse(_ json: JSONValue, file: String? = nil) throws(ScenarioValidationError) -> Scenario {
        let reader = ScenarioReader()
        guard reader.issues.isEmpty, var scenario = ScenarioParser(reader: reader).scenario(JSONReader(json)), reader.issues.isEmpty else {
            throw ScenarioValidationError(file: file, issues: reader.issues)
        }
        scenario.source = json
        return scenario
    }
}

/// The keys each object of a scenario file may have, written once: the parser reads with
/// them, and a test checks that the JSON Schema lists the same.
package enum ScenarioKeys {
    package static let top: Set<String> = [
        "name", "description", "device", "devices", "groups", "clock", "media", "exposure", "timeline", "rules", "expectations",
    ]
    package static let device: Set<String> = [
        "name", "model", "manufacturer", "uuid", "capabilities", "volume", "apps", "heartbeatInterval", "idleTimeout",
        "defaultMediaDuration", "playbackRateRange", "liveWindow", "isolateRequestIds", "deviceAuth",
    ]
    package static let capability: Set<String> = ["video", "audio"]
    package static let volume: Set<String> = ["level", "muted"]
    package static let app: Set<String> = ["appId", "displayName", "namespaces", "behaviour"]
    package static let clock: Set<String> = ["mode", "speed"]
    package static let media: Set<String> = ["duration", "streamType", "contentType", "tracks", "metadata", "load"]
    package static let load: Set<String> = ["delay", "buffering", "fail", "neverAnswers"]
    package static let buffering: Set<String> = ["at", "for"]
    package static let fail: Set<String> = ["detailedErrorCode", "reason"]
    package static let exposure: Set<String> = ["epoch", "businessUnits", "assets", "channels", "realReceiverExtras", "liveDelay"]
    package static let businessUnit: Set<String> = ["customer", "businessUnit", "sessionTokens"]
    package static let asset: Set<String> = [
        "title", "duration", "textLanguages", "audioLanguages", "gaps", "bookmark", "entitlement",
    ]
    package static let channel: Set<String> = ["title", "textLanguages", "audioLanguages", "programs", "entitlement"]
    package static let program: Set<String> = ["programId", "assetId", "title", "start", "end"]
    /// A stretch of media: an asset's gap, a step's `segmentMissing`.
    package static let span: Set<String> = ["from", "to"]
    package static let grant: Set<String> = [
        "live", "ffEnabled", "rwEnabled", "timeshiftEnabled", "airplayBlocked", "minBitrate", "maxBitrate", "maxResHeight",
    ]
    package static let refusal: Set<String> = ["refuse", "code"]
    /// An entitlement is a grant or a refusal, never both; one object may name either's keys.
    package static let entitlement = grant.union(refusal)
    package static let actions = [
        "emit", "volume", "buffering", "playerError", "stopApp", "launchApp", "standby", "remote", "closeConnection",
        "stopHeartbeats", "unresponsive", "delayReplies", "sendFrame", "advance", "emp", "deviceAuth", "withdraw", "restore",
        "offline", "online", "leadGroup", "createGroup", "deleteGroup",
    ]
    package static let group: Set<String> = ["name", "uuid", "members", "leader", "port"]
    package static let leadGroup: Set<String> = ["group", "rename"]
    package static let step = Set(actions + ["at", "after", "name", "device"])
    package static let after: Set<String> = ["event", "delay", "occurrence"]
    package static let emit: Set<String> = ["namespace", "from", "to", "sender", "payload"]
    package static let playerError: Set<String> = ["detailedErrorCode"]
    package static let closeConnection: Set<String> = ["which", "mode"]
    package static let restore: Set<String> = ["host", "port"]
    package static let delayReplies: Set<String> = ["by", "for", "which"]
    package static let sendFrame: Set<String> = ["kind", "which"]
    /// What an `emp` step does: exactly one of these.
    package static let empActions = ["event", "entitlement", "endProgram", "segmentMissing"]
    package static let emp = Set(empActions + ["data"])
    package static let rule: Set<String> = ["name", "match", "action", "reply", "delay", "times", "occurrence", "respond", "device"]
    package static let response: Set<String> = ["after", "namespace", "from", "sender", "to", "payload"]
    package static let expectation: Set<String> = ["name", "message", "sequence", "never", "within", "device"]
    package static let pattern: Set<String> = ["namespace", "type", "from", "to", "fields"]
    /// The app behaviours a file may name: the built-in apps.
    package static var behaviours: [String] { AppRegistry.builtIn.behaviours.map(\.rawValue) }
    /// The `after` events that are not message types.
    package static var events: [String] { ScenarioEvent.named.keys.sorted() }
}

/// Turns the JSON of a scenario into a ``Scenario``, reporting problems to the reader.
struct ScenarioParser {
    let reader: ScenarioReader

    func scenario(_ root: JSONReader) -> Scenario? {
        guard reader.members(root, allowed: ScenarioKeys.top) != nil else { return nil }
        // A household's file comes here one device at a time (``FleetScenario``), never whole.
        for key in ["devices", "groups"] {
            if let member = root[key] {
                reader.fail(member, "a scenario with several devices runs as a household (castsim run --scenario), not in one device")
            }
        }
        for section in FleetScenario.itemSections {
            for item in (try? root[section]?.array()) ?? [] {
                if let device = item["device"] { reader.fail(device, "names a device; only a scenario with \"devices\" does") }
            }
        }
        let name = reader.read { try root.required("name", "the scenario's name").string(nonEmpty: true) }
        let description = reader.read(root["description"]) { try $0.string() }
        var device = device(root["device"] ?? JSONReader([:], at: JSONPath.root.appending("device")))
        let clock = root["clock"].flatMap(clock)
        let catalog = root["media"].map(catalog) ?? MediaCatalog()
        let exposure = root["exposure"].flatMap { self.exposure($0, defaultMediaDuration: device?.defaultMediaDuration) }
        let timeline = elements(root["timeline"], step)
        let rules = elements(root["rules"], rule)
        let expectations = elements(root["expectations"], expectation)
        var names = Set<String>()
        for (index, expectation) in expectations.enumerated() where !names.insert(expectation.name).inserted {
            reader.record(JSONReadError(path: JSONPath([.key("expectations"), .index(index), .key("name")]),
                                        message: "\"\(expectation.name)\" names another expectation too"))
        }
        if clock != .manual {
            for step in timeline where { if case .advance = step.action { true } else { false } }() {
                reader.fail(path: step.path + ".advance", "advance needs \"clock\": {\"mode\": \"manual\"}")
            }
        }
        guard let name else { return nil }
        device?.mediaCatalog = catalog
        if let exposure { device?.exposure = exposure }
        guard let device else { return nil }
        return Scenario(name: name, description: description, device: device, clock: clock, timeline: timeline,
                        rules: rules, expectations: expectations, source: nil)
    }

    /// Reads each element of an optional array with `read`, dropping the ones with problems.
    func elements<T>(_ array: JSONReader?, _ read: (JSONReader) -> T?) -> [T] {
        guard let array, let elements = reader.read({ try array.array() }) else { return [] }
        return elements.compactMap(read)
    }

    // MARK: device

    private func device(_ value: JSONReader) -> DeviceConfiguration? {
        guard reader.members(value, allowed: ScenarioKeys.device) != nil else { return nil }
        var video = true
        var audio = true
        if let capabilities = value["capabilities"], reader.members(capabilities, allowed: ScenarioKeys.capability) != nil {
            video = reader.read(capabilities["video"]) { try $0.bool() } ?? true
            audio = reader.read(capabilities["audio"]) { try $0.bool() } ?? true
        }
        let name = reader.read(value["name"]) { try $0.string(nonEmpty: true) } ?? "castsim"
        var uuid = "5ce7a55c0de5ce7a55c0de5ce7a55c0d"
        if let member = value["uuid"], let text = reader.read({ try member.string() }) {
            if let normalized = DeviceIdentity.normalizeUUID(text) {
                uuid = normalized
            } else {
                reader.fail(member, "expected 32 hex digits, with or without dashes, got \(JSONReader.describe(member.value))")
            }
        }
        guard var identity = try? DeviceIdentity(uuid: uuid, friendlyName: name, supportsVideo: video, supportsAudio: audio) else {
            return nil
        }
        identity.modelName = reader.read(value["model"]) { try $0.string(nonEmpty: true) } ?? identity.modelName
        identity.manufacturer = reader.read(value["manufacturer"]) { try $0.string(nonEmpty: true) } ?? identity.manufacturer
        var configuration = DeviceConfiguration(identity: identity)
        if let volume = value["volume"], reader.members(volume, allowed: ScenarioKeys.volume) != nil {
            configuration.initialVolume = reader.read(volume["level"]) { try $0.double(in: 0...1) } ?? 1
            configuration.initiallyMuted = reader.read(volume["muted"]) { try $0.bool() } ?? false
        }
        if let member = value["heartbeatInterval"], let seconds = reader.read({ try member.duration() }) {
            configuration.heartbeatInterval = seconds == 0 ? nil : seconds
        }
        if let member = value["idleTimeout"], let seconds = reader.read({ try member.duration() }) {
            configuration.idleTimeout = seconds == 0 ? nil : seconds
        }
        if let seconds = reader.read(value["defaultMediaDuration"], { try $0.duration(allowZero: false) }) {
            configuration.defaultMediaDuration = seconds
        }
        if let seconds = reader.read(value["liveWindow"], { try $0.duration(allowZero: false) }) {
            configuration.liveWindow = seconds
        }
        if let isolate = reader.read(value["isolateRequestIds"], { try $0.bool() }) {
            configuration.isolateRequestIds = isolate
        }
        if let mode = reader.read(value["deviceAuth"], { try $0.oneOf(DeviceAuthMode.self) }) {
            configuration.deviceAuth = mode
        }
        if let member = value["playbackRateRange"], let range = reader.read({ try member.array() }) {
            let bounds = range.compactMap { bound in reader.read { try bound.double() } }
            if bounds.count == 2, bounds[0] > 0, bounds[0] <= bounds[1] {
                configuration.playbackRateRange = bounds[0]...bounds[1]
            } else if bounds.count == range.count {
                reader.fail(member, "expected [minimum, maximum] with 0 < minimum <= maximum")
            }
        }
        for app in elements(value["apps"], app) {
            if let existing = configuration.apps.firstIndex(where: { $0.appId == app.appId }) {
                configuration.apps[existing] = app
            } else {
                configuration.apps.append(app)
            }
        }
        return configuration
    }

    private func app(_ value: JSONReader) -> CastAppDefinition? {
        guard reader.members(value, allowed: ScenarioKeys.app) != nil else { return nil }
        let appId = reader.read { try value.required("appId", "the app id, e.g. \"CC1AD845\"").string(nonEmpty: true) }
        let behaviour = reader.read {
            AppBehaviour(rawValue: try (value["behaviour"] ?? JSONReader("custom")).oneOf(ScenarioKeys.behaviours))
        }
        var namespaces: [String] = []
        for element in elements(value["namespaces"], { $0 }) {
            guard let text = reader.read({ try element.string(nonEmpty: true) }) else { continue }
            let resolved = MessagePattern.namespaceAliases[text] ?? text
            if !resolved.hasPrefix("urn:x-cast:") { reader.fail(element, "expected \"urn:x-cast:...\", got \"\(text)\"") }
            namespaces.append(resolved)
        }
        guard let appId, let behaviour else { return nil }
        if behaviour == .defaultMediaReceiver, !namespaces.contains(CastNamespace.media) {
            namespaces = CastAppDefinition.defaultMediaReceiver.namespaces + namespaces
        }
        if behaviour == .emp {
            // The EMP receiver answers both namespaces whatever the file lists, and senders
            // look for them in RECEIVER_STATUS before they open the EMP channel.
            namespaces = CastAppDefinition.emp.namespaces.filter { !namespaces.contains($0) } + namespaces
        }
        let displayName = reader.read(value["displayName"]) { try $0.string() } ?? appId
        return CastAppDefinition(appId: appId, displayName: displayName, namespaces: namespaces, behaviour: behaviour)
    }

    // MARK: clock

    private func clock(_ value: JSONReader) -> Scenario.ClockSetting? {
        guard reader.members(value, allowed: ScenarioKeys.clock) != nil else { return nil }
        switch reader.read({ try (value["mode"] ?? JSONReader("real")).oneOf(["real", "scaled", "manual"]) }) {
        case "scaled":
            return reader.read { try value.required("speed", "how many times faster than real time").double(in: 0.001...1_000_000) }
                .map(Scenario.ClockSetting.scaled)
        case "manual":
            return .manual
        case "real":
            return .real
        default:
            return nil
        }
    }

    // MARK: media

    private func catalog(_ value: JSONReader) -> MediaCatalog {
        guard let members = reader.read({ try value.object() }) else { return MediaCatalog() }
        var catalog = MediaCatalog()
        for key in members.keys.sorted() {
            guard let entry = value[key], reader.members(entry, allowed: ScenarioKeys.media) != nil else { continue }
            var behaviour = MediaLoadBehaviour()
            behaviour.duration = reader.read(entry["duration"]) { try $0.duration(allowZero: false) }
            if let type = reader.read(entry["streamType"], { try $0.oneOf(MediaInformation.StreamType.self) }) {
                behaviour.streamType = type
            }
            behaviour.contentType = reader.read(entry["contentType"]) { try $0.string(nonEmpty: true) }
            if let tracks = entry["tracks"], reader.read({ try MediaInformation.checkTracks(tracks) }) != nil {
                // The same checks as a LOAD's media.tracks, reported at this file's path.
                behaviour.tracks = tracks.value
            }
            if let metadata = entry["metadata"], reader.read({ try metadata.object() }) != nil {
                behaviour.metadata = metadata.value
            }
            if let load = entry["load"], reader.members(load, allowed: ScenarioKeys.load) != nil {
                behaviour.loadDelay = reader.read(load["delay"]) { try $0.duration() } ?? 0
                for phase in elements(load["buffering"], { $0 }) {
                    guard reader.members(phase, allowed: ScenarioKeys.buffering) != nil else { continue }
                    let at = reader.read { try phase.required("at", "the media position, e.g. \"10s\"").duration() }
                    let length = reader.read { try phase.required("for", "how long, e.g. \"3s\"").duration(allowZero: false) }
                    if let at, let length { behaviour.bufferingPhases.append(.init(position: at, duration: length)) }
                }
                if let fail = load["fail"], reader.members(fail, allowed: ScenarioKeys.fail) != nil {
                    let code = reader.read { try (fail["detailedErrorCode"] ?? JSONReader(905)).int(minimum: 0) }
                    let reason = reader.read(fail["reason"]) { try $0.string(nonEmpty: true) }
                    behaviour.outcome = .fail(detailedErrorCode: code ?? 905, reason: reason)
                }
                if reader.read(load["neverAnswers"], { try $0.bool() }) == true {
                    if load["fail"] != nil { reader.fail(load, "fail and neverAnswers exclude each other") }
                    behaviour.outcome = .neverAnswer
                }
            }
            catalog.add(key, behaviour)
        }
        return catalog
    }

    // MARK: timeline

    private func step(_ value: JSONReader) -> TimelineStep? {
        guard let members = reader.members(value, allowed: ScenarioKeys.step) else { return nil }
        var trigger: TimelineStep.Trigger?
        switch (value["at"], value["after"]) {
        case (let at?, nil):
            trigger = reader.read { try at.duration() }.map(TimelineStep.Trigger.at)
        case (nil, let after?):
            trigger = self.after(after)
        case (nil, nil):
            trigger = .at(0)
        case (_?, _?):
            reader.fail(value, "has both \"at\" and \"after\"; a step fires at a time or after an event, not both")
        }
        let present = ScenarioKeys.actions.filter { members[$0] != nil }
        guard present.count == 1, let key = present.first, let member = value[key] else {
            reader.fail(value, present.isEmpty
                ? "no action; expected one of \(ScenarioKeys.actions.joined(separator: ", "))"
                : "has \(present.count) actions (\(present.joined(separator: ", "))); one step does one thing")
            return nil
        }
        guard let action = action(key, member), let trigger else { return nil }
        return TimelineStep(trigger: trigger, action: action, path: value.path.description)
    }

    private func after(_ value: JSONReader) -> TimelineStep.Trigger? {
        guard reader.members(value, allowed: ScenarioKeys.after) != nil else { return nil }
        let delay = reader.read { try (value["delay"] ?? JSONReader("0s")).duration() } ?? 0
        let occurrence = reader.read { try (value["occurrence"] ?? JSONReader(1)).int(minimum: 1) } ?? 1
        guard let event = value["event"] ?? reader.read({ try value.required("event", "an event such as \"LOAD\" or \"connected\"") }),
              let name = reader.read({ try event.string(nonEmpty: true) }) else { return nil }
        if let named = ScenarioEvent.named[name] {
            return .after(event: named, delay: delay, occurrence: occurrence)
        }
        guard name.allSatisfy({ $0.isUppercase || $0 == "_" || $0.isNumber }) else {
            reader.fail(event,
                        "expected a message type such as \"LOAD\" or one of \(ScenarioEvent.named.keys.sorted().joined(separator: ", ")), got \"\(name)\"")
            return nil
        }
        return .after(event: .message(name), delay: delay, occurrence: occurrence)
    }

    /// "all", "first", "last", or a connection's id (a number, as the control API shows it).
    private func selector(_ value: JSONReader?, default fallback: TimelineStep.ConnectionSelector) -> TimelineStep.ConnectionSelector? {
        guard let value else { return fallback }
        if case .number = value.value {
            return reader.read { try value.int(minimum: 1) }.map { .connection(ConnectionID(UInt64($0))) }
        }
        guard let name = reader.read({ try value.oneOf(["all", "first", "last"]) }) else { return nil }
        return TimelineStep.ConnectionSelector.named[name]
    }

    func action(_ key: String, _ value: JSONReader) -> TimelineStep.Action? {
        switch key {
        case "emit":
            guard reader.members(value, allowed: ScenarioKeys.emit) != nil else { return nil }
            let namespace = reader.read { try value.required("namespace", "a namespace").string(nonEmpty: true) }
            let payload = reader.read { try value.required("payload", "the JSON object to send") }
            if let payload, payload.value["type"]?.stringValue == nil {
                reader.fail(payload, "expected an object with a \"type\" (senders index data[\"type\"])")
            } else if let payload, case let size = payload.value.jsonText().utf8.count, size > CastFraming.maxPayloadBytes {
                // No Cast frame carries it: the device would drop it at the wire.
                reader.fail(payload, "\(size) bytes of JSON; a Cast message carries at most \(CastFraming.maxPayloadBytes)")
            }
            let source = reader.read(value["from"]) { try $0.string(nonEmpty: true) }
            let to = selector(value["to"], default: .all)
            let sender = reader.read(value["sender"]) { try $0.string(nonEmpty: true) }
            guard let namespace, let payload, let to else { return nil }
            return .emit(namespace: MessagePattern.namespaceAliases[namespace] ?? namespace,
                         source: source == "app" ? nil : source, to: to, destination: sender, payload: payload.value)
        case "volume":
            guard reader.members(value, allowed: ScenarioKeys.volume) != nil else { return nil }
            let level = reader.read(value["level"]) { try $0.double(in: 0...1) }
            let muted = reader.read(value["muted"]) { try $0.bool() }
            if value["level"] == nil, value["muted"] == nil { reader.fail(value, "expected level and/or muted") }
            return .device(.setDeviceVolume(level: level, muted: muted))
        case "buffering":
            return reader.read { try value.duration(allowZero: false) }.map { .device(.buffer(seconds: $0)) }
        case "playerError":
            guard reader.members(value, allowed: ScenarioKeys.playerError) != nil else { return nil }
            return .device(.playerError(detailedErrorCode: reader.read(value["detailedErrorCode"]) { try $0.int() }))
        case "stopApp":
            guard reader.read({ try value.bool() }) == true else {
                if value.value == .bool(false) { reader.fail(value, "expected true") }
                return nil
            }
            return .device(.stopApp)
        case "launchApp":
            return reader.read { try value.string(nonEmpty: true) }.map { .device(.launchApp(appId: $0)) }
        case "standby":
            return reader.read { try value.bool() }.map { .device(.setStandby($0)) }
        case "remote":
            return reader.read { try value.oneOf(OperatorInput.RemoteKey.self) }.map { .device(.remote($0)) }
        case "closeConnection":
            guard reader.members(value, allowed: ScenarioKeys.closeConnection) != nil else { return nil }
            let which = selector(value["which"], default: .all)
            let mode = reader.read { try (value["mode"] ?? JSONReader("clean")).oneOf(["clean", "reset"]) }
            guard let which, let mode else { return nil }
            return .closeConnection(which, reset: mode == "reset")
        case "stopHeartbeats":
            return reader.read { try value.duration(allowZero: false) }.map { .stopHeartbeats(seconds: $0) }
        case "unresponsive":
            return reader.read { try value.duration(allowZero: false) }.map { .unresponsive(seconds: $0) }
        case "delayReplies":
            guard reader.members(value, allowed: ScenarioKeys.delayReplies) != nil else { return nil }
            let by = reader.read { try value.required("by", "the delay, e.g. \"2s\"").duration(allowZero: false) }
            let length = reader.read { try value.required("for", "how long, e.g. \"30s\"").duration(allowZero: false) }
            var which: TimelineStep.ConnectionSelector?
            if let member = value["which"] {
                guard let selected = selector(member, default: .all) else { return nil }
                which = selected
            }
            guard let by, let length else { return nil }
            return .delayReplies(by: by, seconds: length, which)
        case "sendFrame":
            guard reader.members(value, allowed: ScenarioKeys.sendFrame) != nil else { return nil }
            let kind = reader.read { try value.required("kind", "\"malformed\" or \"oversized\"").oneOf(RawFrame.self) }
            let which = selector(value["which"], default: .last)
            guard let kind, let which else { return nil }
            return .sendFrame(which, kind)
        case "advance":
            return reader.read { try value.duration(allowZero: false) }.map { .advance(seconds: $0) }
        case "emp":
            return empAction(value).map { .device(.emp($0)) }
        case "deviceAuth":
            return reader.read { try value.oneOf(DeviceAuthMode.self) }.map { .device(.setDeviceAuth($0)) }
        case "withdraw":
            guard reader.read({ try value.bool() }) == true else {
                if value.value == .bool(false) { reader.fail(value, "expected true") }
                return nil
            }
            return .device(.advertise(.withdraw))
        case "restore":
            if value.value == .bool(true) { return .device(.advertise(.restore(host: nil, port: nil))) }
            guard value.value.objectValue != nil else {
                reader.fail(value, "expected true, or {\"host\": ..., \"port\": ...} to come back elsewhere")
                return nil
            }
            guard reader.members(value, allowed: ScenarioKeys.restore) != nil else { return nil }
            let host = reader.read(value["host"]) { try $0.string(nonEmpty: true) }
            let port = reader.read(value["port"]) { try $0.int(in: 1...65535) }
            if value["host"] == nil, value["port"] == nil { reader.fail(value, "expected host and/or port (or true)") }
            return .device(.advertise(.restore(host: host, port: port)))
        case "offline", "online":
            guard reader.read({ try value.bool() }) == true else {
                if value.value == .bool(false) { reader.fail(value, "expected true") }
                return nil
            }
            return .household(key == "offline" ? .offline : .online)
        case "leadGroup":
            if let name = value.value.stringValue, !name.isEmpty { return .household(.leadGroup(name, rename: false)) }
            guard value.value.objectValue != nil else {
                reader.fail(value, "expected a group's name, or {\"group\": NAME, \"rename\": true}")
                return nil
            }
            guard reader.members(value, allowed: ScenarioKeys.leadGroup) != nil,
                  let group = reader.read({ try value.required("group", "the group's name").string(nonEmpty: true) }) else { return nil }
            return .household(.leadGroup(group, rename: reader.read(value["rename"]) { try $0.bool() } ?? false))
        case "createGroup":
            return group(value).map { .household(.createGroup($0)) }
        case "deleteGroup":
            return reader.read { try value.string(nonEmpty: true) }.map { .household(.deleteGroup($0)) }
        default:
            return nil
        }
    }

    /// A group's section (`groups[N]`, a `createGroup` step): name, members by device name,
    /// and optionally uuid, leader and port. Which names are devices the household checks.
    func group(_ value: JSONReader) -> GroupDeclaration? {
        guard reader.members(value, allowed: ScenarioKeys.group) != nil else { return nil }
        let name = reader.read { try value.required("name", "the group's name").string(nonEmpty: true) }
        var uuid: String?
        if let member = value["uuid"], let text = reader.read({ try member.string() }) {
            uuid = DeviceIdentity.normalizeUUID(text)
            if uuid == nil { reader.fail(member, "expected 32 hex digits, with or without dashes, got \(JSONReader.describe(member.value))") }
        }
        var members: [String]?
        if let list = reader.read({ try value.required("members", "the names of its devices").array() }) {
            members = list.compactMap { element in reader.read { try element.string(nonEmpty: true) } }
            if list.isEmpty, let member = value["members"] { reader.fail(member, "expected at least one device") }
        }
        let leader = reader.read(value["leader"]) { try $0.string(nonEmpty: true) }
        let port = reader.read(value["port"]) { try $0.int(in: GroupDeclaration.ports) }
        if let port, GroupDeclaration.devicePorts.contains(port), let member = value["port"] {
            reader.fail(member, "\(port) is a device's own port; a group listens elsewhere (senders take any port but 8009 for a group)")
        }
        guard let name, let members, !members.isEmpty else { return nil }
        return GroupDeclaration(name: name, uuid: uuid, members: members, leader: leader, port: port)
    }

    // MARK: rules and expectations

    private func rule(_ value: JSONReader) -> Rule? {
        guard reader.members(value, allowed: ScenarioKeys.rule) != nil else { return nil }
        let pattern = reader.read { try value.required("match", "a message pattern") }.flatMap(pattern)
        let times = reader.read(value["times"]) { try $0.int(minimum: 1) }
        let occurrence = reader.read(value["occurrence"]) { try $0.int(minimum: 1) }
        let name = reader.read(value["name"]) { try $0.string(nonEmpty: true) } ?? value.path.description
        let kind = reader.read {
            try value.required("action", "\"reply\", \"replyAlso\", \"respond\", \"delay\" or \"drop\"")
                .oneOf(["reply", "replyAlso", "respond", "delay", "drop"])
        }
        var action: Rule.Action?
        switch kind {
        case "reply", "replyAlso":
            if let reply = reader.read({ try value.required("reply", "the JSON object to answer with") }) {
                if reply.value["type"]?.stringValue == nil {
                    reader.fail(reply, "expected an object with a \"type\"")
                } else {
                    action = kind == "reply" ? .reply(reply.value) : .replyAlso(reply.value)
                }
            }
        case "delay":
            action = reader.read { try value.required("delay", "how long, e.g. \"2s\"").duration(allowZero: false) }
                .map(Rule.Action.delay)
        case "drop":
            action = .drop
        case "respond":
            if let list = reader.read({ try value.required("respond", "the messages to answer with").array() }) {
                if list.isEmpty { reader.fail(value["respond"]!, "expected at least one message") }
                let responses = list.compactMap(response)
                if responses.count == list.count, !responses.isEmpty { action = .respond(responses) }
            }
        default:
            break
        }
        for key in ["reply", "delay", "respond"] where value[key] != nil && kind != nil && kind != key && !(key == "reply" && kind == "replyAlso") {
            reader.fail(value[key]!, "goes with \"action\": \"\(key)\", not \"\(kind!)\"")
        }
        guard let pattern, let action else { return nil }
        return Rule(name: name, pattern: pattern, action: action, times: times, occurrence: occurrence)
    }

    /// One message of a `respond` rule: `{"after": "2s", "payload": {...}}`, optionally
    /// `namespace`, `from`, `sender` (the destination endpoint) and `"to": "all"`.
    private func response(_ value: JSONReader) -> Rule.Response? {
        guard reader.members(value, allowed: ScenarioKeys.response) != nil else { return nil }
        let after = reader.read(value["after"]) { try $0.duration(allowZero: true) } ?? 0
        let payload = reader.read { try value.required("payload", "the JSON object to send") }
        if let payload, payload.value["type"]?.stringValue == nil {
            reader.fail(payload, "expected an object with a \"type\"")
            return nil
        }
        var namespace: String?
        if let member = value["namespace"], let name = reader.read({ try member.string(nonEmpty: true) }) {
            namespace = MessagePattern.namespaceAliases[name] ?? name
        }
        let source = reader.read(value["from"]) { try $0.string(nonEmpty: true) }
        let destination = reader.read(value["sender"]) { try $0.string(nonEmpty: true) }
        let to = reader.read(value["to"]) { try $0.oneOf(["sender", "all"]) }
        guard let payload else { return nil }
        return Rule.Response(after: after, namespace: namespace, source: source, destination: destination, toAll: to == "all",
                             payload: payload.value)
    }

    private func expectation(_ value: JSONReader) -> Expectation? {
        guard let members = reader.members(value, allowed: ScenarioKeys.expectation) else { return nil }
        let name = reader.read { try value.required("name", "a name for the report").string(nonEmpty: true) }
        let within = reader.read(value["within"]) { try $0.duration(allowZero: false) }
        let kinds = ["message", "sequence", "never"].filter { members[$0] != nil }
        guard kinds.count == 1, let key = kinds.first, let member = value[key] else {
            reader.fail(value, kinds.isEmpty ? "expected one of message, sequence, never" : "has \(kinds.joined(separator: " and ")); expected exactly one")
            return nil
        }
        var kind: Expectation.Kind?
        switch key {
        case "message": kind = pattern(member).map(Expectation.Kind.message)
        case "never": kind = pattern(member).map(Expectation.Kind.never)
        default:
            guard let items = reader.read({ try member.array() }) else { break }
            if items.isEmpty { reader.fail(member, "expected at least one pattern") }
            let patterns = items.compactMap(pattern)
            if patterns.count == items.count, !patterns.isEmpty { kind = .sequence(patterns) }
        }
        guard let name, let kind else { return nil }
        return Expectation(name: name, kind: kind, within: within)
    }

    // MARK: patterns

    func pattern(_ value: JSONReader) -> MessagePattern? {
        guard reader.members(value, allowed: ScenarioKeys.pattern) != nil else { return nil }
        var pattern = MessagePattern()
        if let member = value["namespace"], let namespace = reader.read({ try member.string(nonEmpty: true) }) {
            pattern.namespace = MessagePattern.namespaceAliases[namespace] ?? namespace
            if MessagePattern.namespaceAliases[namespace] == nil, !namespace.hasPrefix("urn:x-cast:") {
                reader.fail(member,
                            "expected \"urn:x-cast:...\" or one of \(MessagePattern.namespaceAliases.keys.sorted().joined(separator: ", ")), got \"\(namespace)\"")
            }
        }
        pattern.type = reader.read(value["type"]) { try $0.string(nonEmpty: true) }
        pattern.sourceId = reader.read(value["from"]) { try $0.string(nonEmpty: true) }
        pattern.destinationId = reader.read(value["to"]) { try $0.string(nonEmpty: true) }
        if let fields = value["fields"], let members = reader.read({ try fields.object() }) {
            for key in members.keys.sorted() {
                if let field = fields[key], let predicate = predicate(field) {
                    pattern.fields.append((key, predicate))
                }
            }
        }
        return pattern
    }

    private func predicate(_ value: JSONReader) -> FieldPredicate? {
        guard case .object(let members) = value.value, let op = members.keys.first, op.hasPrefix("$") else {
            return .equals(value.value)
        }
        guard members.count == 1, let operand = value[op] else {
            reader.fail(value, "expected one $ operator, got \(members.keys.sorted().joined(separator: ", "))")
            return nil
        }
        switch op {
        case "$eq": return .equals(operand.value)
        case "$ne": return .notEquals(operand.value)
        case "$exists": return reader.read { try operand.bool() }.map(FieldPredicate.exists)
        case "$regex":
            guard let text = reader.read({ try operand.string() }) else { return nil }
            guard let regex = CompiledRegex(text) else {
                reader.fail(operand, "not a valid regular expression: \"\(text)\"")
                return nil
            }
            return .matches(regex)
        case "$contains": return .contains(operand.value)
        case "$gt", "$gte":
            return reader.read { try operand.double() }.map { .greaterThan($0, orEqual: op == "$gte") }
        case "$lt", "$lte":
            return reader.read { try operand.double() }.map { .lessThan($0, orEqual: op == "$lte") }
        case "$in": return reader.read { try operand.array() }.map { .oneOf($0.map(\.value)) }
        default:
            reader.fail(value, "unknown operator \(op); expected one of $eq, $ne, $exists, $regex, $contains, $gt, $gte, $lt, $lte, $in")
            return nil
        }
    }
}
