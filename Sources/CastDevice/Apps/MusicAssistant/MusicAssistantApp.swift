import CastWire

extension AppBehaviour {
    /// Music Assistant's receiver: a media receiver with a namespace of its own
    /// (docs/protocol/receivers.md §7).
    public static let musicAssistant = AppBehaviour(rawValue: "musicAssistant")
}

extension CastAppDefinition {
    /// Music Assistant's receiver `C35B0678`. It allows the basic media commands and queue
    /// next and previous: 12495.
    public static let musicAssistant = CastAppDefinition(
        appId: "C35B0678", displayName: "Music Assistant", namespaces: [MusicAssistantApp.namespace, CastNamespace.media],
        behaviour: .musicAssistant, allowedMediaCommands: MediaCommands(rawValue: 12_495))
}

/// Music Assistant's receiver. Its media namespace is a media receiver's, but a queue jump
/// does not move the queue: Music Assistant's server owns the queue, so the receiver tells
/// every sender `player_command` next or previous and answers the request with the status
/// as it stands; the device's remote keys next and previous do the same. A PLAY's
/// `customData.metadata` becomes the current media's metadata. On its own
/// namespace it shows or hides a dashboard and answers `receiver_status`.
package struct MusicAssistantApp: MediaApp {
    package static let behaviour = AppBehaviour.musicAssistant
    package static let plugin = AppPlugin(catalog: [.musicAssistant], requiredNamespaces: [namespace, CastNamespace.media])
    package static let namespace = "urn:x-cast:io.music-assistant.cast"

    private let definition: CastAppDefinition
    package var media: MediaReceiver
    /// The dashboard shown over the player, as the sender named it (a URL, or a path).
    private var dashboard: String?

    package init(launch: AppLaunch) {
        definition = launch.definition
        media = MediaReceiver(MediaSettings(launch))
    }

    package mutating func receive(_ message: AppMessage, context: inout AppContext) {
        switch message.envelope.namespace {
        case Self.namespace:
            receiveDashboard(message, context: &context)
        case CastNamespace.media where message.payload?["type"] == "PLAY":
            applyMetadata(of: message, context: &context)
            media.receive(message, context: &context)
        case CastNamespace.media:
            guard message.payload?["type"] == "QUEUE_UPDATE", let jump = message.payload?["jump"]?.intValue, jump != 0,
                  case .object(var fields)? = message.payload else {
                media.receive(message, context: &context)
                return
            }
            tellCommand(jump > 0 ? "next" : "previous", context: &context)
            // The rest of the update as sent; the status answers the request.
            fields["jump"] = nil
            media.receive(AppMessage(envelope: message.envelope, payload: .object(fields), connection: message.connection),
                          context: &context)
        default:
            context.acceptWithoutAnswer(message, app: definition)
        }
    }

    private mutating func receiveDashboard(_ message: AppMessage, context: inout AppContext) {
        let payload = message.payload ?? .null
        switch payload["type"]?.stringValue {
        case "show_dashboard":
            // Two shapes are in use: `url`, or `remoteId`/`dashboardCode`/`path`.
            dashboard = payload["url"]?.stringValue ?? payload["path"]?.stringValue ?? payload["dashboardCode"]?.stringValue ?? "dashboard"
            context.log(.info, message.connection, "Music Assistant: showing dashboard \(dashboard!)")
        case "hide_dashboard":
            dashboard = nil
        default:
            context.acceptWithoutAnswer(message, app: definition)
            return
        }
        context.send(JSONPayload(["type": "receiver_status", "connected": true]), namespace: Self.namespace,
                     to: message.requester(requestId: 0))
    }

    /// In flow mode Music Assistant's server plays one endless stream and names each track by
    /// a PLAY whose `customData.metadata` the receiver puts on the current media: every
    /// sender sees the new metadata in a MEDIA_STATUS before the PLAY's own answer.
    private mutating func applyMetadata(of message: AppMessage, context: inout AppContext) {
        guard case .object? = message.payload?["customData"]?["metadata"], let metadata = message.payload?["customData"]?["metadata"],
              let session = media.mediaSessionId, message.payload?["mediaSessionId"]?.intValue == session else { return }
        media.changeCurrentMedia(context: &context) { $0.passthrough["metadata"] = metadata }
    }

    /// `player_command` to every sender: Music Assistant's server moves its own queue.
    private func tellCommand(_ command: String, context: inout AppContext) {
        context.broadcast(JSONPayload(["type": "player_command", "command": .string(command)]), namespace: Self.namespace,
                          answering: nil)
    }

    package mutating func apply(_ input: AppInput, context: inout AppContext) {
        if case .remote(let key) = input, key == .next || key == .previous {
            tellCommand(key.rawValue, context: &context)
            return
        }
        media.apply(input, context: &context)
    }
}
