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

extension CastAppDefinition {
    /// Public receivers that speak the media namespace as the Default Media Receiver does,
    /// as far as a sender can tell offline: pychromecast's `quick_play` apps, Home
    /// Assistant's media app, and the media receivers catt and speakers use
    /// (docs/protocol/receivers.md). Their real receivers resolve ids online; castsim plays any.
    static let publicMediaReceivers: [CastAppDefinition] = [
        ("B45F4572", "Home Assistant Media"), ("3927FA74", "BubbleUPnP"), ("07AEE832", "Shaka Player"),
        ("3AEDF8D1", "NRK TV"), ("A49874B1", "NRK Radio"), ("5E81F6DB", "BBC iPlayer"), ("D350F6A9", "BBC Sounds"),
        ("25456794", "Audible"), ("38579375", "Default Media Receiver"),
        ("705D30C6", "Default Media Receiver"),
    ].map { appId, name in
        CastAppDefinition(appId: appId, displayName: name, namespaces: defaultMediaReceiver.namespaces,
                          behaviour: .defaultMediaReceiver)
    }
}

/// The Default Media Receiver: the media namespace, answered by a ``MediaReceiver``; its
/// other namespaces (debug overlay, cac) are taken and not answered.
package struct DefaultMediaReceiverApp: MediaApp {
    package static let behaviour = AppBehaviour.defaultMediaReceiver
    package static let plugin = AppPlugin(definitions: [.defaultMediaReceiver], catalog: CastAppDefinition.publicMediaReceivers,
                                          requiredNamespaces: CastAppDefinition.defaultMediaReceiver.namespaces)
    private let definition: CastAppDefinition
    package var media: MediaReceiver

    package init(launch: AppLaunch) {
        definition = launch.definition
        media = MediaReceiver(MediaSettings(launch))
    }

    package mutating func receive(_ message: AppMessage, context: inout AppContext) {
        receiveMediaOnly(message, app: definition, context: &context)
    }
}
