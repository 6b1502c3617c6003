import CastDevice
import CastScenario
import CastSimulator
import CastWire

/// `GET /api/v1/state`: the device as a sender would see it, and more, as JSON.
enum StateView {
    /// How many of the newest messages on an app's namespace its panel shows.
    static let panelEventCount = 20

    /// `panelEvents`: the newest messages the device sent on the running app's panel's
    /// namespace (``AppPanel/eventsNamespace``), oldest first.
    static func json(_ snapshot: DeviceSnapshot, clock: (mode: ClockMode, time: SimTime), panelEvents: [JournalEntry],
                     discovery: DiscoveryStatus) -> JSONValue {
        let identity = snapshot.identity
        var links: [ConnectionID: [JSONValue]] = [:]
        for sender in snapshot.senders {
            links[sender.link.connection, default: []].append([
                "senderId": .string(sender.link.peerId), "endpoint": .string(sender.link.localId),
                "type": .string(sender.type.name), "userAgent": sender.userAgent.map(JSONValue.string) ?? nil,
            ])
        }
        var state: [String: JSONValue] = [
            "time": .number(snapshot.time.seconds),
            "clock": ClockView.json(clock),
            "device": [
                "name": .string(identity.friendlyName), "model": .string(identity.modelName),
                "manufacturer": .string(identity.manufacturer), "uuid": .string(identity.uuid), "udn": .string(identity.dashedUUID),
                "advertised": .bool(discovery.advertised), "deviceAuth": .string(snapshot.deviceAuth.rawValue),
                "standby": .bool(snapshot.isStandBy),
            ],
            "discovery": DiscoveryView.json(discovery),
            "volume": snapshot.volume.json,
            "app": snapshot.runningApp.map(app) ?? nil,
            "connections": .array(snapshot.connections.map { id in
                ["id": .number(Double(id.rawValue)), "senders": .array(links[id] ?? [])]
            }),
            "media": snapshot.media.map(media) ?? nil,
        ]
        // Every app's panel has its member, null but for the running app's.
        for panel in AppRegistry.builtIn.panels { state[panel.key] = .null }
        if let app = snapshot.runningApp, let panel = app.panel, let own = app.state.panel {
            state[panel.key] = own.replacing("lastEvents", with: .array(panelEvents.map(JournalView.json)))
        }
        return .object(state)
    }

    static func app(_ app: RunningAppSnapshot) -> JSONValue {
        [
            "appId": .string(app.appId), "displayName": .string(app.displayName), "sessionId": .string(app.sessionId),
            "transportId": .string(app.transportId), "namespaces": .array(app.namespaces.map(JSONValue.string)),
            "idleScreen": .bool(app.isIdleScreen),
            "panel": app.panel.map { ["key": .string($0.key), "title": .string($0.title)] } ?? nil,
        ]
    }

    static func media(_ media: MediaSnapshot) -> JSONValue {
        func number(_ value: Int?) -> JSONValue { value.map { .number(Double($0)) } ?? nil }
        return [
            "mediaSessionId": .number(Double(media.mediaSessionId)),
            "playerState": .string(media.playerState.rawValue),
            "phase": .string(media.phase.rawValue),
            "currentTime": .number(media.currentTime),
            "playbackRate": .number(media.playbackRate),
            "repeatMode": .string(media.repeatMode.rawValue),
            "currentItemId": .number(Double(media.currentItemId)),
            "loadingItemId": number(media.loadingItemId),
            "preloadedItemId": number(media.preloadedItemId),
            "activeTrackIds": .array(media.activeTrackIds.map { .number(Double($0)) }),
            "volume": media.streamVolume.json,
            "bufferingUntil": media.bufferingUntil.map { .number($0.seconds) } ?? nil,
            "liveSeekableRange": media.liveSeekableRange.map { ["start": .number($0.lowerBound), "end": .number($0.upperBound)] } ?? nil,
            "customData": media.customData ?? nil,
            "items": .array(media.items.map(\.json)),
            "textTrackStyle": media.textTrackStyle ?? nil,
            // The bits and their CAF names, as the status says them to senders.
            "supportedMediaCommands": .number(Double(media.supportedMediaCommands.rawValue)),
            "supportedMediaCommandNames": .array(media.supportedMediaCommands.commandNames.map(JSONValue.string)),
            "breakStatus": media.breakStatus ?? nil,
        ]
    }
}

/// The clock as the API shows it.
enum ClockView {
    static func json(_ clock: (mode: ClockMode, time: SimTime)) -> JSONValue {
        let speed: JSONValue = if case .scaled(let factor) = clock.mode { .number(factor) } else { nil }
        return ["mode": .string(clock.mode.name), "speed": speed, "time": .number(clock.time.seconds)]
    }
}

extension VirtualConnectionType {
    /// The name CONNECT's `connType` numbers stand for.
    var name: String {
        switch self {
        case .strong: "strong"
        case .weak: "weak"
        case .invisible: "invisible"
        }
    }
}
