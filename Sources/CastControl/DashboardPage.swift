import CastWire

/// The dashboard page as `GET /` serves it: the HTML with the device's state in it (what
/// `GET /api/v1/state` would answer), so the page's first paint already shows the device.
enum DashboardPage {
    /// Where the state goes in `dashboard.html`, empty (`null`) as the file has it.
    static let placeholder = #"<script type="application/json" id="initial-state">null</script>"#

    /// `template` with `state` in its placeholder; `template` as it is without a state.
    static func html(_ template: String, state: JSONValue?) -> String {
        guard let state, let range = template.range(of: placeholder) else { return template }
        let element = #"<script type="application/json" id="initial-state">"# + scriptSafe(state.jsonText()) + "</script>"
        return template.replacingCharacters(in: range, with: element)
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
