import CastWire

/// The `exposure` section and the `emp` step: the Exposure backend the EMP receiver plays
/// from, and what a timeline does to it. Checked as strictly as the rest of the file, so a
/// world that cannot be (a program ending before it starts, a token of two business units)
/// is refused with its path instead of playing out as something else. The receiver reads
/// the section again when it launches, and the step when it carries it out.
struct ExposureParser {
    let reader: JSONChecker

    /// The world the `exposure` section of `configuration` declares; without the section,
    /// the open world (every token, business unit and asset plays).
    static func world(of configuration: DeviceConfiguration) -> ExposureWorld {
        guard let section = configuration.appSections[EMPScenarioKeys.section] else { return ExposureWorld() }
        let checker = JSONChecker()
        let world = ExposureParser(reader: checker).exposure(JSONReader(section, at: JSONPath([.key(EMPScenarioKeys.section)])),
                                                             defaultMediaDuration: configuration.defaultMediaDuration)
        return world ?? ExposureWorld()
    }

    /// What an `emp` action the scenario (or the control API) checked does.
    static func input(_ action: AppAction) -> EMPInput? {
        ExposureParser(reader: JSONChecker()).empAction(JSONReader(action.value, at: JSONPath([.key(action.key)])))
    }

    // MARK: exposure

    /// A declared world is closed: only its tokens, business units, assets and channels play.
    /// An asset without a duration lasts the device's `defaultMediaDuration`.
    func exposure(_ value: JSONReader, defaultMediaDuration: Double?) -> ExposureWorld? {
        guard reader.members(value, allowed: EMPScenarioKeys.exposure) != nil else { return nil }
        var world = ExposureWorld(isOpen: false)
        if let member = value["epoch"] {
            if let text = member.value.stringValue, let milliseconds = ISOTime.milliseconds(text) {
                world.epochMilliseconds = milliseconds
            } else {
                reader.record(member.expected(
                    "an ISO 8601 time like \"2026-05-01T18:00:00Z\" (Z or an offset like +02:00; fractional seconds optional)"))
            }
        }
        world.businessUnits = businessUnits(value["businessUnits"])
        world.assets = entries(value["assets"]) { exposureAsset($0, defaultDuration: defaultMediaDuration) }
        world.channels = entries(value["channels"], exposureChannel)
        if let assets = value["assets"]?.value.objectValue, let channels = value["channels"], let ids = channels.value.objectValue {
            // A LOAD names only an id: it must say which of the two it is.
            for id in ids.keys.sorted() where assets[id] != nil {
                reader.fail(path: channels.path.appending(id),
                            "\(JSONValue.string(id).jsonText()) is an asset too; expected an id to name an asset or a channel, not both")
            }
        }
        world.realReceiverExtras = reader.read(value["realReceiverExtras"]) { try $0.bool() } ?? false
        world.liveDelay = reader.read(value["liveDelay"]) { try $0.duration() } ?? world.liveDelay
        return world
    }

    /// The members of an object keyed by id, each read with `read`; an empty id can never
    /// be asked for, so it is refused.
    private func entries<T>(_ value: JSONReader?, _ read: (JSONReader) -> T?) -> [String: T] {
        guard let value, let members = reader.read({ try value.object() }) else { return [:] }
        var entries: [String: T] = [:]
        for id in members.keys.sorted() {
            guard let member = value[id] else { continue }
            if id.isEmpty { reader.fail(member, "expected a non-empty id") }
            entries[id] = read(member)
        }
        return entries
    }

    private func businessUnits(_ array: JSONReader?) -> [ExposureWorld.BusinessUnit] {
        var units: [ExposureWorld.BusinessUnit] = []
        var declared: [String: String] = [:]  // "customer/businessUnit" → where
        var owners: [String: String] = [:]  // token → where
        for element in reader.elements(array, { $0 }) {
            guard let unit = businessUnit(element) else { continue }
            let name = "\(unit.customer)/\(unit.businessUnit)"
            let place = element.path.components.last.map { JSONPath([.key("businessUnits"), $0]).description } ?? name
            if let first = declared[name] {
                reader.fail(element, "\(name) is declared by \(first) too; expected each customer and businessUnit pair once")
            } else {
                declared[name] = place
            }
            for token in unit.sessionTokens.keys.sorted() {
                if let first = owners[token] {
                    // Exposure tells the business unit by the token: it cannot be two.
                    reader.fail(path: element.path.appending("sessionTokens").appending(token),
                                "\(JSONValue.string(token).jsonText()) is a token of \(first) too; a token belongs to one business unit")
                } else {
                    owners[token] = place
                }
            }
            units.append(unit)
        }
        return units
    }

    private func businessUnit(_ value: JSONReader) -> ExposureWorld.BusinessUnit? {
        guard reader.members(value, allowed: EMPScenarioKeys.businessUnit) != nil else { return nil }
        let customer = reader.read { try value.required("customer", "the customer, e.g. \"Blixt\"").string(nonEmpty: true) }
        let businessUnit = reader.read { try value.required("businessUnit", "the business unit, e.g. \"Play\"").string(nonEmpty: true) }
        var tokens: [String: ExposureWorld.TokenState] = [:]
        if let member = value["sessionTokens"], let members = reader.read({ try member.object() }) {
            for token in members.keys.sorted() {
                guard let state = member[token] else { continue }
                if token.isEmpty { reader.fail(state, "expected a non-empty token") }
                tokens[token] = reader.read { try state.oneOf(ExposureWorld.TokenState.self) }
            }
        }
        guard let customer, let businessUnit else { return nil }
        return ExposureWorld.BusinessUnit(customer: customer, businessUnit: businessUnit, sessionTokens: tokens)
    }

    private func exposureAsset(_ value: JSONReader, defaultDuration: Double?) -> ExposureWorld.Asset? {
        guard reader.members(value, allowed: EMPScenarioKeys.asset) != nil else { return nil }
        var asset = ExposureWorld.Asset()
        asset.title = reader.read(value["title"]) { try $0.string() }
        asset.duration = reader.read(value["duration"]) { try $0.duration(allowZero: false) }
        // What the asset will last as it plays, and how a message names it.
        let length = asset.duration.map { (seconds: $0, name: "the asset's duration") }
            ?? defaultDuration.map { (seconds: $0, name: "the device's defaultMediaDuration, which an asset without a duration lasts") }
        asset.textLanguages = languages(value["textLanguages"])
        asset.audioLanguages = languages(value["audioLanguages"])
        for element in reader.elements(value["gaps"], { $0 }) {
            if let gap = span(element, within: length) { asset.gaps.append(ExposureWorld.Gap(from: gap.from, to: gap.to)) }
        }
        if let member = value["bookmark"], let bookmark = reader.read({ try member.duration() }) {
            // Playing from a bookmark at or past the end would end at once.
            if let length, bookmark >= length.seconds {
                reader.fail(member, "expected less than \(length.name) (\(ScenarioDuration.format(length.seconds))), got \(JSONReader.describe(member.value))")
            }
            asset.bookmark = bookmark
        }
        if let member = value["entitlement"], let entitlement = entitlement(member) { asset.entitlement = entitlement }
        return asset
    }

    private func exposureChannel(_ value: JSONReader) -> ExposureWorld.Channel? {
        guard reader.members(value, allowed: EMPScenarioKeys.channel) != nil else { return nil }
        var channel = ExposureWorld.Channel()
        channel.title = reader.read(value["title"]) { try $0.string() }
        channel.textLanguages = languages(value["textLanguages"])
        channel.audioLanguages = languages(value["audioLanguages"])
        channel.programs = programs(value["programs"])
        if let member = value["entitlement"], let entitlement = entitlement(member) { channel.entitlement = entitlement }
        return channel
    }

    /// The EPG in start order, without overlaps: the receiver finds the program on air by
    /// walking it, and a program boundary is where one ends and the next starts.
    private func programs(_ array: JSONReader?) -> [ExposureWorld.Program] {
        var programs: [ExposureWorld.Program] = []
        var places: [String] = []  // `programs[n]` of each program read
        var ids: [String: String] = [:]  // programId → where
        for element in reader.elements(array, { $0 }) {
            guard let program = program(element) else { continue }
            let place = element.path.components.last.map { JSONPath([.key("programs"), $0]).description } ?? program.programId
            if let first = ids[program.programId] {
                reader.fail(path: element.path.appending("programId"),
                            "\(JSONValue.string(program.programId).jsonText()) names \(first) too; expected program ids unique within a channel")
            } else {
                ids[program.programId] = place
            }
            if let previous = programs.last, let previousPlace = places.last {
                let start = element.path.appending("start")
                if program.start < previous.start {
                    reader.fail(path: start, "starts before \(previousPlace) (\(ScenarioDuration.format(previous.start))); expected programs in start order")
                } else if program.start < previous.end {
                    reader.fail(path: start, "overlaps \(previousPlace) (\(ScenarioDuration.format(previous.start))–\(ScenarioDuration.format(previous.end))); expected a start at or after \(ScenarioDuration.format(previous.end))")
                }
            }
            programs.append(program)
            places.append(place)
        }
        return programs
    }

    private func program(_ value: JSONReader) -> ExposureWorld.Program? {
        guard reader.members(value, allowed: EMPScenarioKeys.program) != nil else { return nil }
        let programId = reader.read { try value.required("programId", "the program's id").string(nonEmpty: true) }
        let assetId = reader.read { try value.required("assetId", "the id of the program's asset").string(nonEmpty: true) }
        let title = reader.read(value["title"]) { try $0.string() }
        let start = reader.read { try value.required("start", "when it goes on air, in scenario time, e.g. \"0s\"").duration() }
        let endMember = reader.read { try value.required("end", "when it goes off air, in scenario time, e.g. \"30m\"") }
        let end = endMember.flatMap { member in reader.read { try member.duration() } }
        guard let programId, let assetId, let start, let end, let endMember else { return nil }
        guard end > start else {
            reader.fail(endMember, "expected a time after start (\(ScenarioDuration.format(start))), got \(JSONReader.describe(endMember.value))")
            return nil
        }
        return ExposureWorld.Program(programId: programId, assetId: assetId, title: title, start: start, end: end)
    }

    /// `{"from": "10m", "to": "11m"}`: from before to, and (an asset's gap) to no later than
    /// the media's end.
    private func span(_ value: JSONReader, within length: (seconds: Double, name: String)? = nil) -> (from: Double, to: Double)? {
        guard reader.members(value, allowed: EMPScenarioKeys.span) != nil else { return nil }
        let from = reader.read { try value.required("from", "where the missing segments start, e.g. \"10m\"").duration() }
        let toMember = reader.read { try value.required("to", "where they end, e.g. \"12m\"") }
        let to = toMember.flatMap { member in reader.read { try member.duration() } }
        guard let from, let to, let toMember else { return nil }
        guard to > from else {
            reader.fail(toMember, "expected a time after from (\(ScenarioDuration.format(from))), got \(JSONReader.describe(toMember.value))")
            return nil
        }
        if let length, to > length.seconds {
            reader.fail(toMember, "expected at most \(length.name) (\(ScenarioDuration.format(length.seconds))), got \(JSONReader.describe(toMember.value))")
            return nil
        }
        return (from, to)
    }

    /// Language codes as the tracks will carry them; one track per language.
    private func languages(_ array: JSONReader?) -> [String] {
        var languages: [String] = []
        for element in reader.elements(array, { $0 }) {
            guard let language = reader.read({ try element.string(nonEmpty: true) }) else { continue }
            if languages.contains(language) {
                reader.fail(element, "\(JSONValue.string(language).jsonText()) is listed twice; expected each language once")
            } else {
                languages.append(language)
            }
        }
        return languages
    }

    /// A grant (`live`, `ffEnabled` ... or nothing: the defaults) or a refusal
    /// (`{"refuse": "GEO_BLOCKED", "code": 102}`).
    func entitlement(_ value: JSONReader) -> ExposureWorld.Entitlement? {
        guard let members = reader.members(value, allowed: EMPScenarioKeys.entitlement) else { return nil }
        if let refuse = value["refuse"] {
            let granted = EMPScenarioKeys.grant.filter { members[$0] != nil }.sorted()
            if !granted.isEmpty {
                reader.fail(value, "has refuse and \(granted.joined(separator: ", ")); expected a grant or a refusal, not both")
            }
            let message = reader.read { try refuse.string(nonEmpty: true) }
            let code = reader.read(value["code"]) { try $0.int() } ?? EMPErrorCode.entitlement
            guard let message, granted.isEmpty else { return nil }
            return .refused(ExposureWorld.Refusal(message: message, code: code))
        }
        if let code = value["code"] {
            reader.fail(code, "code goes with refuse; expected {\"refuse\": \"NOT_ENTITLED\", \"code\": 102} for a refusal")
        }
        var grant = ExposureWorld.Grant()
        grant.live = reader.read(value["live"]) { try $0.bool() }
        grant.ffEnabled = reader.read(value["ffEnabled"]) { try $0.bool() } ?? grant.ffEnabled
        grant.rwEnabled = reader.read(value["rwEnabled"]) { try $0.bool() } ?? grant.rwEnabled
        grant.timeshiftEnabled = reader.read(value["timeshiftEnabled"]) { try $0.bool() } ?? grant.timeshiftEnabled
        grant.airplayBlocked = reader.read(value["airplayBlocked"]) { try $0.bool() } ?? grant.airplayBlocked
        grant.minBitrate = reader.read(value["minBitrate"]) { try $0.int(minimum: 0) }
        grant.maxBitrate = reader.read(value["maxBitrate"]) { try $0.int(minimum: 0) }
        grant.maxResHeight = reader.read(value["maxResHeight"]) { try $0.int(minimum: 0) }
        return .granted(grant)
    }

    // MARK: the emp step

    func empAction(_ value: JSONReader) -> EMPInput? {
        guard let members = reader.members(value, allowed: EMPScenarioKeys.emp) else { return nil }
        let present = EMPScenarioKeys.empActions.filter { members[$0] != nil }
        guard present.count == 1, let key = present.first, let member = value[key] else {
            let choices = EMPScenarioKeys.empActions.joined(separator: ", ")
            reader.fail(value, present.isEmpty
                ? "expected one of \(choices)"
                : "has \(present.joined(separator: " and ")); expected exactly one of \(choices)")
            return nil
        }
        if key != "event", let data = value["data"] {
            reader.fail(data, "data goes with event; expected {\"event\": \"error\", \"data\": {...}}")
            return nil
        }
        switch key {
        case "event":
            // Without data the receiver sends what it would send now (its tracks, isLive ...).
            return reader.read { try member.string(nonEmpty: true) }.map { .sendEvent(type: $0, data: value["data"]?.value) }
        case "entitlement":
            return entitlement(member).map(EMPInput.setEntitlement)
        case "endProgram":
            guard reader.read({ try member.bool() }) == true else {
                if member.value == .bool(false) { reader.fail(member, "expected true") }
                return nil
            }
            return .endProgram
        default:
            return span(member).map { .segmentMissing(from: $0.from, to: $0.to) }
        }
    }
}
