/// A real family of Cast receivers as a sender observes it: the model name and maker its
/// discovery and eureka_info give, the `ca` bits, audio-only or video, what RECEIVER_STATUS
/// says when idle and about the volume. Data, one value per family (``DeviceProfile/catalog``),
/// each with its sources in docs/profiles.md; applied to a configuration before a scenario's
/// own `device` fields, which override it.
public struct DeviceProfile: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case dongle, tv, speaker, hub, software
    }

    /// What `--profile` and a scenario's `device.profile` name it by.
    public var name: String
    public var kind: Kind
    /// What differs from castsim's own device, in a few words (`castsim profiles`).
    public var differs: String
    /// mDNS `md`, eureka_info `model_name`.
    public var modelName: String
    /// eureka_info `manufacturer`: Google's own say `Google Inc.`, Google TV devices `Google`.
    public var manufacturer: String
    public var supportsVideo: Bool
    /// mDNS `ca`, as the family advertises it (docs/profiles.md: higher bits included).
    public var capabilities: Int
    public var volumeControl: VolumeControl
    /// Video devices show Backdrop when idle; speakers and hubs list no `applications`.
    public var idleScreen: Bool
    /// What the family does that an ideal device does not (eureka_info, mDNS, volume, the
    /// apps it lacks: YouTube on speakers).
    public var quirks: DeviceQuirks
    /// What the family decodes; nil: whatever the host can (a software receiver).
    public var media: MediaSupport?

    public init(name: String, kind: Kind, differs: String, modelName: String, manufacturer: String, supportsVideo: Bool,
                capabilities: Int, volumeControl: VolumeControl, idleScreen: Bool, quirks: DeviceQuirks = DeviceQuirks(),
                media: MediaSupport?) {
        self.name = name
        self.kind = kind
        self.differs = differs
        self.modelName = modelName
        self.manufacturer = manufacturer
        self.supportsVideo = supportsVideo
        self.capabilities = capabilities
        self.volumeControl = volumeControl
        self.idleScreen = idleScreen
        self.quirks = quirks
        self.media = media
    }

    /// The profile named `name`, or what the valid names are.
    public static func named(_ name: String) throws(UnknownProfile) -> DeviceProfile {
        guard let profile = catalog.first(where: { $0.name == name }) else { throw UnknownProfile(name: name) }
        return profile
    }

    /// `configuration` as this family: its identity's model and maker, the volume control,
    /// its quirks, and, unless `keepingCapabilities` (a scenario said what its device can do),
    /// video or audio, the `ca` bits, the idle screen and the media it decodes. The name and
    /// UUID stay the configuration's.
    public func apply(to configuration: inout DeviceConfiguration, keepingCapabilities: Bool = false) {
        configuration.identity.modelName = modelName
        configuration.identity.manufacturer = manufacturer
        configuration.volumeControl = volumeControl
        configuration.quirks = quirks == DeviceQuirks() ? nil : quirks
        guard !keepingCapabilities else { return }
        configuration.identity.supportsVideo = supportsVideo
        configuration.identity.supportsAudio = true
        configuration.identity.advertisedCapabilities = capabilities
        configuration.idleScreenAppId = idleScreen ? CastAppDefinition.backdrop.appId : nil
        configuration.mediaSupport = media
    }
}

/// A profile name that is not in the catalog.
public struct UnknownProfile: Error, Sendable, Equatable, CustomStringConvertible {
    public let name: String

    public init(name: String) { self.name = name }

    public var description: String {
        "no device profile \"\(name)\"; the profiles are: \(DeviceProfile.catalog.map(\.name).joined(separator: ", "))"
    }
}
