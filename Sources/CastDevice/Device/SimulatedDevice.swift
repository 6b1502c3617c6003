import CastWire
import Foundation

/// The simulated Cast device as a deterministic state machine: the platform (`receiver-0`,
/// virtual connections, heartbeat, device auth) and the app it runs.
///
/// Inputs are connection events, messages, operator inputs, heartbeats due and the passage
/// of time, each with `now`; outputs are ``DeviceOutput``s: messages, closes, log lines and
/// typed events. It never touches a socket or a clock, so a test of "the item ends after
/// its duration" is a call to ``advance(to:)``, not a sleep.
///
/// A sender's liveness (the device's PINGs, the idle timeout) is not simulation time: it
/// belongs to the real connection, so the runtime measures it on its own clock
/// (``HeartbeatSchedule``) and says here what is due (``heartbeatDue(_:on:now:)``).
package struct SimulatedDevice: Sendable, DeadlineDriven {
    package let configuration: DeviceConfiguration
    /// ``DeviceConfiguration/effectiveQuirks``, read once.
    let quirks: DeviceQuirks
    let authority: (any DeviceAuthority)?
    let registry: AppRegistry

    var virtualConnections = VirtualConnectionTable()
    /// The transport connections open now.
    var sockets: Set<ConnectionID> = []
    var ids: IdentifierGenerator
    /// What the device has said since it was last asked.
    var outbox = Outbox()
    package var now: SimTime

    /// Device volume (receiver namespace), distinct from each media session's stream volume.
    package internal(set) var volume: Volume
    package internal(set) var runningApp: RunningApp?
    /// The TV is in standby (video devices): `isStandBy` true, `isActiveInput` false.
    package internal(set) var isStandBy = false
    /// The TV shows another input: `isActiveInput` false although it is not in standby.
    package internal(set) var isOtherInput = false
    /// Last `mediaSessionId` handed out; they increase for the life of the device.
    var lastMediaSessionId = 0
    /// The last RECEIVER_STATUS `status` built, and its text (``receiverStatusMessage(requestId:)``).
    var receiverStatusCache: ReceiverStatusCache?
    /// Whether the device is in senders' device pickers (``AdvertisementChange``).
    package internal(set) var isAdvertised = true
    /// How device-auth challenges are answered now (a scenario step may change it).
    package internal(set) var deviceAuthMode: DeviceAuthMode
    /// The TLS certificate each connection was presented, when the runtime said (it is
    /// renewed on a long-running device, so connections differ).
    var tlsCertificates: [ConnectionID: Data] = [:]
    /// The device's own entry in multizone messages, but its volume: made once, since a
    /// DEVICE_UPDATED about itself follows every volume change (normalizing and dashing
    /// the UUID each time was most of that message's cost).
    let ownMultizoneEntry: [String: JSONValue]
    /// Speaker groups: a group endpoint's members, the group session a member mirrors.
    var multizone = MultizoneState()
    /// When a sender last spoke to the running app (or it launched): a quirk closes an app
    /// left idle (``DeviceQuirks/Apps/idleTimeout``).
    var appHeardAt: SimTime = .zero
    /// The Cast service was dropped from discovery by a quirk (once).
    package internal(set) var castDropped = false

    package init(configuration: DeviceConfiguration, authority: (any DeviceAuthority)? = nil,
                 apps registry: AppRegistry = .builtIn, now: SimTime = .zero) {
        self.configuration = configuration
        quirks = configuration.effectiveQuirks
        self.authority = authority
        self.registry = registry
        self.now = now
        self.volume = Volume(level: configuration.initialVolume.clamped(to: 0...1), muted: configuration.initiallyMuted)
        self.deviceAuthMode = configuration.deviceAuth
        ownMultizoneEntry = MultizoneMember(identity: configuration.identity, volume: Volume(level: 0, muted: false)).entryWithoutVolume
        var seed: UInt64 = 0xC457_5117
        for byte in configuration.identity.uuid.utf8 { seed = (seed &* 31) &+ UInt64(byte) }
        self.ids = IdentifierGenerator(seed: seed)
        self.multizone = MultizoneState(configuration.multizone)
        returnToIdleScreen()
    }

    // MARK: Inputs

    /// A sender opened a transport connection, presented with `tlsCertificateDER` (device
    /// auth signs over it; nil: the authority's current one).
    package mutating func connectionOpened(_ connection: ConnectionID, now: SimTime, tlsCertificateDER: Data? = nil)
        -> [DeviceOutput]
    {
        self.now = max(self.now, now)
        sockets.insert(connection)
        if let tlsCertificateDER { tlsCertificates[connection] = tlsCertificateDER }
        raise(.connectionOpened(connection))
        return drain()
    }

    /// A transport connection is gone: its virtual connections go with it.
    package mutating func connectionClosed(_ connection: ConnectionID, now: SimTime) -> [DeviceOutput] {
        self.now = max(self.now, now)
        forget(connection, reason: .closed)
        return drain()
    }

    /// One message from a sender.
    package mutating func receive(_ envelope: CastEnvelope, on connection: ConnectionID, now: SimTime) -> [DeviceOutput] {
        receive(envelope, payload: envelope.utf8.flatMap { try? JSONValue.parse($0) }, on: connection, now: now)
    }

    /// One message from a sender whose JSON payload the caller has already parsed (nil when
    /// it is not JSON), so it is parsed once however many layers look at it.
    package mutating func receive(_ envelope: CastEnvelope, payload: JSONValue?, on connection: ConnectionID,
                                  now: SimTime) -> [DeviceOutput] {
        self.now = max(self.now, now)
        guard sockets.contains(connection) else {
            unhandled(envelope, on: connection, .warning, "message on unknown connection dropped")
            return drain()
        }
        route(envelope, payload: payload, on: connection)
        return drain()
    }

    /// Time passed: the app's own deadlines (playback reaching the end, loads completing).
    package mutating func advance(to target: SimTime) -> [DeviceOutput] {
        runDeadlines(until: target)
        return drain()
    }

    /// The next time at which ``advance(to:)`` has something to do, if any.
    package var nextDeadline: SimTime? {
        let app = runningApp?.app.nextDeadline(now: now)
        // Asked after every input: the quirks' deadlines only when a quirk is on.
        guard quirks.apps.idleTimeout != nil || quirks.mdns.dropCastAfter != nil else { return app }
        func earlier(_ a: SimTime?, _ b: SimTime?) -> SimTime? { a.map { a in b.map { min(a, $0) } ?? a } ?? b }
        return earlier(earlier(app, idleAppDeadline), castDropDeadline)
    }

    package mutating func handleDue() {
        withRunningApp { app, context in app.advance(context: &context) }
        if let drop = castDropDeadline, drop <= now {
            castDropped = true
            log(.info, nil, "the Cast service leaves discovery (quirks.mdns.dropCastAfter)")
            changeAdvertisement(.dropCast)
        }
        if let idle = idleAppDeadline, idle <= now, let running = runningApp {
            log(.info, nil, "\(running.definition.displayName) closed: idle for \(NumberText.format(quirks.apps.idleTimeout ?? 0)) s (quirks.apps.idleTimeout)")
            stopRunningApp()
            returnToIdleScreen()
            broadcastReceiverStatus(answering: nil)
        }
    }

    /// When a quirk drops the Cast service from discovery, until it has.
    private var castDropDeadline: SimTime? {
        guard let after = quirks.mdns.dropCastAfter, !castDropped else { return nil }
        return SimTime(seconds: after)
    }

    /// When the running app is closed for being idle: it is no idle screen, plays nothing
    /// (a dashboard, a web page, a stopped player), and a quirk says how long it may wait.
    private var idleAppDeadline: SimTime? {
        guard let timeout = quirks.apps.idleTimeout, let running = runningApp, !running.app.isIdleScreen else { return nil }
        if let media = running.app.snapshot(at: now).media, media.playerState != .idle { return nil }
        return appHeardAt + timeout
    }

    package mutating func warn(_ message: LogMessage) {
        log(.warning, nil, message)
    }

    /// The transport connections the device knows, in order.
    package var openConnections: [ConnectionID] { sockets.sorted() }

    // MARK: Routing

    private mutating func route(_ envelope: CastEnvelope, payload: JSONValue?, on connection: ConnectionID) {
        // A sender's message names the endpoint it comes from and the one it is for: with an
        // empty id, or the broadcast as its source, an answer would have no address (and
        // Chromium refuses a message with an empty id).
        guard !envelope.sourceId.isEmpty, envelope.sourceId != CastEndpoint.broadcast, !envelope.destinationId.isEmpty else {
            unhandled(envelope, on: connection, .info,
                      "dropped message from \"\(envelope.sourceId)\" to \"\(envelope.destinationId)\": a sender's message needs its own endpoint id (not \"*\") and its destination's")
            return
        }
        switch envelope.namespace {
        case CastNamespace.connection:
            handleConnectionNamespace(envelope, payload: payload, on: connection)
        case CastNamespace.heartbeat:
            handleHeartbeat(envelope, payload: payload, on: connection)
        case CastNamespace.deviceAuth:
            handleDeviceAuth(envelope, on: connection)
        default:
            let link = VirtualConnection(connection: connection, localId: envelope.destinationId, peerId: envelope.sourceId)
            guard CastNamespace.isTransport(envelope.namespace) || virtualConnections.contains(link) else {
                unhandled(envelope, on: connection, .info,
                          "dropped \(envelope.namespace) message from \(envelope.sourceId) to \(envelope.destinationId): no CONNECT to that endpoint")
                return
            }
            routeToEndpoint(envelope, payload: payload, on: connection)
        }
    }

    /// receiver-0 takes the receiver and multizone namespaces; every other endpoint is a running app's
    /// transport id, and the app takes every namespace it declares.
    private mutating func routeToEndpoint(_ envelope: CastEnvelope, payload: JSONValue?, on connection: ConnectionID) {
        if envelope.destinationId == CastEndpoint.platformReceiver {
            switch envelope.namespace {
            case CastNamespace.receiver:
                handleReceiverNamespace(envelope, payload: payload, on: connection)
            case CastNamespace.multizone:
                handleMultizoneNamespace(envelope, payload: payload, on: connection)
            default:
                unhandled(envelope, on: connection, .info, "dropped \(envelope.namespace) message to receiver-0: not a platform namespace")
            }
            return
        }
        guard let running = runningApp, running.transportId == envelope.destinationId else {
            unhandled(envelope, on: connection, .info, "dropped message to \(envelope.destinationId): no running app has that transport id")
            return
        }
        guard running.definition.namespaces.contains(envelope.namespace) else {
            unhandled(envelope, on: connection, .info,
                      "dropped \(envelope.namespace) message: \(running.definition.displayName) does not declare it")
            return
        }
        let message = AppMessage(envelope: envelope, payload: payload, connection: connection)
        appHeardAt = now
        withRunningApp { app, context in app.receive(message, context: &context) }
    }

    /// Runs `body` on the running app with a fresh context, then passes on what it said.
    /// The app hears each event it raised, right after it, as it hears the platform's
    /// (``raise(_:)``); `listening` is true while it handles one, and what it raises then
    /// goes to everyone else but not back to it, which could go on forever.
    mutating func withRunningApp(listening: Bool = false, _ body: (inout any CastApp, inout AppContext) -> Void) {
        guard let transportId = runningApp?.transportId else { return }
        var context = AppContext(now: now, transportId: transportId, deviceVolume: volume, ids: ids,
                                 lastMediaSessionId: lastMediaSessionId, connections: virtualConnections,
                                 isolateRequestIds: configuration.isolateRequestIds)
        body(&runningApp!.app, &context)
        ids = context.ids
        lastMediaSessionId = context.lastMediaSessionId
        for output in context.outbox.outputs {
            outbox.append(output)
            if !listening, case .event(let event) = output { letRunningAppHear(event.kind) }
        }
        // The app's own status text changed ("Application ready"): senders waiting for it
        // hear of it in an unsolicited RECEIVER_STATUS.
        if context.changedStatusText, runningApp?.transportId == transportId { broadcastReceiverStatus(answering: nil) }
    }

    /// The running app hears of an event, if it listens to the device's events.
    private mutating func letRunningAppHear(_ kind: DeviceEvent.Kind) {
        guard runningApp?.app.observesDeviceEvents == true else { return }
        withRunningApp(listening: true) { app, context in app.observe(kind, context: &context) }
    }

    // MARK: Outputs

    mutating func drain() -> [DeviceOutput] { outbox.take() }

    mutating func log(_ level: DeviceLogEvent.Level, _ connection: ConnectionID?, _ message: LogMessage) {
        outbox.log(level, connection, message)
    }

    /// A sender's message no handler takes: logged, and raised so the journal can say so.
    mutating func unhandled(_ envelope: CastEnvelope, on connection: ConnectionID, _ level: DeviceLogEvent.Level, _ message: LogMessage) {
        let line = DeviceLogEvent(level, connection, message)
        outbox.append(.log(line))
        raise(.messageUnhandled(connection, namespace: envelope.namespace, reason: line.message))
    }

    /// Something happened: it goes out with the messages, and the running app hears of it.
    mutating func raise(_ kind: DeviceEvent.Kind) {
        outbox.append(.event(DeviceEvent(time: now, kind: kind)))
        letRunningAppHear(kind)
    }

    mutating func reply(_ payload: JSONPayload, to requester: Requester, from localId: String, namespace: String) {
        outbox.reply(payload, to: requester, from: localId, namespace: namespace)
    }

    mutating func send(_ payload: JSONPayload, from localId: String, to peerId: String, on connection: ConnectionID,
                       namespace: String) {
        outbox.send(payload, from: localId, to: peerId, on: connection, namespace: namespace)
    }

    /// Sends a payload from `localId` to every socket connected to it, destination `*`.
    mutating func broadcast(from localId: String, namespace: String, _ payload: JSONPayload, answering requester: Requester?) {
        outbox.broadcast(payload, from: localId, namespace: namespace, to: virtualConnections.subscribers(of: localId),
                         answering: requester, isolatingRequestIds: configuration.isolateRequestIds)
    }
}

/// A level in 0...1 and a mute flag, for the device and for media streams.
public struct Volume: Sendable, Equatable, Codable {
    public var level: Double
    public var muted: Bool

    public init(level: Double, muted: Bool) {
        self.level = level
        self.muted = muted
    }

    /// `{"level": ..., "muted": ...}`, as MEDIA_STATUS carries a stream's volume.
    public var json: JSONValue { ["level": .number(level), "muted": .bool(muted)] }
}

extension Comparable {
    func clamped(to range: ClosedRange<Self>) -> Self { min(max(self, range.lowerBound), range.upperBound) }
}
