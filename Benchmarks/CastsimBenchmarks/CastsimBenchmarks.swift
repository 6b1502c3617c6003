// castsim benchmarks on ordo-one/package-benchmark.
//
//   scripts/bench.sh            run them all, print the figures
//   scripts/bench.sh check      run the hot paths, compare with Benchmarks/Thresholds (non-zero on a regression)
//   scripts/bench.sh update     run the hot paths, rewrite Benchmarks/Thresholds
//
// Names carry no spaces or slashes: package-benchmark writes a threshold file as
// `<target>.<name>.p90.json` with those replaced by `_`, but reads it back by the raw name.
//
// Hot paths (`core.`, `scenario.`, `wire.`, `runtime.embedded-`) have checked-in thresholds on
// their allocation count (deterministic, so tight) and their wall clock (a shared, noisy
// machine, so wide: only a gross slowdown fails). Hardware instruction counters are not
// available on the machines this runs on (perf_event_open fails), so `.instructions` is not
// used; see `hotPath(_:)` to add it where it is. `runtime.start` and `runtime.memory-*` are
// figures only.

import Benchmark
import CastDevice
import CastScenario
import CastSimulator
import CastSimulatorTesting
import CastWire
import Foundation
import Logging
import NIOCore

// MARK: Configuration

/// Allowed p90 deviation from the checked-in threshold, in percent. A 2x regression is +100 %.
enum Tolerance {
    /// Allocation counts are the same run to run, bar a few from the runtime; 2x fails.
    static let allocations: BenchmarkThresholds.RelativeThreshold = 25
    /// Wall clock on a 2-core machine shared with builds: fails only beyond 3x slower.
    static let wallClock: BenchmarkThresholds.RelativeThreshold = 200
}

/// The metrics the thresholds cover (`scripts/bench.sh check|update` pass these as `--metric`).
let checkedMetrics: [BenchmarkMetric] = [.mallocCountTotal, .wallClock]

/// A hot path: `scalingFactor` operations per iteration, about a second of measuring.
func hotPath(_ scalingFactor: BenchmarkScalingFactor = .kilo, maxIterations: Int = 60) -> Benchmark.Configuration {
    .init(
        metrics: [.throughput, .wallClock, .mallocCountTotal],
        timeUnits: .microseconds,
        warmupIterations: 2,
        scalingFactor: scalingFactor,
        maxDuration: .milliseconds(1_500),
        maxIterations: maxIterations,
        thresholds: [
            .mallocCountTotal: .init(relative: [.p90: Tolerance.allocations]),
            .wallClock: .init(relative: [.p90: Tolerance.wallClock]),
        ]
    )
}

/// State made in a benchmark's setup and dropped in its teardown, so that registering every
/// benchmark (which the runner does for each one it runs) costs nothing.
final class Fixture<State>: @unchecked Sendable {
    private var state: State?
    /// Mutated in place (`_modify`): a get-then-set would copy the state each time, and a
    /// session's 10,000-message journal with it, and measure the copy.
    var value: State {
        get { state! }
        _modify { yield &state! }
    }
    func make(_ body: () throws -> State) rethrows { state = try body() }
    func drop() { state = nil }
}

// MARK: Helpers

let deviceUUID = "0123456789abcdef0123456789abcdef"

func deviceConfiguration(heartbeats: Bool = false) -> DeviceConfiguration {
    var configuration = DeviceConfiguration(identity: try! DeviceIdentity(uuid: deviceUUID))
    if !heartbeats {
        configuration.heartbeatInterval = nil
        configuration.idleTimeout = nil
    }
    return configuration
}

func envelope(_ source: String, _ destination: String, _ namespace: String, _ payload: JSONValue) -> CastEnvelope {
    CastEnvelope(sourceId: source, destinationId: destination, namespace: namespace, payload: .string(payload.jsonText()))
}

/// A device with `senders` connections, all connected to a running DMR.
func launched(senders: Int) -> (SimulatedDevice, String) {
    var device = SimulatedDevice(configuration: deviceConfiguration())
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

/// A device and the simulated time it has reached, one millisecond per request.
struct DeviceUnderLoad {
    var device: SimulatedDevice
    var transport: String
    var tick = 0
    var requests: [CastEnvelope] = []
    /// The senders' heartbeats, kept as the runtime keeps them (here on the benchmark's clock).
    var heartbeats = HeartbeatSchedule(heartbeatInterval: nil, idleTimeout: nil)

    mutating func now() -> SimTime {
        tick += 1
        return SimTime(seconds: Double(tick) * 0.001)
    }
}

/// A scenario session and the simulated time it has reached.
struct SessionUnderLoad {
    var session: ScenarioSession
    var request: CastEnvelope
    var tick = 0
}

func residentKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return -1 }
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
}

/// A MEDIA_STATUS-sized message, for the framing benchmarks.
let mediaStatusMessage = envelope("transport", "*", CastNamespace.media, [
    "type": "MEDIA_STATUS", "requestId": 0,
    "status": [["mediaSessionId": 1, "playerState": "PLAYING", "currentTime": 12.5, "media": ["contentId": "a.mp4", "metadata": ["title": "x"]]]],
])

/// What a sender's LOAD typically carries (a Default Media Receiver movie with metadata).
let typicalLoadPayload = """
{"type":"LOAD","requestId":17,"sessionId":"5f8c1a2e-3b4d-4e6f-8a9b-0c1d2e3f4a5b","autoplay":true,"currentTime":0,\
"activeTrackIds":[],"media":{"contentId":"https://storage.example.com/videos/big_buck_bunny_1080p.mp4",\
"contentUrl":"https://storage.example.com/videos/big_buck_bunny_1080p.mp4","streamType":"BUFFERED",\
"contentType":"video/mp4","duration":596.474195,"metadata":{"metadataType":1,"title":"Big Buck Bunny",\
"subtitle":"By Blender Foundation","releaseDate":"2008-05-20","images":[{"url":"https://storage.example.com/images/BigBuckBunny.jpg",\
"width":480,"height":360}]},"tracks":[{"trackId":1,"type":"TEXT","trackContentId":"https://storage.example.com/subs/en.vtt",\
"trackContentType":"text/vtt","subtype":"SUBTITLES","name":"English","language":"en-US"}]},\
"customData":{"playlistId":"pl-42","startedFrom":"home","analytics":{"enabled":true,"sampleRate":0.25}}}
"""

// MARK: Benchmarks

let benchmarks: @Sendable () -> Void = {
    // Core: PAUSE / PLAY alternating, one sender (decode, act, encode status).
    let playPause = Fixture<DeviceUnderLoad>()
    Benchmark("core.play-pause", configuration: hotPath()) { benchmark in
        for _ in benchmark.scaledIterations {
            let request = playPause.value.requests[playPause.value.tick % 2]
            let now = playPause.value.now()
            blackHole(playPause.value.device.receive(request, on: ConnectionID(1), now: now))
        }
    } setup: {
        playPause.make {
            var (device, transport) = launched(senders: 1)
            _ = device.receive(envelope("sender-0", transport, CastNamespace.media,
                                        ["type": "LOAD", "requestId": 2, "media": ["contentId": "a.mp4"]]),
                               on: ConnectionID(1), now: .zero)
            var state = DeviceUnderLoad(device: device, transport: transport)
            state.requests = [envelope("sender-0", transport, CastNamespace.media, ["type": "PAUSE", "requestId": 3]),
                              envelope("sender-0", transport, CastNamespace.media, ["type": "PLAY", "requestId": 4])]
            return state
        }
    } teardown: { playPause.drop() }

    // Core: one SET_VOLUME answered to 100 senders (the status encoded once).
    let broadcast = Fixture<DeviceUnderLoad>()
    Benchmark("core.set-volume-broadcast-100", configuration: hotPath(maxIterations: 30)) { benchmark in
        for _ in benchmark.scaledIterations {
            let request = broadcast.value.requests[broadcast.value.tick % 100]
            broadcast.value.tick += 1
            blackHole(broadcast.value.device.receive(request, on: ConnectionID(1), now: .zero))
        }
    } setup: {
        broadcast.make {
            let (device, transport) = launched(senders: 100)
            var state = DeviceUnderLoad(device: device, transport: transport)
            // Built ahead: what is measured is the device, not the test's JSON encoding.
            state.requests = (0..<100).map { level in
                envelope("sender-0", "receiver-0", CastNamespace.receiver,
                         ["type": "SET_VOLUME", "volume": ["level": .number(Double(level) / 100)], "requestId": 5])
            }
            return state
        }
    } teardown: { broadcast.drop() }

    // Core: simulated time. A 40-item queue under REPEAT_ALL with heartbeats; each operation
    // is 30 seconds (advance, the six PINGs due, then the sender's PONG), the heartbeats
    // driven as the runtime drives them. sim-s/s = 30 x throughput.
    let clock = Fixture<DeviceUnderLoad>()
    Benchmark("core.simulated-time-30s-steps", configuration: hotPath()) { benchmark in
        let connection = ConnectionID(1)
        let pong = clock.value.requests[0]
        for _ in benchmark.scaledIterations {
            clock.value.tick += 1
            let now = SimTime(seconds: Double(clock.value.tick) * 30)
            blackHole(clock.value.device.advance(to: now))
            // The runtime wakes at each beat, as the device used to on its own.
            while let beatTime = clock.value.heartbeats.earliest, beatTime <= now.seconds {
                for (due, beat) in clock.value.heartbeats.takeDue(at: beatTime) {
                    blackHole(clock.value.device.heartbeatDue(beat, on: due, now: now))
                }
            }
            clock.value.heartbeats.heard(connection, at: now.seconds)
            blackHole(clock.value.device.receive(pong, on: connection, now: now))
        }
    } setup: {
        clock.make {
            var device = SimulatedDevice(configuration: deviceConfiguration(heartbeats: true))
            let connection = ConnectionID(1)
            _ = device.connectionOpened(connection, now: .zero)
            _ = device.receive(envelope("sender-0", "receiver-0", CastNamespace.connection, ["type": "CONNECT"]), on: connection, now: .zero)
            _ = device.receive(envelope("sender-0", "receiver-0", CastNamespace.receiver,
                                        ["type": "LAUNCH", "appId": "CC1AD845", "requestId": 1]), on: connection, now: .zero)
            let transport = device.runningApp!.transportId
            _ = device.receive(envelope("sender-0", transport, CastNamespace.connection, ["type": "CONNECT"]), on: connection, now: .zero)
            let items = JSONValue.array((1...40).map { ["media": ["contentId": .string("song-\($0).mp3"), "duration": 180]] })
            _ = device.receive(envelope("sender-0", transport, CastNamespace.media,
                                        ["type": "QUEUE_LOAD", "requestId": 2, "repeatMode": "REPEAT_ALL", "items": items]),
                               on: connection, now: .zero)
            var state = DeviceUnderLoad(device: device, transport: transport)
            state.requests = [envelope("sender-0", "receiver-0", CastNamespace.heartbeat, ["type": "PONG"])]
            let configuration = deviceConfiguration(heartbeats: true)
            state.heartbeats = HeartbeatSchedule(heartbeatInterval: configuration.heartbeatInterval, idleTimeout: configuration.idleTimeout)
            state.heartbeats.open(connection, at: 0)
            return state
        }
    } teardown: { clock.drop() }

    // Core: GET_STATUS on the media namespace, a full MEDIA_STATUS (10-item queue), unicast.
    let mediaStatus = Fixture<DeviceUnderLoad>()
    Benchmark("core.media-get-status", configuration: hotPath()) { benchmark in
        let request = mediaStatus.value.requests[0]
        for _ in benchmark.scaledIterations {
            let now = mediaStatus.value.now()
            blackHole(mediaStatus.value.device.receive(request, on: ConnectionID(1), now: now))
        }
    } setup: {
        mediaStatus.make {
            var (device, transport) = launched(senders: 1)
            let items = JSONValue.array((1...10).map { ["media": ["contentId": .string("song-\($0).mp3"), "duration": 180,
                                                                  "metadata": ["metadataType": 3, "title": .string("Song \($0)")]]] })
            _ = device.receive(envelope("sender-0", transport, CastNamespace.media, ["type": "QUEUE_LOAD", "requestId": 2, "items": items]),
                               on: ConnectionID(1), now: .zero)
            var state = DeviceUnderLoad(device: device, transport: transport)
            state.requests = [envelope("sender-0", transport, CastNamespace.media, ["type": "GET_STATUS", "requestId": 3])]
            return state
        }
    } teardown: { mediaStatus.drop() }

    // Scenario: every message matched against a `$regex` rule (and not dropped: no match).
    let regex = Fixture<SessionUnderLoad>()
    Benchmark("scenario.regex-rule-get-status", configuration: hotPath()) { benchmark in
        let request = regex.value.request
        for _ in benchmark.scaledIterations {
            regex.value.tick += 1
            let now = SimTime(seconds: Double(regex.value.tick) * 0.001)
            blackHole(regex.value.session.receive(request, on: ConnectionID(1), now: now))
        }
    } setup: {
        try regex.make {
            let scenario = try Scenario.parse(Data("""
            {"name": "bench", "device": {"heartbeatInterval": "0s", "idleTimeout": "0s"},
             "rules": [{"match": {"fields": {"media.contentId": {"$regex": "^http://cdn[0-9]+\\\\.example\\\\.com/"}}}, "action": "drop"}]}
            """.utf8))
            var session = ScenarioSession(scenario: scenario)
            _ = session.connectionOpened(ConnectionID(1), now: .zero)
            _ = session.receive(envelope("sender-0", "receiver-0", CastNamespace.connection, ["type": "CONNECT"]), on: ConnectionID(1), now: .zero)
            let request = envelope("sender-0", "receiver-0", CastNamespace.receiver,
                                   ["type": "GET_STATUS", "requestId": 1, "media": ["contentId": "http://cdn7.example.net/movie.mp4"]])
            return SessionUnderLoad(session: session, request: request)
        }
    } teardown: { regex.drop() }

    // Scenario: the receive path of `castsim run` without a scenario (Scenario.plain): one
    // GET_STATUS to receiver-0 through ScenarioSession, answered with a RECEIVER_STATUS.
    let plain = Fixture<SessionUnderLoad>()
    Benchmark("scenario.plain-receiver-get-status", configuration: hotPath()) { benchmark in
        let request = plain.value.request
        for _ in benchmark.scaledIterations {
            plain.value.tick += 1
            let now = SimTime(seconds: Double(plain.value.tick) * 0.001)
            blackHole(plain.value.session.receive(request, on: ConnectionID(1), now: now))
        }
    } setup: {
        plain.make {
            var session = ScenarioSession(scenario: .plain(deviceConfiguration()))
            _ = session.connectionOpened(ConnectionID(1), now: .zero)
            _ = session.receive(envelope("sender-0", "receiver-0", CastNamespace.connection, ["type": "CONNECT"]), on: ConnectionID(1), now: .zero)
            let request = envelope("sender-0", "receiver-0", CastNamespace.receiver, ["type": "GET_STATUS", "requestId": 1])
            return SessionUnderLoad(session: session, request: request)
        }
    } teardown: { plain.drop() }

    // Wire: a MEDIA_STATUS-sized CastMessage into a frame (protobuf + length header).
    Benchmark("wire.frame-encode", configuration: hotPath()) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try? CastFraming.frame(mediaStatusMessage))
        }
    }

    // Wire: that frame back out of a byte stream (length header, protobuf, envelope).
    let frame = Fixture<ByteBuffer>()
    Benchmark("wire.frame-decode", configuration: hotPath()) { benchmark in
        let bytes = frame.value
        for _ in benchmark.scaledIterations {
            var stream = bytes
            if let body = try? CastFraming.nextBody(from: &stream) {
                blackHole(try? CastFraming.parse(body: body))
            }
        }
    } setup: {
        try frame.make { try CastFraming.frame(mediaStatusMessage) }
    } teardown: { frame.drop() }

    // Wire: JSON parse of a typical LOAD payload (`JSONValue.parse`, sender limits).
    Benchmark("wire.json-parse-load", configuration: hotPath()) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try? JSONValue.parse(typicalLoadPayload))
        }
    }

    // Runtime on embedded channels: PING -> PONG through framing, the connection handler,
    // the scenario session and back; no sockets.
    final class Embedded: @unchecked Sendable {
        let simulator: EmbeddedCastSimulator
        let sender: EmbeddedCastSender
        let ping: ByteBuffer
        init() {
            simulator = EmbeddedCastSimulator { $0.heartbeatInterval = nil; $0.idleTimeout = nil }
            sender = simulator.connectSender()
            ping = try! CastFraming.frame(envelope("sender-0", "receiver-0", CastNamespace.heartbeat, ["type": "PING"]))
        }
    }
    let embedded = Fixture<Embedded>()
    Benchmark("runtime.embedded-ping-round-trip", configuration: hotPath()) { benchmark in
        let state = embedded.value
        for _ in benchmark.scaledIterations {
            state.sender.sendRaw(state.ping)
            state.sender.discardReceived()
        }
    } setup: {
        embedded.make { Embedded() }
    } teardown: {
        embedded.value.simulator.stop()
        embedded.drop()
    }

    // Recording: the same round trip while a recording is written (both messages queued on
    // the device's loop, written by the recorder's thread).
    let recorded = Fixture<Embedded>()
    let recordingPath = FileManager.default.temporaryDirectory.appendingPathComponent("castsim-bench-\(getpid()).jsonl").path
    Benchmark("recording.embedded-ping-round-trip", configuration: hotPath()) { benchmark in
        let state = recorded.value
        for _ in benchmark.scaledIterations {
            state.sender.sendRaw(state.ping)
            state.sender.discardReceived()
        }
    } setup: {
        recorded.make { Embedded() }
        try! recorded.value.simulator.startRecording(to: recordingPath)
    } teardown: {
        recorded.value.simulator.stop()
        recorded.drop()
        try? FileManager.default.removeItem(atPath: recordingPath)
    }

    // Conversion: a recorded session of 250 LOAD / PAUSE / PLAY / GET_STATUS rounds (about
    // 2,000 events), of a device whose ids differ from castsim's, so every request is
    // answered as recorded: the most work from-recording does.
    func recordSession() -> Recording {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("castsim-bench-convert-\(getpid()).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let simulator = EmbeddedCastSimulator { $0.heartbeatInterval = nil; $0.idleTimeout = nil }
        try! simulator.startRecording(to: path)
        let sender = simulator.connectSender()
        let transport = sender.launch()!
        for round in 0..<250 {
            sender.request(CastNamespace.media, to: transport, ["type": "LOAD", "media": ["contentId": .string("http://m.test/\(round).mp4")]])
            simulator.advanceClock(by: 1)
            sender.request(CastNamespace.media, to: transport, ["type": "PAUSE", "mediaSessionId": .number(Double(round + 1))])
            sender.request(CastNamespace.media, to: transport, ["type": "PLAY", "mediaSessionId": .number(Double(round + 1))])
            sender.request(CastNamespace.media, to: transport, ["type": "GET_STATUS"])
        }
        simulator.stop()
        var recording = try! Recording.read(try! Data(contentsOf: URL(fileURLWithPath: path)))
        recording.header.scenario = nil
        recording.header.device = try! DeviceIdentity(uuid: "ffffffffffffffffffffffffffffffff", friendlyName: "Other TV")
        return recording
    }
    let sessionRecording = Fixture<Recording>()
    Benchmark("recording.convert-2000-events-scripted",
              configuration: .init(metrics: [.wallClock, .mallocCountTotal, .peakMemoryResident], timeUnits: .milliseconds,
                                   warmupIterations: 0, maxDuration: .seconds(60), maxIterations: 3)) { _ in
        blackHole(try! RecordingConverter.convert(sessionRecording.value))
    } setup: {
        sessionRecording.make { recordSession() }
    } teardown: {
        sessionRecording.drop()
    }

    // Memory: a million PINGs from 10 senders, then every connection closed. What the device
    // keeps is bounded (the journal keeps the newest 10,000), so RSS goes back down.
    let rssOpen = BenchmarkMetric.custom("RSS with 10 senders open (KiB)", polarity: .prefersSmaller, useScalingFactor: false)
    let rssClosed = BenchmarkMetric.custom("RSS after all closed (KiB)", polarity: .prefersSmaller, useScalingFactor: false)
    Benchmark("runtime.memory-1M-pings-10-senders",
              configuration: .init(metrics: [.wallClock, .peakMemoryResident, .mallocCountTotal, .memoryLeaked, rssOpen, rssClosed],
                                   warmupIterations: 0, maxDuration: .seconds(60), maxIterations: 1)) { benchmark in
        let simulator = EmbeddedCastSimulator { $0.heartbeatInterval = nil; $0.idleTimeout = nil }
        let senders = (0..<10).map { _ in simulator.connectSender() }
        for sender in senders { sender.connect() }
        let ping = try! CastFraming.frame(envelope("sender-0", "receiver-0", CastNamespace.heartbeat, ["type": "PING"]))
        for round in 0..<100_000 {
            for sender in senders { sender.sendRaw(ping) }
            if round % 100 == 0 { for sender in senders { sender.discardReceived() } }
        }
        benchmark.measurement(rssOpen, residentKiB())
        for sender in senders { sender.close() }
        simulator.stop()
        benchmark.measurement(rssClosed, residentKiB())
    }

    // Start-up: two RSA keys, certificates, TLS, three ports. Only the start is timed; the
    // stop that follows each one is not.
    Benchmark("runtime.start",
              configuration: .init(metrics: [.wallClock, .mallocCountTotal, .peakMemoryResident], timeUnits: .milliseconds,
                                   warmupIterations: 0, maxDuration: .seconds(30), maxIterations: 5)) { benchmark in
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        var configuration = SimulatorConfiguration(device: deviceConfiguration(heartbeats: true), logger: logger)
        configuration.host = "127.0.0.1"
        configuration.castPort = 0
        configuration.httpPort = 0
        configuration.httpsPort = 0
        benchmark.startMeasurement()
        let simulator = try! await CastSimulator.start(configuration)
        benchmark.stopMeasurement()
        await simulator.stop()
    }

    // A household of 50 idle devices on 127.0.0.2-51: how long the fleet takes to start
    // (keys made once per process are made before it), and what each idle device costs
    // in resident memory (its listeners, eureka servers, device state).
    let rssPerDevice = BenchmarkMetric.custom("RSS per idle device (KiB)", polarity: .prefersSmaller, useScalingFactor: false)
    Benchmark("runtime.fleet-50-start",
              configuration: .init(metrics: [.wallClock, .mallocCountTotal, .peakMemoryResident, rssPerDevice], timeUnits: .milliseconds,
                                   warmupIterations: 0, maxDuration: .seconds(60), maxIterations: 3)) { benchmark in
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        let configurations = FleetAddresses.loopback(count: 50).enumerated().map { index, address in
            var configuration = SimulatorConfiguration(device: deviceConfiguration(heartbeats: true), logger: logger)
            configuration.device.identity = try! DeviceIdentity(uuid: String(format: "%032x", index + 1), friendlyName: "castsim \(index + 1)")
            configuration.host = address
            // Ephemeral ports: the figures are the same, and nothing else on the machine is in the way.
            configuration.castPort = 0
            configuration.httpPort = 0
            configuration.httpsPort = 0
            return configuration
        }
        // The process's shared keys and PKI, made once.
        await (try! await CastFleet.start([configurations[0]])).stop()
        let before = residentKiB()
        benchmark.startMeasurement()
        let fleet = try! await CastFleet.start(configurations)
        benchmark.stopMeasurement()
        // Idle: what the servers' own tasks set up once the fleet is up is part of it.
        try? await Task.sleep(for: .seconds(1))
        benchmark.measurement(rssPerDevice, (residentKiB() - before) / configurations.count)
        await fleet.stop()
    }
}
