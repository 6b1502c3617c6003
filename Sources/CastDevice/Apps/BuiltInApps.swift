extension AppRegistry {
    /// Every app castsim has: one line each. A new app is a folder under `Apps/` and a line
    /// here; the device, the scenario files, the control API and the dashboard learn of it
    /// from its ``AppPlugin``.
    package static let builtIn: AppRegistry = {
        var registry = AppRegistry()
        registry.register(DefaultMediaReceiverApp.self)
        registry.register(CustomApp.self)
        registry.register(BackdropApp.self)
        registry.register(EMPApp.self)
        registry.register(DashCastApp.self)
        registry.register(HomeAssistantCastApp.self)
        registry.register(YouTubeApp.self)
        registry.register(MusicAssistantApp.self)
        registry.register(YleAreenaApp.self)
        registry.register(MirroringApp.self)
        // Launched by a group's session only (MultizoneInput), never named by a file.
        registry.register(MultizoneMemberApp.self, inScenarios: false)
        return registry
    }()
}
