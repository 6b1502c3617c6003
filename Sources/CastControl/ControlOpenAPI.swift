import CastDevice
import CastScenario
import CastWire

/// The OpenAPI document the control API serves: `Assets/openapi.json` as written, with
/// what it borrows from the scenario grammar put in (`act` takes a scenario action, `verify`
/// a scenario pattern: `scenario.schema.json#/$defs/NAME` there becomes a component of its
/// own, `scenario.NAME`, with what it refers to) and each app's panel in the state.
enum ControlOpenAPI {
    static let document: JSONValue = compose(base(), scenario: ScenarioSchema.document, apps: .builtIn)
    static let text = document.indentedJSONText() + "\n"

    private static func base() -> JSONValue {
        do {
            return try JSONValue.parse(Array(ControlAssets.openAPIBase.utf8), limits: .document)
        } catch {
            preconditionFailure("Assets/openapi.json is not JSON: \(error)")
        }
    }

    private static let scenarioPrefix = "scenario.schema.json#/$defs/"

    static func compose(_ base: JSONValue, scenario: JSONValue, apps registry: AppRegistry) -> JSONValue {
        var wanted: [String] = []
        var document = rewritingReferences(base) { reference in
            guard reference.hasPrefix(scenarioPrefix) else { return nil }
            let name = String(reference.dropFirst(scenarioPrefix.count))
            wanted.append(name)
            return "#/components/schemas/scenario.\(name)"
        }
        var schemas = document["components"]?["schemas"]?.objectValue ?? [:]
        // The scenario definitions asked for, and every one they refer to.
        let definitions = scenario["$defs"]?.objectValue ?? [:]
        var done = Set<String>()
        while let name = wanted.popLast() {
            guard done.insert(name).inserted, let definition = definitions[name] else { continue }
            schemas["scenario.\(name)"] = rewritingReferences(definition) { reference in
                guard reference.hasPrefix("#/$defs/") else { return nil }
                let target = String(reference.dropFirst("#/$defs/".count))
                wanted.append(target)
                return "#/components/schemas/scenario.\(target)"
            }
        }
        // Each app's panel: a member of the state named by the app, null while another runs.
        for (panel, schema) in registry.plugins.compactMap({ plugin in plugin.panel.map { ($0, plugin.schema?.panel) } }) {
            let component = "app.\(panel.key)"
            schemas[component] = schema ?? ["type": "object"]
            let member: JSONValue = [
                "anyOf": [["$ref": .string("#/components/schemas/\(component)")], ["type": "null"]],
                "description": .string("The \(panel.title) of this app while it runs; null otherwise."),
            ]
            if case .object(var state)? = schemas["State"] {
                state["properties"] = state["properties"]?.replacing(panel.key, with: member)
                state["required"] = .array((state["required"]?.arrayValue ?? []) + [.string(panel.key)])
                schemas["State"] = .object(state)
            }
        }
        if case .object(var components)? = document["components"] {
            components["schemas"] = .object(schemas)
            document = document.replacing("components", with: .object(components))
        }
        return document
    }

    /// `value` with every `$ref` that `rewrite` answers for replaced by its answer.
    private static func rewritingReferences(_ value: JSONValue, _ rewrite: (String) -> String?) -> JSONValue {
        switch value {
        case .object(let members):
            var result: [String: JSONValue] = [:]
            for (key, member) in members {
                if key == "$ref", let reference = member.stringValue, let rewritten = rewrite(reference) {
                    result[key] = .string(rewritten)
                } else {
                    result[key] = rewritingReferences(member, rewrite)
                }
            }
            return .object(result)
        case .array(let elements):
            return .array(elements.map { rewritingReferences($0, rewrite) })
        default:
            return value
        }
    }
}
