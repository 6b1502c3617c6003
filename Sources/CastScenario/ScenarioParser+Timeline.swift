import CastDevice
import CastWire

// Timeline steps: when each fires, and what it does.

extension ScenarioParser {
    // MARK: timeline

    func step(_ value: JSONReader) -> TimelineStep? {
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
            return .emit(namespace: MessagePattern.namespace(namespace),
                         source: source == "app" ? nil : source, to: to, destination: sender, payload: payload.value)
        case "volume":
            guard reader.members(value, allowed: ScenarioKeys.volume) != nil else { return nil }
            let level = reader.read(value["level"]) { try $0.double(in: 0...1) }
            let muted = reader.read(value["muted"]) { try $0.bool() }
            if value["level"] == nil, value["muted"] == nil { reader.fail(value, "expected level and/or muted") }
            return .device(.setDeviceVolume(level: level, muted: muted))
        case "buffering":
            return reader.read { try value.duration(allowZero: false) }.map { .device(.buffer(seconds: $0)) }
        case "adBreak":
            return reader.read { try value.oneOf(AdBreakInput.self) }.map { .device(.adBreak($0)) }
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
        case "activeInput":
            return reader.read { try value.bool() }.map { .device(.setActiveInput($0)) }
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
            if let host, !IPAddressText.isAddress(host), let member = value["host"] {
                reader.fail(member, "expected an IP address of this machine to listen on, got \(JSONReader.describe(member.value))")
            }
            let port = reader.read(value["port"]) { try $0.int(in: 1...65535) }
            if value["host"] == nil, value["port"] == nil { reader.fail(value, "expected host and/or port (or true)") }
            return .device(.advertise(.restore(host: host, port: port)))
        case "offline", "online":
            guard reader.read({ try value.bool() }) == true else {
                if value.value == .bool(false) { reader.fail(value, "expected true") }
                return nil
            }
            return .household(key == "offline" ? .offline : .online)
        case "transferSession":
            return reader.read { try value.string(nonEmpty: true) }.map { .household(.transferSession(to: $0)) }
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
            // An app's own action: the app checks it, and carries it out as written.
            guard let app = AppRegistry.builtIn.actions.first(where: { $0.key == key }) else { return nil }
            let before = reader.problems.count
            app.check(value, reader)
            return reader.problems.count == before ? .device(.app(AppAction(key: key, value: value.value))) : nil
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
            if uuid == nil { reader.fail(member, "expected 32 hex digits, with or without dashes (8-4-4-4-12), got \(JSONReader.describe(member.value))") }
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
        let stereoPair = reader.read(value["stereoPair"]) { try $0.bool() } ?? false
        guard let name, let members, !members.isEmpty else { return nil }
        return GroupDeclaration(name: name, uuid: uuid, members: members, leader: leader, port: port, stereoPair: stereoPair)
    }
}
