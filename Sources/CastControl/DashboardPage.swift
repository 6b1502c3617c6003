import CastDevice
import CastScenario
import CastWire
import Foundation

/// The dashboard page as served: `Assets/dashboard.html` with what this castsim's apps
/// bring filled in (their panels, and their short namespace names), so the page's script
/// names no app.
enum DashboardPage {
    static let html = ControlAssets.dashboardHTML.replacingOccurrences(of: "<!--castsim:dashboard-apps-->", with: scriptSafe(apps))

    /// `{"panels": [{"key", "title", "namespace"}], "namespaces": {short name: namespace}}`.
    static var apps: JSONValue {
        let registry = AppRegistry.builtIn
        return [
            "panels": .array(registry.panels.map { panel in
                ["key": .string(panel.key), "title": .string(panel.title), "namespace": panel.eventsNamespace.map(JSONValue.string) ?? nil]
            }),
            "namespaces": .object(registry.namespaceAliases.mapValues(JSONValue.string)),
        ]
    }

    /// JSON that cannot end the `<script>` element it sits in.
    static func scriptSafe(_ value: JSONValue) -> String {
        value.jsonText().replacingOccurrences(of: "</", with: "<\\/")
    }
}
