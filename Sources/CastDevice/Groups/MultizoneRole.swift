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
    /// `multichannel`: a stereo pair's, which says so in MULTIZONE_STATUS.
    case group(members: [MultizoneMember], multichannel: Bool = false)

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
    /// `ca` bits a stereo pair's group adds to its leader's (7 and 9: a Nest Audio pair
    /// advertises 199332 where one Nest Audio says 198660; docs/protocol/groups.md §9).
    public static let stereoPairGroupCapability = 128 | 512
    /// `ca` bits each speaker of a stereo pair adds (8 and 9: 199428 in the pair).
    public static let stereoPairMemberCapability = 256 | 512

    /// The configuration of a speaker group's endpoint led by the device configured as
    /// `leader`: the group's own identity (name, UUID, model `Google Cast Group`, `ca` =
    /// the leader's | 32), audio-only with no idle screen, the leader's apps and media
    /// behaviour (it is the leader that plays), and the group volume given. A stereo pair's
    /// group (`stereoPair`) has the pair's `ca` bits and says it is multichannel.
    public static func groupEndpoint(
        uuid: String, name: String, leader: DeviceConfiguration, members: [MultizoneMember], volume: Volume, stereoPair: Bool = false
    ) throws(IdentityError) -> DeviceConfiguration {
        var configuration = leader
        // The leader's own bits, without those it has as a member of a pair.
        let base = leader.identity.capabilityBits & ~stereoPairMemberCapability
        configuration.identity = try DeviceIdentity(
            uuid: uuid, friendlyName: name, modelName: groupModelName, manufacturer: leader.identity.manufacturer,
            supportsVideo: false, supportsAudio: true,
            advertisedCapabilities: base | multizoneGroupCapability | (stereoPair ? stereoPairGroupCapability : 0))
        // A group shows nothing when idle: RECEIVER_STATUS without applications.
        configuration.idleScreenAppId = nil
        configuration.apps = leader.apps.filter { $0.behaviour != .idleScreen }
        configuration.initialVolume = volume.level
        configuration.initiallyMuted = volume.muted
        configuration.multizone = .group(members: members, multichannel: stereoPair)
        return configuration
    }
}
