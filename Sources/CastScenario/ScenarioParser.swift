import CastDevice
import CastWire
import Foundation

extension JSONChecker {
    /// The problems found, as a scenario reports them.
    var issues: [ScenarioIssue] { problems.map { ScenarioIssue(path: $0.path.description, message: $0.message) } }
}

extension Scenario {
    /// Reads and checks a scenario file. Every problem is reported, each with its path.
    public static func load(contentsOf url: URL) throws -> Scenario {
        try parse(try read(url), file: url.path)
    }

    /// A scenario file's bytes; one that cannot be read is a validation error saying why.
    static func read(_ url: URL) throws(ScenarioValidationError) -> Data {
        do {
            return try FileContents.load(url.path)
        } catch {
            throw ScenarioValidationError(file: url.path, issues: [ScenarioIssue(path: "", message: error.description)])
        }
    }

    public static func parse(_ data: Data, file: String? = nil) throws(ScenarioValidationError) -> Scenario {
        try parse(try document(data, file: file), file: file)
    }

    /// A file's JSON, or where it stops being JSON.
    static func document(_ data: Data, file: String?) throws(ScenarioValidationError) -> JSONValue {
        do {
            return try JSONValue.parse(data, limits: .document)
        } catch {
            // A person reads this: where, as their editor shows it, not a byte offset.
            let before = data.prefix(error.offset)
            let line = before.count(where: { $0 == UInt8(ascii: "\n") }) + 1
            let column = before.count - (before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 - before.startIndex } ?? 0) + 1
            throw ScenarioValidationError(file: file, issues: [
                ScenarioIssue(path: "", message: "not valid JSON at line \(line), column \(column): \(error.reason)\(hint(data, error.offset))"),
            ])
        }
    }

    /// What a file that fails at its very start most likely is.
    private static func hint(_ data: Data, _ offset: Int) -> String {
        let start = data.prefix { [0x20, 0x09, 0x0A, 0x0D].contains($0) }.count
        guard offset == start else { return "" }
        if data.isEmpty || start == data.count { return " (the file is empty)" }
        if data.dropFirst(start).starts(with: [0xEF, 0xBB, 0xBF]) {
            return " (a UTF-8 byte order mark: save the file without one)"
        }
        return " (scenario files are JSON, an object in braces; YAML and other formats are not read)"
    }

    /// Reads and checks a scenario already parsed as JSON; the scenario keeps it as its ``source``.
    public static func parse(_ json: JSONValue, file: String? = nil) throws(ScenarioValidationError) -> Scenario {
        let reader = JSONChecker()
        guard var scenario = ScenarioParser(reader: reader).scenario(JSONReader(json)), reader.isClean else {
            throw ScenarioValidationError(file: file, issues: reader.issues)
        }
        scenario.source = json
        return scenario
    }
}

/// The keys each object of a scenario file may have, written once: the parser reads with
/// them, and a test checks that the JSON Schema lists the same. Apps add their own
/// sections and actions (``AppPlugin``).
package enum ScenarioKeys {
    package static let base: Set<String> = [
        "name", "description", "device", "devices", "groups", "clock", "media", "timeline", "rules", "expectations",
    ]
    /// Every top-level key: the scenario's own and the apps' sections.
    package static var top: Set<String> { base.union(AppRegistry.builtIn.sections.map(\.key)) }
    package static let device: Set<String> = [
        "profile", "name", "model", "manufacturer", "uuid", "capabilities", "volume", "apps", "heartbeatInterval",
        "idleTimeout", "defaultMediaDuration", "playbackRateRange", "liveWindow", "isolateRequestIds", "deviceAuth", "quirks",
    ]
    package static let capability: Set<String> = ["video", "audio"]
    package static let volume: Set<String> = ["level", "muted"]
    package static let app: Set<String> = ["appId", "displayName", "namespaces", "behaviour"]
    package static let clock: Set<String> = ["mode", "speed"]
    package static let media: Set<String> = ["duration", "streamType", "contentType", "tracks", "metadata", "video", "load", "userActions", "breaks", "breakClips"]
    package static let video: Set<String> = ["width", "height", "hdr"]
    package static let load: Set<String> = ["delay", "buffering", "fail", "neverAnswers"]
    package static let buffering: Set<String> = ["at", "for"]
    package static let fail: Set<String> = ["detailedErrorCode", "reason"]
    /// The scenario's own timeline actions.
    package static let baseActions = [
        "emit", "volume", "buffering", "playerError", "adBreak", "stopApp", "launchApp", "standby", "activeInput", "remote", "closeConnection",
        "stopHeartbeats", "unresponsive", "delayReplies", "sendFrame", "advance", "deviceAuth", "withdraw", "restore",
        "offline", "online", "leadGroup", "createGroup", "deleteGroup", "transferSession",
    ]
    /// The actions that are a household's steps (what other devices see), not one device's.
    package static let householdActions: Set<String> = ["offline", "online", "leadGroup", "createGroup", "deleteGroup", "transferSession"]
    /// Every timeline action: the scenario's own, then the apps'.
    package static var actions: [String] { baseActions + AppRegistry.builtIn.actions.map(\.key) }
    package static let group: Set<String> = ["name", "uuid", "members", "leader", "port", "stereoPair"]
    package static let leadGroup: Set<String> = ["group", "rename"]
    package static let trigger: Set<String> = ["at", "after", "name", "device"]
    package static var step: Set<String> { trigger.union(actions) }
    package static let after: Set<String> = ["event", "delay", "occurrence"]
    package static let emit: Set<String> = ["namespace", "from", "to", "sender", "payload"]
    package static let playerError: Set<String> = ["detailedErrorCode"]
    package static let closeConnection: Set<String> = ["which", "mode"]
    package static let restore: Set<String> = ["host", "port"]
    package static let delayReplies: Set<String> = ["by", "for", "which"]
    package static let sendFrame: Set<String> = ["kind", "which"]
    package static let rule: Set<String> = ["name", "match", "action", "reply", "delay", "times", "occurrence", "respond", "device"]
    package static let response: Set<String> = ["after", "namespace", "from", "sender", "to", "payload"]
    package static let expectation: Set<String> = ["name", "message", "sequence", "never", "streaming", "within", "device"]
    package static let pattern: Set<String> = ["namespace", "type", "from", "to", "fields"]
    /// The app behaviours a file may name: the built-in apps.
    package static var behaviours: [String] { AppRegistry.builtIn.behaviours.map(\.rawValue) }
    /// The `after` events that are not message types.
    package static var events: [String] { ScenarioEvent.named.keys.sorted() }
}

/// Turns the JSON of a scenario into a ``Scenario``, reporting problems to the reader.
struct ScenarioParser {
    let reader: JSONChecker

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
        if let configuration = device {
            // Each app's own sections, checked by the app and kept as written for it.
            for section in AppRegistry.builtIn.sections {
                guard let value = root[section.key] else { continue }
                section.check(value, reader, configuration)
                device?.appSections[section.key] = value.value
            }
        }
        let timeline = elements(root["timeline"], step)
        let rules = elements(root["rules"], rule)
        let expectations = elements(root["expectations"], expectation)
        var names = Set<String>()
        for (index, expectation) in expectations.enumerated() where !names.insert(expectation.name).inserted {
            reader.record(JSONReadError(path: JSONPath([.key("expectations"), .index(index), .key("name")]),
                                        message: "\"\(expectation.name)\" names another expectation too"))
        }
        if clock != .manual {
            for (index, step) in timeline.enumerated() where { if case .advance = step.action { true } else { false } }() {
                reader.fail(path: JSONPath([.key("timeline"), .index(index), .key("advance")]), "advance needs \"clock\": {\"mode\": \"manual\"}")
            }
        }
        guard let name else { return nil }
        device?.mediaCatalog = catalog
        guard let device else { return nil }
        return Scenario(name: name, description: description, device: device, clock: clock, timeline: timeline,
                        rules: rules, expectations: expectations, source: nil)
    }

    /// Reads each element of an optional array with `read`, dropping the ones with problems.
    func elements<T>(_ array: JSONReader?, _ read: (JSONReader) -> T?) -> [T] { reader.elements(array, read) }

    // MARK: device

    private func device(_ value: JSONReader) -> DeviceConfiguration? {
        guard reader.members(value, allowed: ScenarioKeys.device) != nil else { return nil }
        // A real family first (docs/profiles.md); the file's own fields below override it.
        // A name from the catalog, or a profile of the file's own (docs/profiles.md, profile files).
        let profile: DeviceProfile? = if let member = value["profile"], case .object = member.value {
            self.profile(member)
        } else {
            reader.read(value["profile"]) { member throws(JSONReadError) -> DeviceProfile in
                let name = try member.string(nonEmpty: true)
                do throws(UnknownProfile) { return try DeviceProfile.named(name) } catch { throw member.error(error.description) }
            }
        }
        var video = profile?.supportsVideo ?? true
        var audio = true
        var capabilitiesGiven = false
        if let capabilities = value["capabilities"], reader.members(capabilities, allowed: ScenarioKeys.capability) != nil {
            capabilitiesGiven = true
            video = reader.read(capabilities["video"]) { try $0.bool() } ?? video
            audio = reader.read(capabilities["audio"]) { try $0.bool() } ?? true
        }
        let name = reader.read(value["name"]) { try $0.string(nonEmpty: true) } ?? "castsim"
        var uuid = "5ce7a55c0de5ce7a55c0de5ce7a55c0d"
        if let member = value["uuid"], let text = reader.read({ try member.string() }) {
            if let normalized = DeviceIdentity.normalizeUUID(text) {
                uuid = normalized
            } else {
                reader.fail(member, "expected 32 hex digits, with or without dashes (8-4-4-4-12), got \(JSONReader.describe(member.value))")
            }
        }
        guard let identity = try? DeviceIdentity(uuid: uuid, friendlyName: name, supportsVideo: video, supportsAudio: audio) else {
            return nil
        }
        var configuration = DeviceConfiguration(identity: identity)
        // A file that says what its device can do keeps that, and the bits that follow from it.
        profile?.apply(to: &configuration, keepingCapabilities: capabilitiesGiven)
        configuration.identity.modelName = reader.read(value["model"]) { try $0.string(nonEmpty: true) } ?? configuration.identity.modelName
        configuration.identity.manufacturer = reader.read(value["manufacturer"]) { try $0.string(nonEmpty: true) }
            ?? configuration.identity.manufacturer
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
        if let member = value["quirks"] {
            let quirks = quirks(member, over: configuration.effectiveQuirks)
            configuration.quirks = quirks == DeviceQuirks() ? nil : quirks
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
            let resolved = MessagePattern.namespace(text)
            if !resolved.hasPrefix("urn:x-cast:") { reader.fail(element, "expected \"urn:x-cast:...\", got \"\(text)\"") }
            namespaces.append(resolved)
        }
        guard let appId, let behaviour else { return nil }
        // A behaviour's own namespaces come first, whatever the file lists: the app answers
        // them, and senders look for them in RECEIVER_STATUS.
        let required = AppRegistry.builtIn.plugin(for: behaviour)?.requiredNamespaces ?? []
        namespaces = required.filter { !namespaces.contains($0) } + namespaces
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
            if entry["breaks"] != nil || entry["breakClips"] != nil {
                // Checked as a LOAD's media.breaks and media.breakClips are, at this file's paths.
                if entry["breaks"] == nil, let clips = entry["breakClips"] {
                    reader.fail(clips, "breakClips without breaks: a break names the clips it plays")
                } else if reader.read({ try AdBreaks.validate(entry) }) != nil {
                    behaviour.breaks = entry["breaks"]?.value
                    behaviour.breakClips = entry["breakClips"]?.value ?? []
                }
            }
            if let actions = entry["userActions"] {
                behaviour.userActions = elements(actions) { reader.read($0) { try $0.oneOf(UserActionRequest.actions) } }
            }
            if let video = entry["video"], reader.members(video, allowed: ScenarioKeys.video) != nil {
                // What the picture is, for the device's media support (a profile's).
                behaviour.video = MediaSupport.Facts(
                    width: reader.read(video["width"]) { try $0.int(in: 1...16_384) },
                    height: reader.read(video["height"]) { try $0.int(in: 1...16_384) },
                    hdr: reader.read(video["hdr"]) { try $0.oneOf(ScenarioKeys.hdrFormats) })
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
}
