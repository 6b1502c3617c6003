import CastWire

/// What an app brings besides its behaviour, so that the platform, the media receiver,
/// the scenario engine and the control API can ask the registry instead of naming it: the
/// definitions a device has of it, its part of the scenario grammar (sections, timeline
/// actions, their JSON Schema) and its panel in the control API's state and the dashboard.
package struct AppPlugin: Sendable {
    /// The app's definitions every device has unless its scenario says otherwise.
    package var definitions: [CastAppDefinition] = []
    /// Public receivers of this behaviour any Cast device can launch by id (Google's app
    /// registry serves them): launchable and available everywhere unless a profile's quirk
    /// hides one, but not the device's own, so not advertised as DNS-SD subtypes nor listed
    /// in its configuration (docs/protocol/receivers.md).
    package var catalog: [CastAppDefinition] = []
    /// The namespaces a definition of this behaviour always declares, first: a scenario's
    /// app may list more, never fewer (senders look for them in RECEIVER_STATUS).
    package var requiredNamespaces: [String] = []
    /// Short names message patterns may use for the app's namespaces (`emp`).
    package var namespaceAliases: [String: String] = [:]
    /// Top-level sections of a scenario file the app reads (a backend it plays from, say).
    package var sections: [AppScenarioSection] = []
    /// Timeline actions the app carries out (a change to that backend); a scenario step and
    /// the control API's `act` name them by key.
    package var actions: [AppTimelineAction] = []
    /// The JSON Schema of the sections and actions, and of the panel (``AppSchema``).
    package var schema: AppSchema?
    /// Its own part of the device's state, for the control API and the dashboard.
    package var panel: AppPanel?
    /// A small world in its sections' syntax, by key: what a device the fuzzer drives
    /// runs the app with, so it reaches past "nothing declared".
    package var exampleSections: [String: JSONValue] = [:]

    package init(definitions: [CastAppDefinition] = [], catalog: [CastAppDefinition] = [], requiredNamespaces: [String] = [],
                 namespaceAliases: [String: String] = [:], sections: [AppScenarioSection] = [], actions: [AppTimelineAction] = [],
                 schema: AppSchema? = nil, panel: AppPanel? = nil, exampleSections: [String: JSONValue] = [:]) {
        self.exampleSections = exampleSections
        self.definitions = definitions
        self.catalog = catalog
        self.requiredNamespaces = requiredNamespaces
        self.namespaceAliases = namespaceAliases
        self.sections = sections
        self.actions = actions
        self.schema = schema
        self.panel = panel
    }
}

/// A top-level section of scenario files an app reads. The scenario keeps the section as
/// written (``DeviceConfiguration/appSections``) once `check` found no problem; the app
/// reads it when it launches.
package struct AppScenarioSection: Sendable {
    package let key: String
    /// Records every problem of the section at its path; the device it is for is the
    /// scenario's, its own settings read already.
    package let check: @Sendable (JSONReader, JSONChecker, DeviceConfiguration) -> Void

    package init(key: String, check: @escaping @Sendable (JSONReader, JSONChecker, DeviceConfiguration) -> Void) {
        self.key = key
        self.check = check
    }
}

/// A timeline action an app carries out: `{"emp": {...}}` in a step or an `act`.
package struct AppTimelineAction: Sendable {
    package let key: String
    /// Records every problem of the action's value at its path.
    package let check: @Sendable (JSONReader, JSONChecker) -> Void

    package init(key: String, check: @escaping @Sendable (JSONReader, JSONChecker) -> Void) {
        self.key = key
        self.check = check
    }
}

/// One of an app's own timeline actions, as a scenario or the control API wrote it (and
/// the app's check accepted): the app reads it when it carries it out.
public struct AppAction: Sendable, Equatable, CustomStringConvertible {
    /// The action's key (`emp`).
    public var key: String
    public var value: JSONValue

    public init(key: String, value: JSONValue) {
        self.key = key
        self.value = value
    }

    public var description: String { "\(key) \(value.jsonText())" }
}

/// An app's JSON Schema, in three parts the scenario schema and the OpenAPI document are
/// made of: `$defs` it adds, the schemas of its sections and actions by key (they may
/// refer to `#/$defs/...`, its own or the scenario's), and its panel's.
package struct AppSchema: Sendable {
    package let defs: [String: JSONValue]
    package let sections: [String: JSONValue]
    package let actions: [String: JSONValue]
    package let panel: JSONValue?

    /// Reads the parts from one JSON document: `{"$defs": ..., "sections": ..., "actions":
    /// ..., "panel": ...}`. A document that is not that is a programming error, found by
    /// the schema tests.
    package init(json text: String) {
        let document = (try? JSONValue.parse(text)) ?? .null
        defs = document["$defs"]?.objectValue ?? [:]
        sections = document["sections"]?.objectValue ?? [:]
        actions = document["actions"]?.objectValue ?? [:]
        panel = document["panel"]
    }
}

/// An app's own part of the device's state: under `key` in the control API's state (null
/// while another app runs), and a panel on the dashboard titled `title`, with the newest
/// messages the device sent on `eventsNamespace`.
package struct AppPanel: Sendable {
    package let key: String
    package let title: String
    package let eventsNamespace: String?

    package init(key: String, title: String, eventsNamespace: String? = nil) {
        self.key = key
        self.title = title
        self.eventsNamespace = eventsNamespace
    }
}
