import CastWire

extension AppBehaviour {
    /// Yle Areena's receiver: a media receiver whose LOAD names the programme in customData.
    public static let yleAreena = AppBehaviour(rawValue: "yleAreena")
}

extension CastAppDefinition {
    /// Yle Areena, `A9BCCB7C` (docs/protocol/receivers.md §5).
    public static let yleAreena = CastAppDefinition(appId: "A9BCCB7C", displayName: "Yle Areena",
                                                    namespaces: defaultMediaReceiver.namespaces, behaviour: .yleAreena)
}

/// Yle Areena: a media receiver, except that its senders' LOAD has no `contentId`. The
/// programme is `media.customData.mediaInfo.entryId`, which the real receiver resolves with
/// Yle's servers before it plays; castsim plays that id.
package struct YleAreenaApp: MediaApp {
    package static let behaviour = AppBehaviour.yleAreena
    package static let plugin = AppPlugin(catalog: [.yleAreena], requiredNamespaces: CastAppDefinition.yleAreena.namespaces)

    private let definition: CastAppDefinition
    package var media: MediaReceiver

    package init(launch: AppLaunch) {
        definition = launch.definition
        media = MediaReceiver(MediaSettings(launch))
    }

    package mutating func receive(_ message: AppMessage, context: inout AppContext) {
        receiveMediaOnly(message.envelope.namespace == CastNamespace.media ? Self.resolvingEntry(message) : message, app: definition,
                         context: &context)
    }

    /// The LOAD as the receiver's own load handler makes it: `contentId` from the entry id.
    static func resolvingEntry(_ message: AppMessage) -> AppMessage {
        guard message.payload?["type"] == "LOAD", case .object(var fields)? = message.payload,
              case .object(var media)? = fields["media"], media["contentId"] == nil, media["contentUrl"] == nil,
              let entry = media["customData"]?["mediaInfo"]?["entryId"], entry.stringValue != nil || entry.intValue != nil
        else { return message }
        media["contentId"] = .string(entry.stringValue ?? String(entry.intValue!))
        fields["media"] = .object(media)
        return AppMessage(envelope: message.envelope, payload: .object(fields), connection: message.connection)
    }
}
