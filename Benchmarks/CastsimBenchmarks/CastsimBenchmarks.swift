// castsim's runtime on ordo-one/package-benchmark: the device on its NIO loop (embedded
// channels, a recording), the memory a long session and a fleet keep, the start. The pure
// core's hot paths are in castsim-core-benchmarks.
//
//   scripts/bench.sh            run every benchmark target, print the figures
//   scripts/bench.sh check      compare the hot paths with Benchmarks/Thresholds (non-zero on a regression)
//   scripts/bench.sh update     rewrite Benchmarks/Thresholds
//
// `runtime.embedded-*` is a hot path with checked-in thresholds (see `hotPath(_:)`);
// `recording.*`, `runtime.start`, `runtime.memory-*` and `runtime.fleet-*` are figures only.

import Benchmark
import CastDevice
import CastScenario
import CastSimulator
import CastSimulatorTesting
import CastsimBenchmarkSupport
import CastWire
import Foundation
import Logging
import NIOCore

// MARK: Benchmarks

let benchmarks: @Sendable () -> Void = {
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

    // An event-stream follower: the same round trip while a reader takes every piece of
    // news, a batch at a time with the same pause after each (what the control API's
    // /api/v1/events does before it encodes it, off the device's loop). The device's cost
    // per message is the difference from the plain round trip, halved (a PING and its PONG
    // are two messages).
    let followed = Fixture<(Embedded, Task<Int, Never>)>()
    Benchmark("runtime.embedded-ping-round-trip-followed", configuration: hotPath()) { benchmark in
        let state = followed.value.0
        for _ in benchmark.scaledIterations {
            state.sender.sendRaw(state.ping)
            state.sender.discardReceived()
        }
    } setup: {
        followed.make {
            let state = Embedded()
            let news = state.simulator.newsBatches()
            return (state, Task {
                var count = 0
                while let batch = await news.next() {
                    count += batch.count
                    // The event stream's pause after each write (EventStreams.batchInterval).
                    try? await Task.sleep(for: .milliseconds(2))
                }
                return count
            })
        }
    } teardown: {
        followed.value.0.simulator.stop()
        _ = await followed.value.1.value
        followed.drop()
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
        configuration.listenEphemerally(on: "127.0.0.1")
        benchmark.startMeasurement()
        let simulator = try! await CastSimulator.start(configuration)
        benchmark.stopMeasurement()
        await simulator.stop()
    }

    // A household of 1,000 idle devices from 127.0.0.2 on: how long the fleet takes to
    // start (keys made once per process are made before it), and what each idle device
    // costs in resident memory (its three listeners and its state; its TLS identity is
    // made at its first connection). `castsim-load devices` measures the same from outside.
    let rssPerDevice = BenchmarkMetric.custom("RSS per idle device (KiB)", polarity: .prefersSmaller, useScalingFactor: false)
    Benchmark("runtime.fleet-1000-start",
              configuration: .init(metrics: [.wallClock, .mallocCountTotal, .peakMemoryResident, rssPerDevice], timeUnits: .milliseconds,
                                   warmupIterations: 0, maxDuration: .seconds(60), maxIterations: 3)) { benchmark in
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        DescriptorLimit.raiseToHard()
        let configurations = FleetAddresses.loopback(count: 1000).enumerated().map { index, address in
            var configuration = SimulatorConfiguration(device: deviceConfiguration(heartbeats: true), logger: logger)
            configuration.device.identity = try! DeviceIdentity(uuid: String(format: "%032x", index + 1), friendlyName: "castsim \(index + 1)")
            // Ephemeral ports: the figures are the same, and nothing else on the machine is in the way.
            configuration.listenEphemerally(on: address)
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
