import CastDevice
import CastWire

/// The JSON Schema of scenario files, as `castsim schema` prints it: the scenario's own
/// grammar (`Assets/scenario.schema.json`, the one place it is written) with every app's
/// sections, timeline actions and definitions put in (``AppSchema``). The timeline step is
/// made from the actions (`$defs/action`), and so is the control API's `act` body, so an
/// action is defined once.
package enum ScenarioSchema {
    /// The scenario's own grammar, as written.
    static let base: JSONValue = {
        do {
            return try JSONValue.parse(Array(EmbeddedAssets.scenario_schema_json.utf8), limits: .document)
        } catch {
            preconditionFailure("Assets/scenario.schema.json is not JSON: \(error)")
        }
    }()

    /// The whole schema, with the built-in apps' parts.
    package static let document = compose(base, apps: .builtIn)

    /// The whole schema as text for a person (and for `scenarios/scenario.schema.json`).
    package static var json: String { document.indentedJSONText() + "\n" }

    static func compose(_ base: JSONValue, apps registry: AppRegistry) -> JSONValue {
        guard case .object(var root) = base, case .object(var defs)? = root["$defs"] else { return base }
        var properties = root["properties"]?.objectValue ?? [:]
        var actions = defs["action"]?["properties"]?.objectValue ?? [:]
        for schema in registry.plugins.compactMap(\.schema) {
            defs.merge(schema.defs) { own, _ in own }
            properties.merge(schema.sections) { own, _ in own }
            actions.merge(schema.actions) { own, _ in own }
        }
        root["properties"] = .object(properties)
        defs["action"] = defs["action"]?.replacing("properties", with: .object(actions))
        // A step: its trigger, and exactly one action.
        let actionKeys = ScenarioKeys.baseActions + registry.actions.map(\.key)
        if case .object(var step)? = defs["step"] {
            step["properties"] = .object((step["properties"]?.objectValue ?? [:]).merging(actions) { own, _ in own })
            step["oneOf"] = .array(actionKeys.map { ["required": [.string($0)]] })
            defs["step"] = .object(step)
        }
        defs["device"] = defs["device"].map { device in
            device.setting(["properties", "apps", "items", "properties", "behaviour", "enum"],
                           to: .array(registry.behaviours.map { .string($0.rawValue) }))
        }
        defs["namespace"] = defs["namespace"].map { namespace in
            let own = namespace["anyOf"]?[1]?["enum"]?.arrayValue ?? []
            let names = own + registry.namespaceAliases.keys.sorted().map(JSONValue.string)
            return namespace.setting(["anyOf", 1, "enum"], to: .array(names))
        }
        root["$defs"] = .object(defs)
        return .object(root)
    }
}

extension JSONValue {
    /// This value with the one at `path` (object keys and array indices) set to `value`;
    /// unchanged where the path does not lead.
    func setting(_ path: [any Sendable], to value: JSONValue) -> JSONValue {
        guard let first = path.first else { return value }
        let rest = Array(path.dropFirst())
        switch (self, first) {
        case (.object(var members), let key as String):
            guard let member = members[key] else { return self }
            members[key] = member.setting(rest, to: value)
            return .object(members)
        case (.array(var elements), let index as Int) where elements.indices.contains(index):
            elements[index] = elements[index].setting(rest, to: value)
            return .array(elements)
        default:
            return self
        }
    }
}
