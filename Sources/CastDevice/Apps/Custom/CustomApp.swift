extension AppBehaviour {
    /// An app with only the namespaces it declares: castsim routes its messages and
    /// answers none; scenario rules and `emit` steps speak for it.
    public static let custom = AppBehaviour(rawValue: "custom")
}

/// A scenario's own app (`"behaviour": "custom"`): it shows in RECEIVER_STATUS with its
/// namespaces, senders CONNECT to it and message it, and it answers nothing by itself.
package struct CustomApp: CastApp {
    package static let behaviour = AppBehaviour.custom
    private let definition: CastAppDefinition

    package init(launch: AppLaunch) { definition = launch.definition }

    package mutating func receive(_ message: AppMessage, context: inout AppContext) {
        context.acceptWithoutAnswer(message, app: definition)
    }
}
