import CastWire

extension AppBehaviour {
    /// DashCast, the web-page receiver catt's `cast_site` and pychromecast's
    /// DashCastController drive (docs/protocol/receivers.md).
    public static let dashCast = AppBehaviour(rawValue: "dashCast")
}

extension CastAppDefinition {
    /// DashCast, `84912283`, with its one namespace.
    public static let dashCast = CastAppDefinition(appId: "84912283", displayName: "DashCast",
                                                   namespaces: [DashCastApp.namespace], behaviour: .dashCast)
}

/// DashCast: shows a web page. It says "Application is starting" until its page is up half
/// a second later, then "Application ready" (catt waits for exactly that). A `load_url`
/// message is echoed back unchanged to its sender (that completes pychromecast's request),
/// unless `force` is set: then the whole page goes to the URL and nothing is answered.
package struct DashCastApp: CastApp {
    package static let behaviour = AppBehaviour.dashCast
    package static let plugin = AppPlugin(catalog: [.dashCast], requiredNamespaces: [namespace],
                                          schema: panelSchema,
                                          panel: AppPanel(key: "dashCast", title: "DashCast page", eventsNamespace: namespace))
    /// The panel's JSON Schema, for the OpenAPI document's state.
    static let panelSchema = AppSchema(json: #"""
        {"panel": {"type": "object", "required": ["url", "forced", "summary", "title", "playerState"], "properties": {
          "url": {"type": "string", "description": "The page shown."},
          "forced": {"type": "boolean", "description": "Sent with force: the page replaced the receiver."},
          "summary": {"type": "string"}, "title": {"type": "string"}, "playerState": {"type": "string"},
          "lastEvents": {"type": "array", "items": {"type": "object"}}}}}
        """#)
    package static let namespace = "urn:x-cast:com.madmod.dashcast"
    /// How long the receiver page takes to say it is ready.
    static let startUp = 0.5

    private let readyAt: SimTime
    private var ready = false
    /// The page shown, and whether it replaced the receiver (`force`).
    private var url: String?
    private var forced = false

    package init(launch: AppLaunch) { readyAt = launch.now + Self.startUp }

    package var statusText: String? { ready ? "Application ready" : "Application is starting" }

    package func nextDeadline(now: SimTime) -> SimTime? { ready ? nil : readyAt }

    package mutating func advance(context: inout AppContext) {
        guard !ready, context.now >= readyAt else { return }
        ready = true
        context.statusTextChanged()
    }

    package mutating func receive(_ message: AppMessage, context: inout AppContext) {
        guard let payload = message.payload, case .string(let url)? = payload["url"] else {
            context.log(.info, message.connection, "DashCast: a message without a url, ignored")
            return
        }
        self.url = url
        forced = payload["force"] == .bool(true)
        if forced {
            // The receiver page itself navigates away: nothing answers.
            context.log(.info, message.connection, "DashCast: the page is now \(url) (force)")
            return
        }
        context.log(.info, message.connection, "DashCast: showing \(url)")
        context.send(JSONPayload(payload), namespace: Self.namespace, to: message.requester(requestId: payload["requestId"]?.intValue ?? 0))
    }

    /// The dashboard's TV shows the page.
    package func snapshot(at now: SimTime) -> AppStateSnapshot {
        guard let url else { return AppStateSnapshot() }
        return AppStateSnapshot(panel: [
            "url": .string(url), "forced": .bool(forced), "title": .string(url), "playerState": "PLAYING",
            "summary": .string(forced ? "DashCast · the page replaced the receiver" : "DashCast · web page"),
        ])
    }
}
