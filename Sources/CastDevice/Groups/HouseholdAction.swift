/// An endpoint the runtime runs: a device's own (8009) or a speaker group's. Each is one
/// ``SimulatedDevice``; the UUIDs are 32 lower-case hex (``DeviceIdentity/uuid``).
package enum HouseholdEndpoint: Sendable, Hashable, CustomStringConvertible {
    case device(String)
    case group(String)

    package var description: String {
        switch self {
        case .device(let uuid): "device \(uuid)"
        case .group(let uuid): "group \(uuid)"
        }
    }
}

/// What the runtime must do for the ``Household``: apply an input to one endpoint's
/// device (and hand the events that raises back to ``Household/handle(_:from:)``), or
/// start, stop or move a group endpoint.
package enum HouseholdAction: Sendable, Equatable {
    /// `device.apply(input, now:)` on that endpoint.
    case multizone(MultizoneInput, to: HouseholdEndpoint)
    /// `device.apply(input, now:)` on that endpoint (a member's or the group's volume).
    case operatorInput(OperatorInput, to: HouseholdEndpoint)
    /// Create the group endpoint's device with `configuration` and listen on `port` at the
    /// leader's address; advertise it (docs/protocol/groups.md §1.1, §7 items 1–2).
    case startGroupEndpoint(groupId: String, leaderId: String, port: Int, configuration: DeviceConfiguration)
    /// Stop listening on the group's port, withdraw its advertisement, drop its device.
    case stopGroupEndpoint(groupId: String)
    /// The group endpoint moves host: close its connections and stop listening at the old
    /// leader, listen on the same `port` at the new leader's address and announce it from
    /// there (groups.md §1.4, §7 item 13). Keep its device: the group's session plays on.
    case moveGroupEndpoint(groupId: String, toLeader: String, port: Int)
}

/// A household change that cannot be made.
package enum HouseholdError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidUUID(String)
    case unknownDevice(String)
    case unknownGroup(String)
    case groupExists(String)
    /// A group needs at least one member, and its leader among them.
    case badMembership(String)
    /// A leader move to a member that is offline, or to the leader itself.
    case cannotLead(String)

    package var description: String {
        switch self {
        case .invalidUUID(let text): "\"\(text)\" is no UUID"
        case .unknownDevice(let uuid): "no device \(uuid) in the household"
        case .unknownGroup(let uuid): "no group \(uuid) in the household"
        case .groupExists(let uuid): "group \(uuid) exists already"
        case .badMembership(let why): "bad group membership: \(why)"
        case .cannotLead(let why): "cannot move the leader: \(why)"
        }
    }
}
