import CastWire

extension AppBehaviour {
    /// An idle screen: no media, `isIdleScreen: true`.
    public static let idleScreen = AppBehaviour(rawValue: "idleScreen")
}

extension CastAppDefinition {
    /// Backdrop, the idle screen of video devices, `E8C28D3C` (docs/protocol/platform.md §2).
    public static let backdrop = CastAppDefinition(
        appId: "E8C28D3C", displayName: "Backdrop",
        namespaces: [CastNamespace.debugOverlay, CastNamespace.cac, CastNamespace.sse, CastNamespace.remoteControl],
        behaviour: .idleScreen)
}

/// Backdrop: what a video device shows when nothing is cast. It takes its namespaces'
/// messages and answers none (go-chromecast skips the media channel of an idle screen).
package struct BackdropApp: CastApp {
    package static let behaviour = AppBehaviour.idleScreen
    package static let plugin = AppPlugin(definitions: [.backdrop])
    private let definition: CastAppDefinition

    package init(launch: AppLaunch) { definition = launch.definition }

    package var isIdleScreen: Bool { true }

    package mutating func receive(_ message: AppMessage, context: inout AppContext) {
        context.acceptWithoutAnswer(message, app: definition)
    }
}
