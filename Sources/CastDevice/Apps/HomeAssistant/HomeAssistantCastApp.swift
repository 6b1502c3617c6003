import CastWire

extension AppBehaviour {
    /// Home Assistant Cast: a dashboard (Lovelace) on a Cast display, driven by Home
    /// Assistant's `cast.show_lovelace_view` through pychromecast (docs/protocol/receivers.md).
    public static let homeAssistantCast = AppBehaviour(rawValue: "homeAssistantCast")
}

extension CastAppDefinition {
    /// The production receiver `A078F6B0` and the frontend's development one `5FE44367`.
    public static let homeAssistantLovelace = homeAssistant(appId: "A078F6B0")

    static func homeAssistant(appId: String) -> CastAppDefinition {
        CastAppDefinition(appId: appId, displayName: "Home Assistant Lovelace",
                          namespaces: [CastNamespace.debugOverlay, CastNamespace.cac, HomeAssistantCastApp.namespace,
                                       "urn:x-cast:com.google.cast.broadcast", CastNamespace.media],
                          behaviour: .homeAssistantCast)
    }
}

/// Home Assistant's Cast receiver: it connects to a Home Assistant instance with the
/// refresh token a sender gives it, then shows the dashboard view asked for. castsim has
/// no Home Assistant to reach, so a `connect` with an https `hassUrl` succeeds; the answers,
/// their fields and who gets them are the real receiver's (`receiver_status` to every
/// sender on a change, `receiver_error` with the documented codes). Its media namespace is
/// a media receiver's: the real one plays a still image there to keep displays awake.
package struct HomeAssistantCastApp: MediaApp {
    package static let behaviour = AppBehaviour.homeAssistantCast
    package static let plugin = AppPlugin(catalog: [.homeAssistantLovelace, .homeAssistant(appId: "5FE44367")],
                                          requiredNamespaces: [namespace, CastNamespace.media],
                                          sections: [AppScenarioSection(key: Outcomes.section) { section, checker, _ in
                                              _ = Outcomes(section, checker: checker)
                                          }],
                                          schema: panelSchema,
                                          panel: AppPanel(key: "homeAssistant", title: "Home Assistant dashboard", eventsNamespace: namespace))
    /// The section's and the panel's JSON Schema.
    static let panelSchema = AppSchema(json: #"""
        {"sections": {"homeAssistantCast": {
          "description": "How Home Assistant Cast's receiver fares with the Home Assistant it is sent to (castsim has none to reach).",
          "type": "object", "additionalProperties": false, "properties": {
            "connect": {"enum": ["accept", "connection-failed", "authentication-failed"],
                        "description": "What a connect with an https hassUrl does: receiver_error 1 or 2 to every sender, or connected."},
            "dashboard": {"enum": ["show", "fetch-config-failed"],
                          "description": "What show_lovelace_view does once connected: receiver_error 22 to every sender, or the view."}}}},
         "panel": {"type": "object", "required": ["connected", "showDemo", "summary", "title", "playerState"], "properties": {
          "connected": {"type": "boolean", "description": "A connect succeeded."},
          "hassUrl": {"type": ["string", "null"]}, "lovelacePath": {"description": "The view shown (a path, an index or null)."},
          "urlPath": {"type": ["string", "null"], "description": "The dashboard; null for the default one."},
          "showDemo": {"type": "boolean"}, "summary": {"type": "string"}, "title": {"type": "string"},
          "playerState": {"type": "string"}, "lastEvents": {"type": "array", "items": {"type": "object"}}}}}
        """#)
    package static let namespace = "urn:x-cast:com.nabucasa.hast"

    /// The instance it is connected to, and what it shows.
    private struct Connection: Equatable {
        var hassUrl: String
        var hassUUID: String
        var lovelacePath: JSONValue?
        /// Absent until a view was asked for; null for the default dashboard.
        var urlPath: JSONValue?
    }

    /// `error_code` of `receiver_error` (the frontend's receiver; pychromecast's constants).
    enum ErrorCode: Int {
        case connectionFailed = 1, authenticationFailed = 2, hassURLMissing = 4, noHTTPS = 5, wrongInstance = 20, notConnected = 21
        case fetchConfigFailed = 22
    }

    /// A scenario's `homeAssistantCast` section: how the Home Assistant the receiver is
    /// sent to answers it.
    struct Outcomes {
        static let section = "homeAssistantCast"
        enum Connect: String, CaseIterable { case accept, connectionFailed = "connection-failed", authenticationFailed = "authentication-failed" }
        enum Dashboard: String, CaseIterable { case show, fetchConfigFailed = "fetch-config-failed" }
        var connect = Connect.accept
        var dashboard = Dashboard.show

        init() {}

        /// Reads the section, each problem recorded at its path.
        init(_ section: JSONReader, checker: JSONChecker) {
            guard checker.members(section, allowed: ["connect", "dashboard"]) != nil else { return }
            connect = checker.read(section["connect"]) { try $0.oneOf(Connect.self) } ?? .accept
            dashboard = checker.read(section["dashboard"]) { try $0.oneOf(Dashboard.self) } ?? .show
        }
    }

    private let definition: CastAppDefinition
    package var media: MediaReceiver
    private var connection: Connection?
    private var showDemo = false
    private let outcomes: Outcomes

    package init(launch: AppLaunch) {
        definition = launch.definition
        media = MediaReceiver(MediaSettings(launch))
        outcomes = launch.configuration.appSections[Outcomes.section].map { Outcomes(JSONReader($0), checker: JSONChecker()) } ?? Outcomes()
    }

    private var status: JSONValue {
        var status: [String: JSONValue] = ["type": "receiver_status", "connected": .bool(connection != nil), "showDemo": .bool(showDemo)]
        if let connection {
            status["hassUrl"] = .string(connection.hassUrl)
            status["hassUUID"] = .string(connection.hassUUID)
            status["lovelacePath"] = connection.lovelacePath ?? .null
            if let urlPath = connection.urlPath { status["urlPath"] = urlPath }
        }
        return .object(status)
    }

    package mutating func receive(_ message: AppMessage, context: inout AppContext) {
        switch message.envelope.namespace {
        case CastNamespace.media:
            media.receive(message, context: &context)
        case Self.namespace:
            receiveHast(message, context: &context)
        default:
            context.acceptWithoutAnswer(message, app: definition)
        }
    }

    private mutating func receiveHast(_ message: AppMessage, context: inout AppContext) {
        let payload = message.payload ?? .null
        // Answers carry no requestId: the receiver does not echo it.
        let sender = message.requester(requestId: 0)
        func reply(_ value: JSONValue) { context.send(JSONPayload(value), namespace: Self.namespace, to: sender) }
        func tellAll(_ value: JSONValue) { context.broadcast(JSONPayload(value), namespace: Self.namespace, answering: nil) }
        func error(_ code: ErrorCode, _ text: String) -> JSONValue {
            ["type": "receiver_error", "error_code": .number(Double(code.rawValue)), "error_message": .string(text)]
        }
        let hassUrl = payload["hassUrl"]?.stringValue, hassUUID = payload["hassUUID"]?.stringValue
        let otherInstance = connection.map { connected in
            (hassUrl != nil && hassUrl != connected.hassUrl) || (hassUUID != nil && hassUUID != connected.hassUUID)
        } ?? false
        switch payload["type"]?.stringValue {
        case "get_status":
            if otherInstance { reply(error(.wrongInstance, "Connected to another Home Assistant instance.")) }
            reply(status)
        case "connect":
            guard let hassUrl, !hassUrl.isEmpty else {
                tellAll(error(.hassURLMissing, "No Home Assistant URL given."))
                return
            }
            guard hassUrl.lowercased().hasPrefix("https://") else {
                tellAll(error(.noHTTPS, "Home Assistant must be served over HTTPS to be cast."))
                return
            }
            switch outcomes.connect {
            case .accept: break
            case .connectionFailed:
                tellAll(error(.connectionFailed, "Unable to connect to Home Assistant."))
                return
            case .authenticationFailed:
                tellAll(error(.authenticationFailed, "Authentication with Home Assistant failed."))
                return
            }
            let uuid = hassUUID ?? ""
            // Another instance starts from nothing shown.
            if connection?.hassUUID != uuid || connection?.hassUrl != hassUrl {
                connection = Connection(hassUrl: hassUrl, hassUUID: uuid)
            }
            context.log(.info, message.connection, "Home Assistant Cast: connected to \(hassUrl)")
            tellAll(status)
        case "show_lovelace_view":
            guard var shown = connection else {
                reply(status)
                reply(error(.notConnected, "Cannot show Lovelace because we're not connected."))
                return
            }
            if otherInstance {
                reply(status)
                reply(error(.wrongInstance, "Connected to another Home Assistant instance."))
                return
            }
            if outcomes.dashboard == .fetchConfigFailed {
                tellAll(error(.fetchConfigFailed, "Failed to fetch the dashboard configuration."))
                return
            }
            let urlPath = payload["urlPath"]?.stringValue
            shown.urlPath = urlPath == nil || urlPath == "lovelace" ? .null : .string(urlPath!)
            shown.lovelacePath = payload["viewPath"] ?? .null
            connection = shown
            showDemo = false
            context.log(.info, message.connection, "Home Assistant Cast: showing view \((payload["viewPath"] ?? .null).jsonText())")
            tellAll(status)
        case "show_demo":
            showDemo = true
            if connection != nil { connection?.lovelacePath = "overview" }
            tellAll(status)
        default:
            context.acceptWithoutAnswer(message, app: definition)
        }
    }

    /// The dashboard's TV shows the view, or that nothing is connected yet.
    package func snapshot(at now: SimTime) -> AppStateSnapshot {
        let view = connection?.lovelacePath.flatMap { $0 == .null ? nil : $0.stringValue ?? $0.jsonText() }
        let title = showDemo ? "Demo" : view.map { "View \($0)" } ?? (connection == nil ? "Not connected" : "Default view")
        let panel: JSONValue = [
            "connected": .bool(connection != nil), "hassUrl": connection.map { .string($0.hassUrl) } ?? nil,
            "lovelacePath": connection?.lovelacePath ?? nil, "urlPath": connection?.urlPath ?? nil, "showDemo": .bool(showDemo),
            "title": .string(title), "playerState": connection == nil ? "IDLE" : "PLAYING",
            "summary": .string(connection.map { "Home Assistant · \($0.hassUrl)" } ?? "Home Assistant · waiting for connect"),
        ]
        return AppStateSnapshot(media: media.snapshot(at: now), panel: panel)
    }
}
