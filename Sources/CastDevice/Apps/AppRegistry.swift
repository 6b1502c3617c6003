import CastWire

/// The apps a device can run, by behaviour, and what each brings (``AppPlugin``): the one
/// place the platform, the scenario engine and the control API learn of apps.
package struct AppRegistry: Sendable {
    private struct Entry: Sendable {
        let launch: @Sendable (AppLaunch) -> any CastApp
        let plugin: AppPlugin
        let inScenarios: Bool
    }

    private var entries: [AppBehaviour: Entry] = [:]
    /// The behaviours registered, in order: what scenario files may name.
    package private(set) var behaviours: [AppBehaviour] = []
    /// Every registered behaviour, in order, the platform's own included.
    private var order: [AppBehaviour] = []

    package init() {}

    /// Registers an app. One the platform alone launches (`inScenarios` false) runs like
    /// any other but is left out of ``behaviours``, so scenario files cannot name it.
    package mutating func register<App: CastApp>(_: App.Type, inScenarios: Bool = true) {
        if entries[App.behaviour] == nil {
            order.append(App.behaviour)
            if inScenarios { behaviours.append(App.behaviour) }
        }
        entries[App.behaviour] = Entry(launch: { App(launch: $0) }, plugin: App.plugin, inScenarios: inScenarios)
    }

    package func runs(_ behaviour: AppBehaviour) -> Bool { entries[behaviour] != nil }

    package func launch(_ launch: AppLaunch) -> (any CastApp)? {
        entries[launch.definition.behaviour].map { $0.launch(launch) }
    }

    package func plugin(for behaviour: AppBehaviour) -> AppPlugin? { entries[behaviour]?.plugin }

    /// The plug-ins scenario files may use, in registration order.
    package var plugins: [AppPlugin] { behaviours.compactMap { entries[$0]?.plugin } }

    /// The definitions a device has unless its scenario says otherwise, in order.
    package var definitions: [CastAppDefinition] { plugins.flatMap(\.definitions) }

    /// Every app's public receivers (``AppPlugin/catalog``), in order.
    package var catalog: [CastAppDefinition] { plugins.flatMap(\.catalog) }

    /// The public receiver `appId`, if an app has it.
    package func catalogApp(withId appId: String) -> CastAppDefinition? {
        for plugin in plugins {
            if let definition = plugin.catalog.first(where: { $0.appId == appId }) { return definition }
        }
        return nil
    }

    /// Every app's top-level scenario sections, in order.
    package var sections: [AppScenarioSection] { plugins.flatMap(\.sections) }

    /// Every app's timeline actions, in order.
    package var actions: [AppTimelineAction] { plugins.flatMap(\.actions) }

    /// The behaviour whose action `key` is, if an app has one.
    package func behaviour(ofAction key: String) -> AppBehaviour? {
        behaviours.first { entries[$0]?.plugin.actions.contains { $0.key == key } == true }
    }

    /// Every app's short namespace names.
    package var namespaceAliases: [String: String] {
        plugins.reduce(into: [:]) { aliases, plugin in aliases.merge(plugin.namespaceAliases) { first, _ in first } }
    }

    /// Every app's example sections (``AppPlugin/exampleSections``).
    package var exampleSections: [String: JSONValue] {
        plugins.reduce(into: [:]) { sections, plugin in sections.merge(plugin.exampleSections) { first, _ in first } }
    }

    /// Every app's panel, in order.
    package var panels: [AppPanel] { plugins.compactMap(\.panel) }
}
