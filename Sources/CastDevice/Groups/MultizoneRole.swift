import CastWire

/// Which multizone endpoint a ``DeviceConfiguration`` makes: a device's own (8009) or a
/// speaker group's (docs/protocol/groups.md §3). Both answer the multizone namespace on
/// `receiver-0`; they differ in whom they list and in what they do with volume.
public enum MultizoneRole: Sendable, Equatable, Codable {
    /// A speaker or TV on its own endpoint. It lists itself in MULTIZONE_STATUS and tells
    /// its senders DEVICE_UPDATED when its own volume changes (groups.md §4.3, §7 items 8, 12).
    case device
    /// The virtual device a speaker group advertises, hosted by its leader. It lists the
    /// members online, starting with `members`; the coordinator (``Household``) keeps the
    /// list current with ``MultizoneInput/memberAdded(_:)`` and friends, since the group
    /// endpoint cannot see its members' devices.
    case group(members: [MultizoneMember])

    public var isGroup: Bool {
        if case .group = self { return true }
        return false
    }
}

extension DeviceConfiguration {
    /// The `md` of a group endpoint (TXT and eureka_info, groups.md §1.1).
    public static let groupModelName = "Google Cast Group"
    /// `ca` bit 5: a multizone group (groups.md §1.1, Android's `CAPABILITY_MULTIZONE_GROUP`).
    public static let multizoneGroupCapability = 32

    /// The configuration of a speaker group's endpoint led by the device configured as
    /// `leader`: the group's own identity (name, UUID, model `Google Cast Group`, `ca` =
    /// the leader's | 32), audio-only with no idle screen, the leader's apps and media
    /// behaviour (it is the leader that plays), and the group volume given.
    public static func groupEndpoint(
        uuid: String, name: String, leader: DeviceConfiguration, members: [MultizoneMember], volume: Volume
    ) throws(IdentityError) -> DeviceConfiguration {
        var configuration = leader
        configuration.identity = try DeviceIdentity(
            uuid: uuid, friendlyName: name, modelName: groupModelName, manufacturer: leader.identity.manufacturer,
            supportsVideo: false, supportsAudio: true,
            advertisedCapabilities: leader.identity.capabilityBits | multizoneGroupCapability)
        // A group shows nothing when idle: RECEIVER_STATUS without applications.
        configuration.idleScreenAppId = nil
        configuration.apps = leader.apps.filter { $0.behaviour != .idleScreen }
        configuration.initialVolume = volume.level
        configuration.initiallyMuted = volume.muted
        configuration.multizone = .group(members: members)
        return configuration
    }
}
