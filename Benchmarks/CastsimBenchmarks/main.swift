// castsim benchmarks: print figures, assert nothing. Run with
//   swift run -c release castsim-benchmarks
// Timings vary with the machine; compare runs on the same one.

import CastDevice
import CastScenario
import CastSimulator
import CastSimulatorTesting
import CastWire
import Foundation
import Logging

/// One line on standard output, unbuffered: figures appear as they are measured.
func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// `castsim-benchmarks WORD` runs only the lines whose name contains WORD.
let selection = CommandLine.arguments.dropFirst().first

func selected(_ name: String) -> Bool { selection.map { name.contains($0) } ?? true }

func measure(_ name: String, unit: String, count: Int, _ body: () throws -> Void) rethrows {
    guard selected(name) else { return }
    let start = ContinuousClock.now
    try body()
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let rate = Double(count) / seconds
    emit(name.padding(toLength: 60, withPad: " ", startingAt: 0)
         + String(format: "%12.0f %@/s   (%d in %.3f s)", rate, unit as NSString, count, seconds))
}

func device(heartbeats: Bool = false) -> SimulatedDevice {
    var configuration = DeviceConfiguration(identity: try! DeviceIdentity(uuid: "0123456789abcdef0123456789abcdef"))
    if !heartbeats {
        configuration.heartbeatInterval = nil
        configuration.idleTimeout = nil
    }
    return SimulatedDevice(configuration: configuration)
}

func envelope(_ source: String, _ destination: String, _ namespace: String, _ payload: JSONValue) -> CastEnvelope {
    CastEnvelope(sourceId: source, destinationId: destination, namespace: namespace, payload: .string(payload.jsonText()))
}

/// A device with `senders` connections, all connected to a running DMR.
func launched(senders: Int) -> (SimulatedDevice, String) {
    var device = device()
    for id in 1...senders {
        let connection = ConnectionID(UInt64(id))
        _ = device.connectionOpened(connection, now: .zero)
        _ = device.receive(envelope("sender-0", "receiver-0", CastNamespace.connection, ["type": "CONNECT"]), on: connection, now: .zero)
    }
    _ = device.receive(envelope("sender-0", "receiver-0", CastNamespace.receiver,
                                ["type": "LAUNCH", "appId": "CC1AD845", "requestId": 1]), on: ConnectionID(1), now: .zero)
    let transport = device.runningApp!.transportId
    for id in 1...senders {
        _ = device.receive(envelope("sender-0", transport, CastNamespace.connection, ["type": "CONNECT"]),
                           on: ConnectionID(UInt64(id)), now: .zero)
    }
    return (device, transport)
}

emit("castsim benchmarks (\(ProcessInfo.processInfo.activeProcessorCount) cores)")

// Lines that need no set-up name themselves in `measure`; the others check `selected` first.

// 1. Requests through the device core: PAUSE / PLAY alternating, one sender.
do {
    var (device, transport) = launched(senders: 1)
    _ = device.receive(envelope("sender-0", transport, CastNamespace.media, ["type": "LOAD", "requestId": 2, "media": ["contentId": "a.mp4"]]),
                       on: ConnectionID(1), now: .zero)
    let pause = envelope("sender-0", transport, CastNamespace.media, ["type": "PAUSE", "requestId": 3])
    let play = envelope("sender-0", transport, CastNamespace.media, ["type": "PLAY", "requestId": 4])
    let count = 50_000
    measure("core: PLAY/PAUSE requests (decode, act, encode status)", unit: "req", count: count) {
        for index in 0..<count {
            _ = device.receive(index % 2 == 0 ? pause : play, on: ConnectionID(1), now: SimTime(seconds: Double(index) * 0.001))
        }
    }
}

// 2. Broadcast fan-out: one SET_VOLUME answered to 100 senders (encoded once).
do {
    var (device, _) = launched(senders: 100)
    let count = 20_000
    measure("core: SET_VOLUME broadcast to 100 senders", unit: "req", count: count) {
        for index in 0..<count {
            _ = device.receive(envelope("sender-0", "receiver-0", CastNamespace.receiver,
                                        ["type": "SET_VOLUME", "volume": ["level": .number(Double(index % 100) / 100)], "requestId": 5]),
                               on: ConnectionID(1), now: .zero)
        }
    }
}

// 3. Simulated time: a 40-item queue under REPEAT_ALL, with heartbeats, for a week.
do {
    var device = device(heartbeats: true)
    let connection = ConnectionID(1)
    _ = device.connectionOpened(connection, now: .zero)
    _ = device.receive(envelope("sender-0", "receiver-0", CastNamespace.connection, ["type": "CONNECT"]), on: connection, now: .zero)
    _ = device.receive(envelope("sender-0", "receiver-0", CastNamespace.receiver, ["type": "LAUNCH", "appId": "CC1AD845", "requestId": 1]),
                       on: connection, now: .zero)
    let transport = device.runningApp!.transportId
    _ = device.receive(envelope("sender-0", transport, CastNamespace.connection, ["type": "CONNECT"]), on: connection, now: .zero)
    let items = JSONValue.array((1...40).map { ["media": ["contentId": .string("song-\($0).mp3"), "duration": 180]] })
    _ = device.receive(envelope("sender-0", transport, CastNamespace.media, ["type": "QUEUE_LOAD", "requestId": 2, "repeatMode": "REPEAT_ALL", "items": items]),
                       on: connection, now: .zero)
    let week = 7 * 24 * 3600.0
    var outputs = 0
    measure("core: simulated seconds (40-item REPEAT_ALL queue + PINGs)", unit: "sim-s", count: Int(week)) {
        // The sender answers now and then, so the idle timeout never fires.
        var now = 0.0
        while now < week {
            now += 30
            outputs += device.advance(to: SimTime(seconds: now)).count
            _ = device.receive(envelope("sender-0", "receiver-0", CastNamespace.heartbeat, ["type": "PONG"]), on: connection, now: SimTime(seconds: now))
        }
    }
    emit("    (\(outputs) outputs: item changes and PINGs over a simulated week)")
}

// 3b. GET_STATUS on the media namespace: a full MEDIA_STATUS, unicast.
do {
    var (device, transport) = launched(senders: 1)
    let items = JSONValue.array((1...10).map { ["media": ["contentId": .string("song-\($0).mp3"), "duration": 180,
                                                          "metadata": ["metadataType": 3, "title": .string("Song \($0)")]]] })
    _ = device.receive(envelope("sender-0", transport, CastNamespace.media, ["type": "QUEUE_LOAD", "requestId": 2, "items": items]),
                       on: ConnectionID(1), now: .zero)
    let status = envelope("sender-0", transport, CastNamespace.media, ["type": "GET_STATUS", "requestId": 3])
    let count = 20_000
    measure("core: media GET_STATUS (10-item queue, full status)", unit: "req", count: count) {
        for index in 0..<count {
            _ = device.receive(status, on: ConnectionID(1), now: SimTime(seconds: Double(index) * 0.001))
        }
    }
}

// 3c. A scenario with a $regex rule: every message is matched against it.
do {
    let scenario = try! Scenario.parse(Data("""
    {"name": "bench", "device": {"heartbeatInterval": "0s", "idleTimeout": "0s"},
     "rules": [{"match": {"fields": {"media.contentId": {"$regex": "^http://cdn[0-9]+\\\\.example\\\\.com/"}}}, "action": "drop"}]}
    """.utf8))
    var session = ScenarioSession(scenario: scenario)
    _ = session.connectionOpened(ConnectionID(1), now: .zero)
    _ = session.receive(envelope("sender-0", "receiver-0", CastNamespace.connection, ["type": "CONNECT"]), on: ConnectionID(1), now: .zero)
    let load = envelope("sender-0", "receiver-0", CastNamespace.receiver,
                        ["type": "GET_STATUS", "requestId": 1, "media": ["contentId": "http://cdn7.example.net/movie.mp4"]])
    let count = 50_000
    measure("scenario: messages against a $regex rule (GET_STATUS)", unit: "msg", count: count) {
        for index in 0..<count {
            _ = session.receive(load, on: ConnectionID(1), now: SimTime(seconds: Double(index) * 0.001))
        }
    }
}

// 4. Frame encoding: a MEDIA_STATUS-sized message.
do {
    let message = envelope("transport", "*", CastNamespace.media, [
        "type": "MEDIA_STATUS", "requestId": 0,
        "status": [["mediaSessionId": 1, "playerState": "PLAYING", "currentTime": 12.5, "media": ["contentId": "a.mp4", "metadata": ["title": "x"]]]],
    ])
    let count = 200_000
    measure("wire: CastMessage framing", unit: "frame", count: count) {
        for _ in 0..<count { _ = try? CastFraming.frame(message) }
    }
}

// 4b. The runtime on embedded channels: PING → PONG through framing, the connection
// handler, the scenario session and back, no sockets.
if selected("runtime (embedded): PING round trips") {
    let simulator = EmbeddedCastSimulator { $0.heartbeatInterval = nil; $0.idleTimeout = nil }
    let sender = simulator.connectSender()
    let ping = try! CastFraming.frame(envelope("sender-0", "receiver-0", CastNamespace.heartbeat, ["type": "PING"]))
    let count = 50_000
    measure("runtime (embedded): PING round trips", unit: "msg", count: count) {
        for _ in 0..<count {
            sender.sendRaw(ping)
            sender.discardReceived()
        }
    }
    simulator.stop()
}

// 4c. Memory: a million messages from 10 senders, then every connection closed. What the
// device keeps is bounded (the journal keeps the newest 10,000), so it goes back down.
if selected("memory") {
    func residentKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return -1 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
    let before = residentKiB()
    let simulator = EmbeddedCastSimulator { $0.heartbeatInterval = nil; $0.idleTimeout = nil }
    let senders = (0..<10).map { _ in simulator.connectSender() }
    for sender in senders { sender.connect() }
    let ping = try! CastFraming.frame(envelope("sender-0", "receiver-0", CastNamespace.heartbeat, ["type": "PING"]))
    for round in 0..<100_000 {
        for sender in senders { sender.sendRaw(ping) }
        if round % 100 == 0 { for sender in senders { sender.discardReceived() } }
    }
    let during = residentKiB()
    for sender in senders { sender.close() }
    simulator.stop()
    let after = residentKiB()
    emit("memory: 1,000,000 PINGs from 10 senders, then all closed".padding(toLength: 60, withPad: " ", startingAt: 0)
         + "  RSS \(before / 1024) MB before, \(during / 1024) MB with them open, \(after / 1024) MB after")
}

// 5. Start-up: keys, certificates, ports; then stop.
if selected("runtime: start") {
    var logger = Logger(label: "bench")
    logger.logLevel = .critical
    var configuration = SimulatorConfiguration(device: DeviceConfiguration(identity: try! DeviceIdentity(uuid: "0123456789abcdef0123456789abcdef")), logger: logger)
    configuration.host = "127.0.0.1"
    configuration.castPort = 0
    configuration.httpPort = 0
    configuration.httpsPort = 0
    var times: [Double] = []
    for _ in 0..<5 {
        let start = ContinuousClock.now
        let simulator = try! await CastSimulator.start(configuration)
        let elapsed = ContinuousClock.now - start
        times.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
        await simulator.stop()
    }
    emit("runtime: start (2 RSA keys, TLS, 3 ports)".padding(toLength: 60, withPad: " ", startingAt: 0)
         + String(format: "%12.1f ms median (runs: %@)", times.sorted()[2],
                  times.map { String(format: "%.0f", $0) }.joined(separator: ", ") as NSString))
}
