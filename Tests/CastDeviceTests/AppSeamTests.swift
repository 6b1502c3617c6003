import CastDevice
import CastSimulatorTesting
import CastWire
import Testing

/// A test-only app: one namespace, answers every message with an ECHO, says TICK every 10 s
/// while it runs, and counts its ticks in its own state. It exists to prove that a new app
/// is a type and one registration, with nothing added to the platform.
struct EchoApp: CastApp {
    static let behaviour = AppBehaviour(rawValue: "echo")
    static let namespace = "urn:x-cast:test.echo"
    static let definition = CastAppDefinition(appId: "EC400001", displayName: "Echo", namespaces: [namespace], behaviour: behaviour)

    private var nextTick: SimTime
    private var ticks = 0

    init(launch: AppLaunch) { nextTick = launch.now + 10 }

    mutating func receive(_ message: AppMessage, context: inout AppContext) {
        let requestId = message.payload?["requestId"]?.intValue ?? 0
        context.send(JSONPayload(["type": "ECHO", "requestId": .number(Double(requestId)), "got": message.payload ?? .null]),
                     namespace: Self.namespace, to: message.requester(requestId: requestId))
    }

    func nextDeadline(now: SimTime) -> SimTime? { nextTick }

    mutating func advance(context: inout AppContext) {
        while nextTick <= context.now {
            ticks += 1
            context.broadcast(JSONPayload(["type": "TICK", "count": .number(Double(ticks))]), namespace: Self.namespace, answering: nil)
            nextTick = nextTick + 10
        }
    }

    mutating func stop(context: inout AppContext) {
        context.log(.info, nil, "echo stopped after \(ticks) ticks")
    }

    /// The remote's pause puts the next TICK off by 10 s, and says nothing; other inputs do nothing.
    mutating func apply(_ input: AppInput, context: inout AppContext) {
        if input == .remote(.pause) { nextTick = nextTick + 10 }
    }
}

@Suite("The app seam: a test-only app plugs in with one registration")
struct AppSeamTests {
    private func device() -> CastTestDevice {
        var apps = AppRegistry.builtIn
        apps.register(EchoApp.self)
        return CastTestDevice(configure: { configuration in
            configuration.apps.append(EchoApp.definition)
            configuration.heartbeatInterval = nil
            configuration.idleTimeout = nil
        }, apps: apps)
    }

    @Test("Launched by its app id: RECEIVER_STATUS lists it with its namespace, senders CONNECT to its transport")
    func launches() throws {
        var device = device()
        let (connection, transportId) = device.launch(EchoApp.definition.appId)
        let app = try #require(device.snapshot.runningApp)
        #expect(app.appId == "EC400001" && app.transportId == transportId && app.namespaces == [EchoApp.namespace])
        let status = device.send(connection, CastNamespace.receiver, ["type": "GET_STATUS", "requestId": 2])
        let entry = try #require(status.first?.json["status"]?["applications"]?.arrayValue?.first)
        #expect(entry["namespaces"] == [["name": .string(EchoApp.namespace)]] && entry["isIdleScreen"] == false)
        #expect(entry["senderConnected"] == true && entry["statusText"] == "Echo")
        #expect(device.events.contains { $0.kind == .appLaunched(AppInstance(
            appId: "EC400001", displayName: "Echo", sessionId: transportId, transportId: transportId, isIdleScreen: false)) })
    }

    @Test("Its namespace's messages reach it; its answers go back from its transport id to the sender")
    func routes() {
        var device = device()
        let (connection, transportId) = device.launch(EchoApp.definition.appId)
        device.connect(connection, from: "sender-7", to: transportId)
        let replies = device.send(connection, from: "sender-7", to: transportId, EchoApp.namespace, ["type": "HI", "requestId": 3])
        #expect(replies.count == 1)
        #expect(replies.first?.json == ["type": "ECHO", "requestId": 3, "got": ["type": "HI", "requestId": 3]])
        #expect(replies.first?.envelope.sourceId == transportId && replies.first?.envelope.destinationId == "sender-7")
        // A namespace it does not declare is dropped by the platform, not handed to it.
        #expect(device.send(connection, to: transportId, CastNamespace.media, ["type": "GET_STATUS", "requestId": 4]).isEmpty)
        #expect(device.logs.contains { $0.message.contains("Echo does not declare it") })
    }

    @Test("Its deadlines are the device's: TICKs arrive every 10 s, in order, inside one long advance")
    func deadlines() {
        var device = device()
        let (_, transportId) = device.launch(EchoApp.definition.appId)
        #expect(device.device.nextDeadline == SimTime(seconds: 10))
        let sent = device.advance(35)
        #expect(sent.map(\.json) == [["type": "TICK", "count": 1], ["type": "TICK", "count": 2], ["type": "TICK", "count": 3]])
        #expect(sent.allSatisfy { $0.envelope.sourceId == transportId && $0.isBroadcast })
        #expect(device.device.nextDeadline == SimTime(seconds: 40))
    }

    @Test("STOP stops it: it is told, its senders get CLOSE from its transport id, Backdrop returns")
    func stops() throws {
        var device = device()
        let (connection, transportId) = device.launch(EchoApp.definition.appId)
        device.advance(20)
        let replies = device.send(connection, CastNamespace.receiver, ["type": "STOP", "requestId": 5])
        #expect(replies.contains { $0.json == ["type": "CLOSE"] && $0.envelope.sourceId == transportId })
        #expect(device.logs.contains { $0.message == "echo stopped after 2 ticks" })
        #expect(device.snapshot.runningApp?.appId == CastAppDefinition.backdrop.appId)
        #expect(device.device.nextDeadline == nil)
    }

    @Test("An input is one the device would ignore only if the app ignores it: one that only moves the app's timer is not; the trial changes nothing")
    func ignoredInputs() {
        var device = device()
        device.launch(EchoApp.definition.appId)
        let launched = device.device
        let (play, buffer) = (launched.wouldIgnore(.remote(.play)), launched.wouldIgnore(.buffer(seconds: 2)))
        let (pause, volume) = (launched.wouldIgnore(.remote(.pause)), launched.wouldIgnore(.setDeviceVolume(level: 0.2, muted: nil)))
        #expect(play && buffer && !pause && !volume)
        #expect(device.device.nextDeadline == SimTime(seconds: 10) && device.snapshot.volume.level != 0.2)
        #expect(device.apply(.remote(.pause)).isEmpty && device.device.nextDeadline == SimTime(seconds: 20))
    }

    @Test("An app whose behaviour no registered app has cannot launch: LAUNCH_ERROR SYSTEM_ERROR")
    func unregistered() {
        var device = CastTestDevice { $0.apps.append(EchoApp.definition) }
        let connection = device.open(1)
        device.connect(connection)
        let replies = device.send(connection, CastNamespace.receiver, ["type": "LAUNCH", "appId": "EC400001", "requestId": 6])
        #expect(replies.map(\.json) == [["type": "LAUNCH_ERROR", "requestId": 6, "reason": "SYSTEM_ERROR", "appId": "EC400001"]])
    }
}
