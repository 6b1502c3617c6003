import CastDevice
import CastWire
import Foundation

/// A scenario file for a household: `devices` lists several devices, and each timeline
/// step, rule and expectation names the device it is for (`"device": NAME`).
///
/// It is read as one scenario per device: each gets the file's name, clock and media
/// catalog, its own device section, and the steps, rules and expectations that name it.
/// Problems are reported at their place in the file (`timeline[4].device`, `devices[1].uuid`),
/// not in the per-device scenario made of it. A file with `device` (or neither) is a
/// household of one.
public struct FleetScenario: Sendable {
    public var name: String
    /// One scenario per device, in the file's order.
    public var devices: [Scenario]
    /// The speaker groups of the household at its start (`groups`).
    public var groups: [GroupDeclaration] = []

    /// The sections a household's item may name its device in.
    static let itemSections = ["timeline", "rules", "expectations"]

    public static func load(contentsOf url: URL) throws -> FleetScenario {
        try parse(try Scenario.read(url), file: url.path)
    }

    public static func parse(_ data: Data, file: String? = nil) throws(ScenarioValidationError) -> FleetScenario {
        guard let json = try? JSONValue.parse(data, limits: .document), json["devices"] != nil else {
            // One device (or not JSON: the one-device reader says where it breaks).
            let scenario = try Scenario.parse(data, file: file)
            return FleetScenario(name: scenario.name, devices: [scenario])
        }
        return try parse(household: json, file: file)
    }

    private static func parse(household json: JSONValue, file: String?) throws(ScenarioValidationError) -> FleetScenario {
        var issues: [ScenarioIssue] = []
        guard let top = json.objectValue else {
            throw ScenarioValidationError(file: file, issues: [ScenarioIssue(path: "", message: "expected an object")])
        }
        if top["device"] != nil {
            issues.append(ScenarioIssue(path: "device", message: "a scenario has either one device or a list of devices; this one has both \"device\" and \"devices\""))
        }
        guard let devices = top["devices"]?.arrayValue, !devices.isEmpty else {
            throw ScenarioValidationError(file: file, issues: issues + [ScenarioIssue(path: "devices", message: "expected a non-empty array of device sections")])
        }
        // Each device's name (the parser's default for a device without one is "castsim").
        var names: [String] = []
        for (index, device) in devices.enumerated() {
            // Steps, rules, expectations and groups name their device: one without a name
            // would be "castsim", a name nobody wrote.
            if device.objectValue != nil, device["name"] == nil {
                issues.append(ScenarioIssue(path: "devices[\(index)].name", message: "missing; each device of a household needs a name of its own"))
                names.append("castsim")  // the parser's default, for the device's place in the list
                continue
            }
            let name = device["name"]?.stringValue ?? "castsim"
            if names.contains(name) {
                issues.append(ScenarioIssue(path: "devices[\(index)].name", message: "\"\(name)\" names another device too; each device needs a name of its own"))
            }
            names.append(name)
        }
        // Which device each item is for, and where it is in the file.
        var owned: [String: [[Int]]] = [:]
        for section in itemSections {
            var perDevice = Array(repeating: [Int](), count: devices.count)
            for (index, item) in (top[section]?.arrayValue ?? []).enumerated() {
                let path = "\(section)[\(index)].device"
                guard let object = item.objectValue else { continue }
                guard let named = object["device"] else {
                    issues.append(ScenarioIssue(path: "\(section)[\(index)]", message: "names no device; in a scenario with devices, each says which (\"device\": one of \(quoted(names)))"))
                    continue
                }
                guard let name = named.stringValue, let owner = names.firstIndex(of: name) else {
                    issues.append(ScenarioIssue(path: path, message: "expected one of \(quoted(names)), got \(named.jsonText())"))
                    continue
                }
                perDevice[owner].append(index)
            }
            owned[section] = perDevice
        }
        if top["timeline"]?.arrayValue == nil, let timeline = top["timeline"] {
            issues.append(ScenarioIssue(path: "timeline", message: "expected an array, got \(timeline.jsonText())"))
        }
        var scenarios: [Scenario] = []
        for (deviceIndex, device) in devices.enumerated() {
            var part = top
            part["devices"] = nil
            part["groups"] = nil
            // A device named but given no UUID gets one of its own, from its name.
            part["device"] = device["uuid"] == nil && device.objectValue != nil
                ? device.replacing("uuid", with: .string(DeviceIdentity.derivedUUID(for: names[deviceIndex]))) : device
            for section in itemSections {
                guard let items = top[section]?.arrayValue else { continue }
                part[section] = .array(owned[section]![deviceIndex].map { items[$0].removing("device") })
            }
            do {
                var scenario = try Scenario.parse(JSONValue.object(part), file: file)
                // Steps and rules say where they are in the file, not in this part of it.
                for index in scenario.timeline.indices {
                    scenario.timeline[index].path = remap(scenario.timeline[index].path, device: deviceIndex, owned: owned)
                }
                for index in scenario.rules.indices {
                    scenario.rules[index].name = remap(scenario.rules[index].name, device: deviceIndex, owned: owned)
                }
                scenario.source = nil
                scenarios.append(scenario)
            } catch {
                for issue in error.issues {
                    var moved = issue
                    moved.path = remap(issue.path, device: deviceIndex, owned: owned)
                    // A problem of the shared sections shows once, not once per device.
                    if !issues.contains(moved) { issues.append(moved) }
                }
            }
        }
        guard issues.isEmpty, let first = scenarios.first else { throw ScenarioValidationError(file: file, issues: issues) }
        var uuids: [String: Int] = [:]
        for (index, scenario) in scenarios.enumerated() {
            let uuid = scenario.device.identity.uuid
            if let other = uuids[uuid] {
                issues.append(ScenarioIssue(path: "devices[\(index)].uuid", message: "\(scenario.device.identity.dashedUUID) is devices[\(other)]'s UUID too; give each device its own (or none: it is derived from the name)"))
            }
            uuids[uuid] = index
        }
        let groups = Self.groups(top["groups"], devices: names, scenarios: scenarios, issues: &issues)
        guard issues.isEmpty else { throw ScenarioValidationError(file: file, issues: issues) }
        return FleetScenario(name: first.name, devices: scenarios, groups: groups)
    }

    /// The `groups` section, checked against the devices; and every household step's
    /// group, which must be declared or created by some step.
    private static func groups(_ json: JSONValue?, devices names: [String], scenarios: [Scenario],
                               issues: inout [ScenarioIssue]) -> [GroupDeclaration] {
        let reader = JSONChecker()
        let parser = ScenarioParser(reader: reader)
        var groups: [GroupDeclaration] = []
        if let json {
            let section = JSONReader(json, at: JSONPath.root.appending("groups"))
            groups = parser.elements(section) { parser.group($0) }
        }
        issues += reader.issues
        var known = Set<String>()
        var check: [(GroupDeclaration, String)] = groups.enumerated().map { ($1, "groups[\($0)]") }
        // Steps create groups too; their members and leader are checked the same way.
        for scenario in scenarios {
            for step in scenario.timeline {
                if case .household(.createGroup(var declared)) = step.action {
                    declared.leader = scenario.device.identity.friendlyName
                    check.append((declared, step.path + ".createGroup"))
                }
            }
        }
        // A group deleted by a step may be made again by another (the steps' order is the
        // timeline's, which only a run knows); the runtime refuses what clashes then.
        var deleted = Set<String>()
        for scenario in scenarios {
            for step in scenario.timeline {
                if case .household(.deleteGroup(let name)) = step.action { deleted.insert(name) }
            }
        }
        var ports: [Int: String] = [:]
        var uuids: [String: String] = [:]
        var paired: [String: String] = [:]
        for (group, path) in check {
            let repeated = known.contains(group.name)
            if repeated, !deleted.contains(group.name) {
                issues.append(ScenarioIssue(path: path + ".name", message: "\"\(group.name)\" names another group too"))
            }
            known.insert(group.name)
            // Senders list groups and devices together, and the control API picks either by name.
            if names.contains(group.name) {
                issues.append(ScenarioIssue(path: path + ".name", message: "\"\(group.name)\" names a device too; a group needs a name of its own"))
            }
            if let twice = group.members.enumerated().first(where: { group.members[..<$0.offset].contains($0.element) })?.element {
                issues.append(ScenarioIssue(path: path + ".members", message: "\(JSONValue.string(twice).jsonText()) is listed twice; a device is in a group once"))
            }
            for member in group.members where !names.contains(member) {
                issues.append(ScenarioIssue(path: path + ".members", message: "\(JSONValue.string(member).jsonText()) is no device; expected some of \(quoted(names))"))
            }
            // A family that cannot join speaker groups (its profile's quirks.groupMember).
            for member in group.members {
                guard let device = scenarios.first(where: { $0.device.identity.friendlyName == member })?.device,
                      !device.effectiveQuirks.groupMember else { continue }
                issues.append(ScenarioIssue(path: path + ".members", message: "\(JSONValue.string(member).jsonText()) (\(device.identity.modelName)) cannot be in a speaker group (quirks.groupMember: false)"))
            }
            if group.stereoPair { stereoPairIssues(group, at: path, scenarios: scenarios, pairs: &paired, issues: &issues) }
            if !group.members.contains(group.leader) {
                issues.append(ScenarioIssue(path: path + ".leader", message: "\(JSONValue.string(group.leader).jsonText()) is not among its members \(quoted(group.members))"))
            }
            if let other = ports[group.port], !deleted.contains(other) {
                issues.append(ScenarioIssue(path: path + ".port", message: "\(group.port) is \(other)'s port too; each group listens on its own"))
            }
            ports[group.port] = group.name
            if let other = uuids[group.uuid], !repeated {
                issues.append(ScenarioIssue(path: path + ".uuid", message: "group \(other) has this UUID too"))
            }
            uuids[group.uuid] = group.name
        }
        for scenario in scenarios {
            for step in scenario.timeline {
                switch step.action {
                case .household(.leadGroup(let name, _)), .household(.deleteGroup(let name)):
                    if !known.contains(name) {
                        issues.append(ScenarioIssue(path: step.path, message: "no group \(JSONValue.string(name).jsonText()); the groups are \(quoted(known.sorted()))"))
                    }
                case .household(.transferSession(let target)):
                    if !names.contains(target) {
                        issues.append(ScenarioIssue(path: step.path + ".transferSession", message: "\(JSONValue.string(target).jsonText()) is no device; expected one of \(quoted(names))"))
                    } else if target == scenario.device.identity.friendlyName {
                        issues.append(ScenarioIssue(path: step.path + ".transferSession", message: "a device cannot transfer its session to itself"))
                    }
                default:
                    break
                }
            }
        }
        return groups
    }

    /// A stereo pair is two speakers of one model, each in no other pair, declared in
    /// `groups` (the Google Home app makes pairs; no step does).
    private static func stereoPairIssues(_ group: GroupDeclaration, at path: String, scenarios: [Scenario], pairs: inout [String: String],
                                         issues: inout [ScenarioIssue]) {
        guard path.hasPrefix("groups[") else {
            issues.append(ScenarioIssue(path: path + ".stereoPair", message: "a stereo pair is declared in the scenario's groups, not made by a step"))
            return
        }
        guard group.members.count == 2, Set(group.members).count == 2 else {
            issues.append(ScenarioIssue(path: path + ".members", message: "a stereo pair is two speakers, left then right; got \(group.members.count) (\(quoted(group.members)))"))
            return
        }
        let models = group.members.compactMap { member in
            scenarios.first { $0.device.identity.friendlyName == member }?.device.identity.modelName
        }
        if models.count == 2, models[0] != models[1] {
            issues.append(ScenarioIssue(path: path + ".members", message: "a stereo pair is two speakers of one model; \(quoted(group.members)) are \(quoted(models))"))
        }
        for member in group.members {
            if let other = pairs[member] {
                issues.append(ScenarioIssue(path: path + ".members", message: "\(JSONValue.string(member).jsonText()) is in the stereo pair \(JSONValue.string(other).jsonText()) already"))
            }
            pairs[member] = group.name
        }
    }

    /// A path in one device's part (`timeline[0].emit`, `device.uuid`) as the same place in the file.
    private static func remap(_ path: String, device: Int, owned: [String: [[Int]]]) -> String {
        if path == "device" || path.hasPrefix("device.") || path.hasPrefix("device[") {
            return "devices[\(device)]" + path.dropFirst("device".count)
        }
        for section in itemSections where path.hasPrefix("\(section)[") {
            let rest = path.dropFirst(section.count + 1)
            guard let close = rest.firstIndex(of: "]"), let local = Int(rest[..<close]),
                  let indices = owned[section]?[device], indices.indices.contains(local) else { return path }
            return "\(section)[\(indices[local])]" + rest[rest.index(after: close)...]
        }
        return path
    }

    private static func quoted(_ names: [String]) -> String {
        names.map { JSONValue.string($0).jsonText() }.joined(separator: ", ")
    }
}

extension FleetScenario {
    /// The devices' reports as one: passed when every device's passed, each expectation
    /// marked with its device.
    public static func report(_ name: String, _ reports: [(device: String, report: ScenarioReport)]) -> ScenarioReport {
        guard reports.count > 1 else { return reports.first?.report ?? ScenarioReport.empty(name) }
        var merged = ScenarioReport.empty(name)
        for (device, report) in reports {
            merged.passed = merged.passed && report.passed
            merged.duration = max(merged.duration, report.duration)
            merged.stepsFired += report.stepsFired
            merged.stepsTotal += report.stepsTotal
            merged.messagesReceived += report.messagesReceived
            merged.expectations += report.expectations.map { result in
                var marked = result
                marked.device = device
                return marked
            }
        }
        return merged
    }
}
