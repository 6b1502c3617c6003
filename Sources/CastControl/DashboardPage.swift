import CastDevice
import CastScenario
import CastWire
import Foundation

/// The dashboard page as `GET /` serves it: `Assets/dashboard.html` with what this castsim's
/// apps bring filled in (their panels, and their short namespace names, so the page's script
/// names no app), and the device's state (what `GET /api/v1/state` would answer, so the
/// page's first paint already shows the device).
enum DashboardPage {
    /// Where the state goes in `dashboard.html`, empty (`null`) as the file has it.
    static let placeholder = #"<script type="application/json" id="initial-state">null</script>"#

    /// The page with the apps filled in, before any state.
    static let template = ControlAssets.dashboardHTML.replacingOccurrences(
        of: "<!--castsim:dashboard-apps-->", with: scriptSafe(apps.jsonText()))

    /// The page with `state` in its placeholder; the page without a state as it is.
    static func html(state: JSONValue?) -> String {
        guard let state, let range = template.range(of: placeholder) else { return template }
        let element = #"<script type="application/json" id="initial-state">"# + scriptSafe(state.jsonText()) + "</script>"
        return template.replacingCharacters(in: range, with: element)
    }

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

    /// JSON text that cannot end its `<script>` element nor open a comment there: `<`, `>`
    /// and `&` (JSON has them only inside strings) become `\u003c`, `\u003e` and `\u0026`,
    /// which `JSON.parse` reads back as they were. A device named `</script><script>…`
    /// stays a name.
    static func scriptSafe(_ json: String) -> String {
        var safe = ""
        safe.reserveCapacity(json.utf8.count)
        for character in json.unicodeScalars {
            switch character {
            case "<": safe += "\\u003c"
            case ">": safe += "\\u003e"
            case "&": safe += "\\u0026"
            default: safe.unicodeScalars.append(character)
            }
        }
        return safe
    }
}
