import CastWire

/// What kind of app a definition launches: the key of the app's entry in the
/// ``AppRegistry``. Each app declares its own in its folder under `Apps/`.
public struct AppBehaviour: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws { rawValue = try String(from: decoder) }
    public func encode(to encoder: any Encoder) throws { try rawValue.encode(to: encoder) }
}

/// An app the device can launch: what RECEIVER_STATUS says of it, and which app runs it.
public struct CastAppDefinition: Sendable, Equatable, Codable {
    public var appId: String
    public var displayName: String
    public var namespaces: [String]
    public var behaviour: AppBehaviour
    /// The media commands this app allows at most; `supportedMediaCommands` is what the
    /// session allows (queue bits only with a next/previous item ...) within this.
    public var allowedMediaCommands: MediaCommands

    public init(appId: String, displayName: String, namespaces: [String], behaviour: AppBehaviour,
                allowedMediaCommands: MediaCommands = .all) {
        self.appId = appId
        self.displayName = displayName
        self.namespaces = namespaces
        self.behaviour = behaviour
        self.allowedMediaCommands = allowedMediaCommands
    }
}
