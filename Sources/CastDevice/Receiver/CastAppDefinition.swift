import CastWire

/// An app the device can launch.
public struct CastAppDefinition: Sendable, Equatable {
    public enum Behaviour: Sendable, Equatable {
        /// A media receiver that answers the media namespace (the DMR and styled receivers).
        case mediaReceiver
        /// An idle screen: no media, `isIdleScreen: true`.
        case idleScreen
        /// An app with only the namespaces it declares; castsim routes but does not answer.
        case custom
    }

    public var appId: String
    public var displayName: String
    public var namespaces: [String]
    public var behaviour: Behaviour
    /// The media commands this app allows at most; `supportedMediaCommands` is what the
    /// session allows (queue bits only with a next/previous item ...) within this.
    public var allowedMediaCommands: MediaCommands

    public init(appId: String, displayName: String, namespaces: [String], behaviour: Behaviour,
                allowedMediaCommands: MediaCommands = .all) {
        self.appId = appId
        self.displayName = displayName
        self.namespaces = namespaces
        self.behaviour = behaviour
        self.allowedMediaCommands = allowedMediaCommands
    }

    /// The Default Media Receiver, `CC1AD845` (§5.5).
    public static let defaultMediaReceiver = CastAppDefinition(
        appId: "CC1AD845", displayName: "Default Media Receiver",
        namespaces: [CastNamespace.debugOverlay, CastNamespace.cac, CastNamespace.media],
        behaviour: .mediaReceiver)

    /// Backdrop, the idle screen of video devices, `E8C28D3C` (§5.2).
    public static let backdrop = CastAppDefinition(
        appId: "E8C28D3C", displayName: "Backdrop",
        namespaces: [CastNamespace.debugOverlay, CastNamespace.cac, CastNamespace.sse, CastNamespace.remoteControl],
        behaviour: .idleScreen)
}
