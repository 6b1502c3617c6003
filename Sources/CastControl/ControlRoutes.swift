import CastDevice
import CastScenario
import CastSimulator
import CastWire
import Foundation
import Hummingbird
import NIOCore

/// The endpoints of the control API, each a thin layer over the simulator.
package struct ControlRoutes: Sendable {
    /// Every endpoint of the fleet in order (one device for a plain run; a household's
    /// speaker groups come and go), asked for on each request.
    let endpoints: @Sendable () -> [CastSimulator]
    /// The device a request is for: `?device=NAME` (friendly name or UUID), else the first.
    var simulator: CastSimulator
    let maximumBodyBytes: Int
    let streams: EventStreams

    init(first: CastSimulator, endpoints: @escaping @Sendable () -> [CastSimulator], maximumBodyBytes: Int, streams: EventStreams) {
        self.endpoints = endpoints
        self.simulator = first
        self.maximumBodyBytes = maximumBodyBytes
        self.streams = streams
    }

    /// These routes for the device the request names with `?device=`; a name no device has
    /// is a 404 that lists the names there are.
    func on(_ request: Request) throws(ControlError) -> ControlRoutes {
        guard let name = try Self.parameters(request)["device"] else { return self }
        // A form-encoded space ("+", as a browser's address bar and URLSearchParams write it)
        // when no name has a plus sign.
        let devices = endpoints()
        let chosen = devices.first { $0.configuration.device.identity.matches(name) }
            ?? devices.first { $0.configuration.device.identity.matches(name.replacingOccurrences(of: "+", with: " ")) }
        guard let chosen else {
            let names = devices.map { "\"\($0.configuration.device.identity.friendlyName)\"" }.joined(separator: ", ")
            throw ControlError(status: .notFound, message: "no device \"\(name)\": the devices are \(names) (by name or UUID)")
        }
        var routes = self
        routes.simulator = chosen
        return routes
    }

    static let prefix = "/api/v1"

    /// Every path and the methods it takes: the router's, and what a 405 lists.
    package static let table: [String: [HTTPRequest.Method]] = [
        "/": [.get], "/dashboard.js": [.get], "/dashboard-panels.js": [.get], "/dashboard-log.js": [.get],
        "/dashboard-live.js": [.get], "/recording.js": [.get], "/dashboard.css": [.get],
        "\(prefix)/openapi.json": [.get], "\(prefix)/state": [.get],
        "\(prefix)/journal": [.get, .delete], "\(prefix)/journal/unhandled": [.get],
        "\(prefix)/verify": [.post], "\(prefix)/act": [.post],
        "\(prefix)/clock": [.get], "\(prefix)/clock/advance": [.post],
        "\(prefix)/scenario": [.get, .put], "\(prefix)/reset": [.post],
        "\(prefix)/report": [.get], "\(prefix)/events": [.get],
        "\(prefix)/recording": [.get, .post, .delete], "\(prefix)/devices": [.get],
        "\(prefix)/streaming/picture": [.get],
    ]

    /// Whether the endpoint reads a JSON body: POST and PUT do, but POST /reset. Every other
    /// refuses one (a form POSTed to /reset is what a web page can send without asking).
    static func readsBody(_ method: HTTPRequest.Method, _ path: String) -> Bool {
        (method == .post || method == .put) && path != "\(prefix)/reset"
    }

    func register(on router: Router<BasicRequestContext>) {
        /// GET, and HEAD the same way (ControlGate sends HEAD's answer without its body).
        func get<Output: ResponseGenerator>(_ path: RouterPath,
                                            use handler: @escaping @Sendable (Request, BasicRequestContext) async throws -> Output) {
            router.get(path, use: handler)
            router.on(path, method: .head, use: handler)
        }
        get("/") { request, _ in
            // With the state of the device `?device=` names in it; a name no device has gets
            // the page alone, whose fetches then say so.
            let state = try? await on(request).stateJSON()
            return ControlResponse.text(DashboardPage.html(state: state), contentType: "text/html; charset=utf-8")
        }
        get("/dashboard.js") { _, _ in ControlResponse.text(ControlAssets.dashboardJS, contentType: "text/javascript; charset=utf-8") }
        get("/dashboard-panels.js") { _, _ in ControlResponse.text(ControlAssets.dashboardPanelsJS, contentType: "text/javascript; charset=utf-8") }
        get("/dashboard-log.js") { _, _ in ControlResponse.text(ControlAssets.dashboardLogJS, contentType: "text/javascript; charset=utf-8") }
        get("/dashboard-live.js") { _, _ in ControlResponse.text(ControlAssets.dashboardLiveJS, contentType: "text/javascript; charset=utf-8") }
        get("/recording.js") { _, _ in ControlResponse.text(ControlAssets.recordingJS, contentType: "text/javascript; charset=utf-8") }
        get("/dashboard.css") { _, _ in ControlResponse.text(ControlAssets.dashboardCSS, contentType: "text/css; charset=utf-8") }
        get("\(Self.prefix)/openapi.json") { _, _ in ControlResponse.text(ControlOpenAPI.text, contentType: "application/json") }
        get("\(Self.prefix)/devices") { request, _ in
            try Self.noQuery(request)
            return ControlResponse.json(["devices": .array(try await endpoints().asyncMap(DevicesView.json))])
        }
        get("\(Self.prefix)/state") { request, _ in try await on(request).state(request) }
        get("\(Self.prefix)/journal") { request, _ in try await on(request).journal(request, unhandledOnly: false) }
        get("\(Self.prefix)/journal/unhandled") { request, _ in try await on(request).journal(request, unhandledOnly: true) }
        router.delete("\(Self.prefix)/journal") { request, _ in
            let simulator = try on(request).simulator
            try Self.noQuery(request)
            try await simulator.clearJournal()
            return Response(status: .noContent)
        }
        router.post("\(Self.prefix)/verify") { request, _ in try await on(request).verify(request) }
        router.post("\(Self.prefix)/act") { request, _ in try await on(request).act(request) }
        get("\(Self.prefix)/clock") { request, _ in
            let simulator = try on(request).simulator
            try Self.noQuery(request)
            return ControlResponse.json(ClockView.json(try await simulator.clock()))
        }
        router.post("\(Self.prefix)/clock/advance") { request, _ in try await on(request).advance(request) }
        get("\(Self.prefix)/scenario") { request, _ in
            let routes = try on(request)
            try Self.noQuery(request)
            return ControlResponse.json(try await routes.scenarioSummary())
        }
        router.put("\(Self.prefix)/scenario") { request, _ in try await on(request).loadScenario(request) }
        router.post("\(Self.prefix)/reset") { request, _ in
            let routes = try on(request), simulator = routes.simulator
            try Self.noQuery(request)
            try await simulator.reset()
            return ControlResponse.json(try await routes.scenarioSummary())
        }
        get("\(Self.prefix)/report") { request, _ in try await on(request).report(request) }
        get("\(Self.prefix)/streaming/picture") { request, _ in try await on(request).streamingPicture(request) }
        get("\(Self.prefix)/events") { request, _ in try await streams.open(request, simulator: on(request).simulator) }
        get("\(Self.prefix)/recording") { request, _ in
            let simulator = try on(request).simulator
            try Self.noQuery(request)
            return ControlResponse.json(RecordingView.json(simulator.recordingStatus))
        }
        router.post("\(Self.prefix)/recording") { request, _ in try await on(request).startRecording(request) }
        router.delete("\(Self.prefix)/recording") { request, _ in
            let simulator = try on(request).simulator
            try Self.noQuery(request)
            guard let status = await simulator.stopRecording() else {
                throw ControlError(status: .notFound, message: "no recording is being written")
            }
            return ControlResponse.json(RecordingView.json(status, recording: false))
        }
    }

    // MARK: Endpoints

    private func state(_ request: Request) async throws -> Response {
        try Self.noQuery(request)
        return ControlResponse.json(try await stateJSON())
    }

    /// What `GET /api/v1/state` answers.
    func stateJSON() async throws -> JSONValue {
        let snapshot = try await simulator.snapshot()
        let clock = try await simulator.clock()
        let discovery = try await simulator.discovery()
        // The journal only for what the running app's panel shows of it: the newest
        // messages sent on its namespace.
        var panelEvents: [JournalEntry] = []
        if snapshot.runningApp?.state.panel != nil, let namespace = snapshot.runningApp?.panel?.eventsNamespace {
            panelEvents = try await simulator.journal(newest: StateView.panelEventCount) {
                $0.direction == .outbound && $0.envelope.namespace == namespace
            }
        }
        return StateView.json(snapshot, clock: clock, panelEvents: panelEvents, discovery: discovery)
    }

    private func journal(_ request: Request, unhandledOnly: Bool) async throws -> Response {
        let query = try Self.query(request)
        var filter = try JournalView.Filter(query: query)
        if unhandledOnly {
            if query["unhandled"] == "false" {
                throw ControlError.badRequest("unhandled=false: this endpoint lists only unhandled messages; GET \(Self.prefix)/journal lists them all")
            }
            filter.unhandledOnly = true
        }
        let page = try await simulator.journalPage(after: filter.after)
        let (entries, more) = filter.apply(page.entries)
        // Whether the answer can have left nothing out to the journal's limit (or a clear):
        // past a cursor, nothing newer than it was dropped (an empty journal dropped every
        // message up to the last one numbered); without one, nothing since the last clear.
        let complete = filter.after.map { after in (page.oldest ?? page.last + 1) - 1 <= after } ?? (page.seen == page.kept)
        return ControlResponse.json(bytes: JournalView.pageJSON(entries, more: more, complete: complete, kept: page.kept, seen: page.seen))
    }

    private func verify(_ request: Request) async throws -> Response {
        try Self.noQuery(request)
        let body = try await Self.object(request, limit: maximumBodyBytes, allowed: ["message", "sequence", "direction", "count", "atLeast", "atMost"])
        var direction = JournalEntry.Direction.inbound
        if let value = body["direction"] {
            guard let text = value.stringValue, let chosen = JournalEntry.Direction(rawValue: text) else {
                throw ControlError.badRequest("direction: expected \"in\" or \"out\", got \(value.jsonText())")
            }
            direction = chosen
        }
        let entries = try await simulator.journal().filter { $0.direction == direction }
        func count(_ key: String) throws(ControlError) -> Int? {
            guard let value = body[key] else { return nil }
            guard let number = value.intValue, number >= 0 else { throw .badRequest("\(key): expected an integer >= 0, got \(value.jsonText())") }
            return number
        }
        let result: JournalVerification.Result
        switch (body["message"], body["sequence"]) {
        case (let message?, nil):
            let pattern: MessagePattern
            do { pattern = try ScenarioFragment.pattern(message, at: JSONPath.root.appending("message")) } catch {
                throw ControlError.invalid(error, what: "message is no pattern")
            }
            let exactly = try count("count"), atLeast = try count("atLeast"), atMost = try count("atMost")
            if exactly != nil, atLeast != nil || atMost != nil {
                throw ControlError.badRequest("count excludes atLeast and atMost: give an exact count, or a range")
            }
            if let atLeast, let atMost, atLeast > atMost {
                throw ControlError.badRequest("atLeast \(atLeast) is over atMost \(atMost): no count passes")
            }
            let wanted = exactly.map(JournalVerification.Count.exactly)
                ?? JournalVerification.Count(atLeast: atLeast ?? (atMost == nil ? 1 : 0), atMost: atMost)
            result = JournalVerification.count(pattern, wanted, in: entries)
        case (nil, let sequence?):
            if ["count", "atLeast", "atMost"].contains(where: { body[$0] != nil }) {
                throw ControlError.badRequest("a sequence takes no count: it passes when its patterns match in order")
            }
            guard let items = sequence.arrayValue, !items.isEmpty else {
                throw ControlError.badRequest("sequence: expected an array of at least one message pattern")
            }
            var patterns: [MessagePattern] = []
            for (index, item) in items.enumerated() {
                do { patterns.append(try ScenarioFragment.pattern(item, at: JSONPath.root.appending("sequence").appending(index))) } catch {
                    throw ControlError.invalid(error, what: "sequence[\(index)] is no pattern")
                }
            }
            result = JournalVerification.sequence(patterns, in: entries)
        case (_?, _?):
            throw ControlError.badRequest("give either \"message\" (with a count) or \"sequence\", not both")
        case (nil, nil):
            throw ControlError.badRequest("expected \"message\": a pattern such as {\"namespace\": \"media\", \"type\": \"LOAD\"}, or \"sequence\": [patterns]")
        }
        // A journal past its limit no longer holds the oldest messages: counts then cover
        // only what it keeps, and the answer says so.
        let counts = try await simulator.journalCounts()
        let dropped = counts.seen - counts.kept
        let message = dropped > 0
            ? result.message + " (the journal dropped its \(dropped) oldest message\(dropped == 1 ? "" : "s") past --journal-limit or --journal-mib: they were not checked)"
            : result.message
        return ControlResponse.json([
            "passed": .bool(result.passed), "count": .number(Double(result.count)), "expected": .string(result.expected),
            "complete": .bool(dropped == 0),
            "matches": .array(result.matches.map(JournalView.json)),
            "nearest": .array(result.nearest.map { ["entry": JournalView.json($0.entry), "differences": .array($0.differences.map(JSONValue.string))] }),
            "message": .string(message),
        ])
    }

    private func act(_ request: Request) async throws -> Response {
        try Self.noQuery(request)
        let body = try await Self.json(request, limit: maximumBodyBytes)
        let action: TimelineStep.Action
        do { action = try ScenarioFragment.action(body) } catch { throw ControlError.invalid(error, what: "not an action") }
        if case .advance = action {
            // One way to move the clock: its own endpoint.
            throw ControlError.badRequest("advance: move a manual clock with POST \(Self.prefix)/clock/advance {\"by\": \"10s\"}")
        }
        do {
            try await simulator.act(action, json: body)
        } catch let refusal as ControlRefusal {
            throw ControlError(status: refusal.namesNothing ? .notFound : .conflict, message: refusal.description)
        }
        return ControlResponse.json(["done": .string(Self.summary(of: body)), "time": .number(try await simulator.clock().time.seconds)])
    }

    private func advance(_ request: Request) async throws -> Response {
        try Self.noQuery(request)
        let body = try await Self.object(request, limit: maximumBodyBytes, allowed: ["by"])
        let seconds: Double
        switch body["by"] {
        case .number(let value)?:
            if let problem = ScenarioDuration.problem(with: value) { throw ControlError.badRequest("by: \(problem)") }
            seconds = value
        case .string(let text)?:
            switch ScenarioDuration.read(text) {
            case .success(let value): seconds = value
            case .failure(let error): throw ControlError.badRequest("by: \(error)")
            }
        default:
            throw ControlError.badRequest("by: expected a duration such as \"10m\" or a number of seconds")
        }
        let clock = try await simulator.clock()
        guard clock.mode == .manual else { throw ControlError(status: .conflict, message: ControlRefusal.clockNotManual(clock.mode).description) }
        await simulator.advanceClock(by: seconds)
        return ControlResponse.json(ClockView.json(try await simulator.clock()))
    }

    private func loadScenario(_ request: Request) async throws -> Response {
        try Self.noQuery(request)
        let data = try await Self.body(request, limit: maximumBodyBytes)
        do {
            _ = try JSONValue.parse(Array(data.readableBytesView), limits: .document)
        } catch {
            throw ControlError.badRequest("the body is not JSON: \(error)")
        }
        let scenario: Scenario
        do { scenario = try Scenario.parse(Data(data.readableBytesView)) } catch {
            throw ControlError.invalid(error, status: .unprocessableContent, what: "the scenario does not validate")
        }
        try await simulator.reset(loading: scenario)
        return ControlResponse.json(try await scenarioSummary())
    }

    private func scenarioSummary() async throws -> JSONValue {
        let (scenario, fired) = try await simulator.scenario()
        return [
            "name": .string(scenario.name), "steps": .number(Double(scenario.timeline.count)), "stepsFired": .number(Double(fired)),
            "rules": .number(Double(scenario.rules.count)), "expectations": .number(Double(scenario.expectations.count)),
        ]
    }

    /// The newest picture of a mirroring session, as PNG; 404 with why there is none.
    private func streamingPicture(_ request: Request) async throws -> Response {
        try Self.noQuery(request)
        guard let (png, _) = try await simulator.streamingPicture() else {
            let panel = try await simulator.snapshot().runningApp?.state.panel?["streaming"]
            let why = panel?["picturesUnavailable"]?.stringValue
                ?? (panel == nil ? "no mirroring session has run" : "no key frame has been decoded yet")
            throw ControlError(status: .notFound, message: "no picture: \(why)")
        }
        var headers: HTTPFields = [.contentType: "image/png"]
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: png)))
    }

    private func report(_ request: Request) async throws -> Response {
        let query = try Self.query(request)
        if let unknown = query.keys.first(where: { $0 != "format" && $0 != "token" }) {
            throw ControlError.badRequest("unknown query parameter \"\(unknown)\"; expected format")
        }
        let report = try await simulator.report()
        switch query["format"] {
        case nil, "json": return ControlResponse.text(report.json() + "\n", contentType: "application/json")
        case "junit": return ControlResponse.text(report.junitXML(), contentType: "application/xml")
        case let other?: throw ControlError.badRequest("format: expected json or junit, got \"\(other)\"")
        }
    }

    /// `remote pause`, `volume {"level":0.3}`: the action as it was asked for.
    static func summary(of action: JSONValue) -> String {
        guard let (key, value) = action.objectValue?.first else { return "action" }
        let text = value.stringValue ?? value.jsonText()
        return LogText.escape("\(key) \(text)", limit: 200)
    }

    // MARK: Reading requests

    /// Every parameter of the query; one given twice is refused (which one would count?).
    static func parameters(_ request: Request) throws(ControlError) -> [String: String] {
        var parameters: [String: String] = [:]
        for (key, value) in request.uri.queryParameters {
            guard parameters.updateValue(String(value), forKey: String(key)) == nil else {
                throw .badRequest("query parameter \"\(key)\" is given twice; give it once")
            }
        }
        return parameters
    }

    /// The query's parameters but `device`, which ``on(_:)`` has taken already.
    static func query(_ request: Request) throws(ControlError) -> [String: String] {
        var query = try parameters(request)
        query["device"] = nil
        return query
    }

    static func noQuery(_ request: Request) throws(ControlError) {
        if let unknown = try query(request).keys.sorted().first(where: { $0 != "token" }) {
            throw .badRequest("unknown query parameter \"\(unknown)\"; this endpoint takes none")
        }
    }

    /// The body, at most `limit` bytes, if it says it is JSON. Only JSON: a form or text body
    /// is what a web page elsewhere can send without asking (curl users add `-H
    /// 'Content-Type: application/json'`); ``ControlGate`` has refused a body of another type.
    static func body(_ request: Request, limit: Int) async throws -> ByteBuffer {
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw ControlError(status: .contentTooLarge, message: "the body is over the \(limit)-byte limit")
        }
        if request.headers[.contentType] == nil, body.readableBytes > 0 {
            throw ControlError(status: .unsupportedMediaType, message: "a body needs Content-Type: application/json")
        }
        return body
    }

    static func json(_ request: Request, limit: Int) async throws -> JSONValue {
        let data = try await body(request, limit: limit)
        guard data.readableBytes > 0 else { throw ControlError.badRequest("expected a JSON body, got none") }
        do {
            return try JSONValue.parse(Array(data.readableBytesView), limits: .document)
        } catch {
            throw ControlError.badRequest("the body is not JSON: \(error)")
        }
    }

    /// A JSON object body whose keys are among `allowed`.
    static func object(_ request: Request, limit: Int, allowed: Set<String>) async throws -> [String: JSONValue] {
        let value = try await json(request, limit: limit)
        guard let object = value.objectValue else { throw ControlError.badRequest("expected a JSON object, got \(value.jsonText().prefix(80))") }
        if let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw ControlError.badRequest("unknown key \"\(unknown)\"; expected \(allowed.sorted().joined(separator: ", "))")
        }
        return object
    }
}

extension ControlRefusal {
    /// A thing named that does not exist (404), rather than a state that refuses (409).
    var namesNothing: Bool {
        switch self {
        case .noSuchConnection(.connection), .noSuchApp, .noSuchSender: true
        case .household(_, let namesNothing): namesNothing
        default: false
        }
    }
}
