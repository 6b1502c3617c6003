import CastWire

/// Something that happened on the device, at the simulated time it happened.
///
/// The core raises these as it changes, beside the messages it sends; the scenario engine
/// triggers on them, and the journal, the control API, the dashboard and the recorder read
/// the same stream. Each is raised exactly once: a change to the same value raises nothing.
public struct DeviceEvent: Sendable, Equatable, CustomStringConvertible {
    public var time: SimTime
    public var kind: Kind

    public init(time: SimTime, kind: Kind) {
        self.time = time
        self.kind = kind
    }

    public enum Kind: Sendable, Equatable {
        /// A sender opened a transport connection (a TLS socket).
        case connectionOpened(ConnectionID)
        /// A transport connection is gone.
        case connectionClosed(ConnectionID, reason: ConnectionCloseReason)
        /// A sender endpoint CONNECTed to `receiver-0` or to an app.
        case senderConnected(VirtualConnection, VirtualConnectionType, userAgent: String?)
        /// A virtual connection ended: CLOSE from the sender, its app stopped, its socket closed.
        case senderDisconnected(VirtualConnection)
        case appLaunched(AppInstance)
        case appStopped(AppInstance)
        /// A media session's first item loaded: it plays (or is paused). A load that fails
        /// or is superseded before that starts no session.
        case mediaSessionStarted(mediaSessionId: Int, itemId: Int)
        /// A started media session ended: STOP, the end of the queue, an error, a newer load, the app stopping.
        case mediaSessionEnded(mediaSessionId: Int, reason: IdleReason)
        /// Another item of the queue loaded and became current.
        case itemChanged(mediaSessionId: Int, itemId: Int)
        case playerStateChanged(mediaSessionId: Int, from: PlayerPhaseName, to: PlayerPhaseName)
        /// The device (receiver) volume.
        case volumeChanged(Volume)
        /// A media session's stream volume.
        case streamVolumeChanged(mediaSessionId: Int, Volume)
        case playbackRateChanged(mediaSessionId: Int, rate: Double)
        case activeTracksChanged(mediaSessionId: Int, trackIds: [Int])
        case textTrackStyleChanged(mediaSessionId: Int, style: JSONValue?)
        /// Stream transfer: the media session went to `peer` (outgoing) or came from it.
        case sessionTransferred(peer: String, outgoing: Bool)
        /// An ad break's clip started playing (`breakId` nil: the break is over).
        case adBreakChanged(mediaSessionId: Int, breakId: String?, clipId: String?)
        case standbyChanged(Bool)
        /// The TV switched to the device's input (true) or away from it.
        case activeInputChanged(Bool)
        /// The device was withdrawn from discovery, or restored (maybe elsewhere).
        case advertisementChanged(AdvertisementChange)
        /// A fault the scenario applied (raised by the scenario session, not the core).
        case faultApplied(Fault)
        /// No handler took a sender's message: it was dropped, or accepted unanswered.
        case messageUnhandled(ConnectionID, namespace: String, reason: String)
        /// Speaker groups: a member's volume asked for on a group endpoint, a member list
        /// changed, a member following its group's session or leaving it.
        case multizone(MultizoneEvent)
        /// A Cast Streaming (mirroring) session negotiates, starts, is refused or ends.
        case streaming(StreamingEvent)
    }

    public var description: String { "\(time) \(kind)" }
}

extension DeviceEvent.Kind: CustomStringConvertible {
    /// One line a person reads in a log: `itemChanged session 1 item 3`.
    public var description: String {
        switch self {
        case .connectionOpened(let id): "connectionOpened \(id)"
        case .connectionClosed(let id, let reason): "connectionClosed \(id) (\(reason == .idleTimeout ? "idle timeout" : "closed"))"
        case .senderConnected(let link, let type, let userAgent):
            "senderConnected \(link.peerId) → \(link.localId) on \(link.connection) (\(type)\(userAgent.map { ", \($0)" } ?? ""))"
        case .senderDisconnected(let link): "senderDisconnected \(link.peerId) → \(link.localId) on \(link.connection)"
        case .appLaunched(let app): "appLaunched \(app.appId) \(app.displayName) session \(app.sessionId)"
        case .appStopped(let app): "appStopped \(app.appId) \(app.displayName) session \(app.sessionId)"
        case .mediaSessionStarted(let id, let itemId): "mediaSessionStarted session \(id) item \(itemId)"
        case .mediaSessionEnded(let id, let reason): "mediaSessionEnded session \(id) (\(reason.rawValue))"
        case .itemChanged(let id, let itemId): "itemChanged session \(id) item \(itemId)"
        case .playerStateChanged(let id, let from, let to): "playerStateChanged session \(id) \(from.rawValue) → \(to.rawValue)"
        case .volumeChanged(let volume): "volumeChanged \(volume.level)\(volume.muted ? " muted" : "")"
        case .streamVolumeChanged(let id, let volume): "streamVolumeChanged session \(id) \(volume.level)\(volume.muted ? " muted" : "")"
        case .playbackRateChanged(let id, let rate): "playbackRateChanged session \(id) \(rate)"
        case .activeTracksChanged(let id, let trackIds): "activeTracksChanged session \(id) \(trackIds)"
        case .textTrackStyleChanged(let id, let style): "textTrackStyleChanged session \(id) \(style?.jsonText() ?? "none")"
        case .sessionTransferred(let peer, let outgoing): outgoing ? "session moved to \(peer)" : "session came from \(peer)"
        case .adBreakChanged(let id, let breakId, let clipId):
            breakId.map { "adBreakChanged session \(id) break \($0) clip \(clipId ?? "none")" } ?? "adBreakChanged session \(id) break over"
        case .standbyChanged(let standby): "standbyChanged \(standby)"
        case .activeInputChanged(let active): "activeInputChanged \(active)"
        case .advertisementChanged(let change): "advertisement \(change)"
        case .faultApplied(let fault): "faultApplied \(fault)"
        case .messageUnhandled(let id, let namespace, let reason): "messageUnhandled \(namespace) on \(id): \(reason)"
        case .multizone(let event): "multizone \(event)"
        case .streaming(let event): "streaming \(event)"
        }
    }
}

/// Why a transport connection ended.
public enum ConnectionCloseReason: Sendable, Equatable {
    /// The sender closed it, or the runtime lost it.
    case closed
    /// The device closed it: nothing heard for the idle timeout.
    case idleTimeout
}

/// One launch of an app, as events and snapshots name it.
public struct AppInstance: Sendable, Equatable {
    public var appId: String
    public var displayName: String
    public var sessionId: String
    public var transportId: String
    public var isIdleScreen: Bool
    /// RECEIVER_STATUS `statusText`: empty on an idle screen, else the app's own or its name.
    public var statusText: String

    public init(appId: String, displayName: String, sessionId: String, transportId: String, isIdleScreen: Bool,
                statusText: String? = nil) {
        self.appId = appId
        self.displayName = displayName
        self.sessionId = sessionId
        self.transportId = transportId
        self.isIdleScreen = isIdleScreen
        self.statusText = Self.statusText(statusText, isIdleScreen: isIdleScreen, displayName: displayName)
    }

    /// The `statusText` of an app that says `own` (nil: nothing of its own).
    package static func statusText(_ own: String?, isIdleScreen: Bool, displayName: String) -> String {
        own ?? (isIdleScreen ? "" : displayName)
    }
}

/// The player's phase, as events and snapshots name it. While loading, senders see
/// `playerState` IDLE (with `extendedStatus` LOADING for a session's first item).
public enum PlayerPhaseName: String, Sendable, Equatable, CaseIterable {
    case idle, loading, playing, paused, buffering
}

/// A fault a scenario (or, later, the control API) applies to the device's connections.
public enum Fault: Sendable, Equatable {
    /// Close a connection, cleanly or with a TCP reset.
    case closeConnection(ConnectionID, reset: Bool)
    /// Write bytes that are no valid frame.
    case sendFrame(ConnectionID, RawFrame)
    /// Neither PING nor PONG until `until`.
    case stopHeartbeats(until: SimTime)
    /// Answer nothing until `until`.
    case unresponsive(until: SimTime)
    /// Everything sent (to `connection` alone, when given) is held back `by` seconds, until `until`.
    case delayReplies(by: Double, until: SimTime, connection: ConnectionID?)
}

/// Bytes no well-behaved receiver sends, for testing a sender's robustness.
public enum RawFrame: String, Sendable, Equatable, CaseIterable {
    /// A frame whose body is not a CastMessage.
    case malformed
    /// A header declaring a body over the 64 KiB limit.
    case oversized
}
