import CastWire

// What a member's own endpoint shows while its group plays (docs/protocol/groups.md
// §3.3, §7 items 10–11): not the group's app but a stand-in that points senders at the group.
// pychromecast joins the stand-in's transport, asks media GET_STATUS, gets `status: []`
// (player state UNKNOWN), and HA then shows the group's media state on the member.

extension AppBehaviour {
    /// A member's stand-in for its group's app: the leader's `531A4F84` or a follower's
    /// `705D30C6`, told apart by app id; both behave alike.
    public static let multizoneMember = AppBehaviour(rawValue: "multizoneMember")
}

extension CastAppDefinition {
    /// `531A4F84`, chromium's "MultizoneLeader" (2018+ firmware; `MultizoneLeader` before).
    public static let multizoneLeaderAppId = "531A4F84"
    /// `705D30C6`, chromium's "MultizoneFollower".
    public static let multizoneFollowerAppId = "705D30C6"

    /// The stand-in a member runs as `role` while its group runs an app called
    /// `displayName`: real members show the group app's name as `displayName` and
    /// `statusText`. Built per session, never listed in ``DeviceConfiguration/apps``:
    /// senders cannot LAUNCH it, only the group's session starts it.
    ///
    /// Both carry the media namespace. Followers do on every firmware seen; whether the
    /// leader's entry has namespaces and a transport is open (groups.md §8): castsim gives it both,
    /// so a sender that joins it gets the same empty media status as on a follower.
    static func multizoneMember(_ role: GroupMemberRole, displayName: String) -> CastAppDefinition {
        CastAppDefinition(appId: multizoneAppId(role), displayName: displayName, namespaces: [CastNamespace.media],
                          behaviour: .multizoneMember, allowedMediaCommands: [])
    }

    /// The stand-in's app id for `role`.
    static func multizoneAppId(_ role: GroupMemberRole) -> String {
        role == .leader ? multizoneLeaderAppId : multizoneFollowerAppId
    }
}

/// A member's stand-in (either role). Its media channel has no media session of its own
/// (the group's is on the group endpoint), so GET_STATUS is `{"type":"MEDIA_STATUS",
/// "status":[],"requestId":N}` to the requester (HA #38535, pychromecast #111). Other media
/// requests are taken unanswered: what a real member answers to them is not known.
package struct MultizoneMemberApp: CastApp {
    package static let behaviour = AppBehaviour.multizoneMember
    private let definition: CastAppDefinition

    package init(launch: AppLaunch) { definition = launch.definition }

    package mutating func receive(_ message: AppMessage, context: inout AppContext) {
        guard message.envelope.namespace == CastNamespace.media,
              case .success(let header) = RequestHeader.read(message.payload), header.type == "GET_STATUS"
        else {
            context.acceptWithoutAnswer(message, app: definition)
            return
        }
        let requestId = header.answerId
        context.send(JSONPayload(["type": "MEDIA_STATUS", "status": [], "requestId": .number(Double(requestId))]),
                     namespace: CastNamespace.media, to: message.requester(requestId: requestId))
    }
}
