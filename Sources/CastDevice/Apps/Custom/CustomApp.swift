import CastWire

extension AppBehaviour {
    /// An app with only the namespaces it declares: castsim routes its messages and
    /// answers none; scenario rules and `emit` steps speak for it.
    public static let custom = AppBehaviour(rawValue: "custom")
}

/// A scenario's own app (`"behaviour": "custom"`): it shows in RECEIVER_STATUS with its
/// namespaces, senders CONNECT to it and message it, and it answers nothing by itself.
package struct CustomApp: CastApp {
    package static let behaviour = AppBehaviour.custom
    /// Public receivers whose protocol lives on their makers' servers: they launch, show
    /// their namespaces and take messages, so a sender's launch path runs (docs/protocol/receivers.md).
    package static let plugin = AppPlugin(catalog: [
        CastAppDefinition(appId: "CA5E8412", displayName: "Netflix", namespaces: ["urn:x-cast:mdx-netflix-com:service:target:2"],
                          behaviour: .custom),
        CastAppDefinition(appId: "CC32E753", displayName: "Spotify", namespaces: ["urn:x-cast:com.spotify.chromecast.secure.v1"],
                          behaviour: .custom),
        CastAppDefinition(appId: "9AC194DC", displayName: "Plex", namespaces: ["urn:x-cast:plex", CastNamespace.media], behaviour: .custom),
        CastAppDefinition(appId: "A41B766D", displayName: "Supla", namespaces: ["urn:x-cast:fi.ruutu.chromecast"], behaviour: .custom),
    ])
    private let definition: CastAppDefinition

    package init(launch: AppLaunch) { definition = launch.definition }

    package mutating func receive(_ message: AppMessage, context: inout AppContext) {
        context.acceptWithoutAnswer(message, app: definition)
    }
}
