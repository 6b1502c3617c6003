import CastWire

// What a member's own endpoint shows while its group plays (castv2-groups.md §3.3,
// §7 items 10–11): not the group's app but a stand-in that points senders at the group.
// pychromecast joins the stand-in's transport, asks media GET_STATUS, gets `status: []`
// (player state UNKNOWN), and HA then shows the group's media state on the member.

extension AppBehaviour {
    /// The leader's stand-in for the group's app (`531A4F84`).
    public static let multizoneLeader = AppBehaviour(rawValue: "multizoneLeader")
    /// A follower's stand-in for the group's app (`705D30C6`).
    public static let multizoneFollower = AppBehaviour(rawValue: "multizoneFollower")
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
    /// leader's entry has namespaces and a transport is open (§8): castsim gives it both,
    /// so a sender that joins it gets the same empty media status as on a follower.
    static func multizoneMember(_ role: GroupMemberRole, displayName: String) -> CastAppDefinition {
        switch role {
        case .leader:
            CastAppDefinition(appId: multizoneLeaderAppId, displayName: displayName, namespaces: [CastNamespace.media],
                              behaviour: .multizoneLeader, allowedMediaCommands: [])
        case .follower:
            CastAppDefinition(appId: multizoneFollowerAppId, displayName: displayName, namespaces: [CastNamespace.media],
                              behaviour: .multizoneFollower, allowedMediaCommands: [])
        }
    }
}

/// The leader's `531A4F84`: media GET_STATUS answered with an empty status list.
package struct MultizoneLeaderApp: CastApp {
    package static let behaviour = AppBehaviour.multizoneLeader
    private let definition: CastAppDefinition

    package init(launch: AppLaunch) { definition = launch.definition }

    package mutating func receive(_ message: AppMessage, context: inout AppContext) {
        MultizoneMemberMedia.receive(message, app: definition, context: &context)
    }
}

/// A follower's `705D30C6`: media GET_STATUS answered with an empty status list.
package struct MultizoneFollowerApp: CastApp {
    package static let behaviour = AppBehaviour.multizoneFollower
    private let definition: CastAppDefinition

    package init(launch: AppLaunch) { definition = launch.definition }

    package mutating func receive(_ message: AppMessage, context: inout AppContext) {
        MultizoneMemberMedia.receive(message, app: definition, context: &context)
    }
}

/// The media channel of a member's stand-in: it has no media session of its own (the
/// group's is on the group endpoint), so GET_STATUS is `{"type":"MEDIA_STATUS","status":[],
/// "requestId":N}` to the requester (HA #38535, pychromecast #111). Other media requests
/// are taken unanswered: what a real member answers to them is not known.
enum MultizoneMemberMedia {
    static func receive(_ message: AppMessage, app definition: CastAppDefinition, context: inout AppContext) {
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
