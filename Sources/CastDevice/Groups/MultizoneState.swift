/// What an endpoint keeps about speaker groups, beside the rest of the device.
struct MultizoneState: Sendable {
    /// The session a member mirrors, and as what.
    struct Following: Sendable, Equatable {
        var session: GroupSession
        var role: GroupMemberRole
    }

    /// On a group endpoint: the members online, in the order they came. Empty on a device,
    /// which lists itself (``SimulatedDevice/multizoneDevices``).
    var members: [MultizoneMember] = []
    /// On a stereo pair's group endpoint: MULTIZONE_STATUS says `isMultichannel`.
    var isMultichannel = false
    /// On a member: the group session it mirrors; nil when it plays for itself or idles.
    var following: Following?

    init(_ role: MultizoneRole = .device) {
        if case .group(let members, let multichannel) = role {
            self.members = members
            isMultichannel = multichannel
        }
    }
}
