import CastWire

/// What happened on an endpoint about speaker groups, raised as ``DeviceEvent/Kind/multizone(_:)``.
///
/// One case in ``DeviceEvent/Kind`` for all of them, so that adding one here leaves the
/// exhaustive switches of other modules alone. The coordinator (``Household``) reacts to
/// ``memberVolumeRequested(uuid:_:)`` and ``leftGroupSession(groupId:)``; the rest is for
/// the journal and the dashboard. UUIDs are 32 lower-case hex, as ``DeviceIdentity/uuid``.
public enum MultizoneEvent: Sendable, Equatable, CustomStringConvertible {
    /// SET_DEVICE_VOLUME on a group endpoint: a sender asks for one member's volume. The
    /// group endpoint cannot change another device; whoever runs the members carries it out.
    case memberVolumeRequested(uuid: String, VolumeChange)
    /// A group endpoint's member list changed (DEVICE_ADDED / DEVICE_UPDATED / DEVICE_REMOVED sent).
    case memberAdded(uuid: String)
    case memberUpdated(uuid: String)
    case memberRemoved(uuid: String)
    /// A member began mirroring its group's session (or changed role after a leader move).
    case followingGroup(groupId: String, role: GroupMemberRole)
    /// A member stopped mirroring because it was told to (the group session ended, the group went).
    case stoppedFollowing(groupId: String)
    /// A member left the group session by itself: a sender or the remote launched or
    /// stopped an app on its own endpoint. The group plays on without it.
    case leftGroupSession(groupId: String)

    public var description: String {
        switch self {
        case .memberVolumeRequested(let uuid, let change):
            "memberVolumeRequested \(uuid)" + (change.level.map { " level \($0)" } ?? "") + (change.muted.map { " muted \($0)" } ?? "")
        case .memberAdded(let uuid): "memberAdded \(uuid)"
        case .memberUpdated(let uuid): "memberUpdated \(uuid)"
        case .memberRemoved(let uuid): "memberRemoved \(uuid)"
        case .followingGroup(let groupId, let role): "followingGroup \(groupId) as \(role.rawValue)"
        case .stoppedFollowing(let groupId): "stoppedFollowing \(groupId)"
        case .leftGroupSession(let groupId): "leftGroupSession \(groupId)"
        }
    }

    /// The event's fields as the control API's event stream shows them.
    public var json: JSONValue {
        switch self {
        case .memberVolumeRequested(let uuid, let change):
            ["event": "memberVolumeRequested", "uuid": .string(uuid),
             "level": change.level.map(JSONValue.number) ?? nil, "muted": change.muted.map(JSONValue.bool) ?? nil]
        case .memberAdded(let uuid): ["event": "memberAdded", "uuid": .string(uuid)]
        case .memberUpdated(let uuid): ["event": "memberUpdated", "uuid": .string(uuid)]
        case .memberRemoved(let uuid): ["event": "memberRemoved", "uuid": .string(uuid)]
        case .followingGroup(let groupId, let role):
            ["event": "followingGroup", "groupId": .string(groupId), "role": .string(role.rawValue)]
        case .stoppedFollowing(let groupId): ["event": "stoppedFollowing", "groupId": .string(groupId)]
        case .leftGroupSession(let groupId): ["event": "leftGroupSession", "groupId": .string(groupId)]
        }
    }
}
