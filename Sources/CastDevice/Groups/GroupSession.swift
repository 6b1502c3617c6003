/// The session of the app a group endpoint runs, as its members mirror it on their own
/// endpoints while the group plays (docs/protocol/groups.md §3.3).
public struct GroupSession: Sendable, Equatable {
    /// The group's UUID, 32 lower-case hex (``DeviceIdentity/uuid`` of the group endpoint).
    public var groupId: String
    /// The group app's `sessionId`: the leader's `531A4F84` entry carries it.
    public var sessionId: String
    /// The group app's `displayName`, shown as the members' `displayName` and `statusText`.
    public var displayName: String

    public init(groupId: String, sessionId: String, displayName: String) {
        self.groupId = groupId
        self.sessionId = sessionId
        self.displayName = displayName
    }
}

/// What a member is in its group's session.
public enum GroupMemberRole: String, Sendable, Equatable, Codable {
    /// Hosts the group endpoint; its own endpoint shows `531A4F84` (MultizoneLeader).
    case leader
    /// Plays along; its own endpoint shows `705D30C6` (MultizoneFollower).
    case follower
}
