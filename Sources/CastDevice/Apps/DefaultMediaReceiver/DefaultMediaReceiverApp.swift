import CastWire

extension AppBehaviour {
    /// A media receiver that answers the media namespace (the DMR and styled receivers).
    public static let defaultMediaReceiver = AppBehaviour(rawValue: "defaultMediaReceiver")
}

extension CastAppDefinition {
    /// The Default Media Receiver, `CC1AD845` (docs/protocol/platform.md §5).
    public static let defaultMediaReceiver = CastAppDefinition(
        appId: "CC1AD845", displayName: "Default Media Receiver",
        namespaces: [CastNamespace.debugOverlay, CastNamespace.cac, CastNamespace.media],
        behaviour: .defaultMediaReceiver)
}

/// The Default Media Receiver: the media namespace, answered by a ``MediaReceiver``; its
/// other namespaces (debug overlay, cac) are taken and not answered.
package struct DefaultMediaReceiverApp: CastApp {
    package static let behaviour = AppBehaviour.defaultMediaReceiver
    package static let plugin = AppPlugin(definitions: [.defaultMediaReceiver],
                                          requiredNamespaces: CastAppDefinition.defaultMediaReceiver.namespaces)
    private let definition: CastAppDefinition
    private var media: MediaReceiver

    package init(launch: AppLaunch) {
        definition = launch.definition
        media = MediaReceiver(MediaSettings(launch))
    }

    package mutating func receive(_ message: AppMessage, context: inout AppContext) {
        guard message.envelope.namespace == CastNamespace.media else {
            context.acceptWithoutAnswer(message, app: definition)
            return
        }
        media.receive(message, context: &context)
    }

    package func nextDeadline(now: SimTime) -> SimTime? { media.nextDeadline(now: now) }

    package mutating func advance(context: inout AppContext) { media.advance(context: &context) }

    package mutating func apply(_ input: AppInput, context: inout AppContext) { media.apply(input, context: &context) }

    package mutating func stop(context: inout AppContext) { media.stop(context: &context) }

    package func snapshot(at now: SimTime) -> AppStateSnapshot { AppStateSnapshot(media: media.snapshot(at: now)) }
}
