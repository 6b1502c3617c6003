import CastWire

extension AppBehaviour {
    /// YouTube's receiver, as far as a sender can get without YouTube's servers.
    public static let youTube = AppBehaviour(rawValue: "youTube")
}

extension CastAppDefinition {
    /// YouTube, `233637DE`: on every video device; speakers do not have it (a profile's
    /// `apps.unavailable`).
    public static let youTube = CastAppDefinition(appId: "233637DE", displayName: "YouTube",
                                                  namespaces: [YouTubeApp.namespace, CastNamespace.media], behaviour: .youTube)
}

/// YouTube: the first step of its protocol, the one that needs no internet. A sender asks
/// for the screen id (`getMdxSessionStatus`) and then pairs through YouTube's lounge
/// servers with it; castsim answers the screen id, stable per session. Playback itself is
/// driven by YouTube's servers, which castsim is not, so its media namespace answers nothing.
package struct YouTubeApp: CastApp {
    package static let behaviour = AppBehaviour.youTube
    package static let plugin = AppPlugin(catalog: [.youTube], requiredNamespaces: [namespace])
    package static let namespace = "urn:x-cast:com.google.youtube.mdx"

    private let definition: CastAppDefinition
    private let screenId: String

    package init(launch: AppLaunch) {
        definition = launch.definition
        screenId = "castsim-" + launch.sessionId.replacingOccurrences(of: "-", with: "").prefix(20)
    }

    package var statusText: String? { "YouTube TV" }

    package mutating func receive(_ message: AppMessage, context: inout AppContext) {
        guard message.envelope.namespace == Self.namespace, message.payload?["type"] == "getMdxSessionStatus" else {
            context.acceptWithoutAnswer(message, app: definition)
            return
        }
        let requestId = message.payload?["requestId"]?.intValue ?? 0
        context.send(JSONPayload(["type": "mdxSessionStatus", "requestId": .number(Double(requestId)),
                                  "data": ["screenId": .string(screenId), "deviceId": .string(String(screenId.suffix(12)))]]),
                     namespace: Self.namespace, to: message.requester(requestId: requestId))
    }
}
