import CastWire

/// One device as the multizone namespace describes it: an entry of MULTIZONE_STATUS
/// `status.devices`, and the `device` of DEVICE_ADDED / DEVICE_UPDATED
/// (docs/protocol/groups.md §4.2).
///
/// A value, not a reference to the member's device: a group endpoint is its own
/// ``SimulatedDevice`` and only knows of its members what it was told (``MultizoneInput``).
public struct MultizoneMember: Sendable, Equatable, Codable {
    /// The member's UUID as ``DeviceIdentity/uuid`` keeps it: 32 lower-case hex digits.
    public private(set) var uuid: String
    /// `name`: the member's friendly name (its TXT `fn`).
    public var name: String
    /// `capabilities`: the member's mDNS `ca` bits (``DeviceIdentity/capabilityBits``).
    public var capabilities: Int
    /// `volume`: the member's own device volume, not the group's.
    public var volume: Volume

    /// `uuid` with or without dashes, in either case; anything else is kept as given (and
    /// then matches no device).
    public init(uuid: String, name: String, capabilities: Int, volume: Volume) {
        self.uuid = DeviceIdentity.normalizeUUID(uuid) ?? uuid.lowercased()
        self.name = name
        self.capabilities = capabilities
        self.volume = volume
    }

    /// The entry a device with this identity and volume has.
    public init(identity: DeviceIdentity, volume: Volume) {
        self.init(uuid: identity.uuid, name: identity.friendlyName, capabilities: identity.capabilityBits, volume: volume)
    }

    /// `deviceId`: lower-case with dashes. pychromecast keys member listeners by
    /// `str(UUID)`, so any other spelling and HA's member entities never match (groups.md §3.4).
    public var deviceId: String { uuid.count == 32 ? DeviceIdentity.dashed(uuid) : uuid }

    /// `{"capabilities":…,"deviceId":…,"name":…,"volume":{"level":…,"muted":…}}`
    var json: JSONValue { Self.json(entryWithoutVolume, volume: volume) }

    /// The entry's members but `volume`, which changes most.
    var entryWithoutVolume: [String: JSONValue] {
        ["capabilities": .number(Double(capabilities)), "deviceId": .string(deviceId), "name": .string(name)]
    }

    /// An entry from its other members and `volume`.
    static func json(_ entry: [String: JSONValue], volume: Volume) -> JSONValue {
        var entry = entry
        entry["volume"] = volume.json
        return .object(entry)
    }
}
