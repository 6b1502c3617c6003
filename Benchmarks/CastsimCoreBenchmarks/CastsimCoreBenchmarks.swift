// The pure core's hot paths on ordo-one/package-benchmark: the device, the scenario
// session and the wire format, with no runtime around them (so this target builds without
// NIO's sockets, TLS or HTTP: what CI's allocation check builds in release).
//
//   scripts/bench.sh            run every benchmark target, print the figures
//   scripts/bench.sh check      compare the hot paths with Benchmarks/Thresholds (non-zero on a regression)
//   scripts/bench.sh update     rewrite Benchmarks/Thresholds
//
// Names carry no spaces or slashes: package-benchmark writes a threshold file as
// `<target>.<name>.p90.json` with those replaced by `_`, but reads it back by the raw name.
// Every benchmark here is a hot path (`hotPath(_:)`): thresholds on its allocation count
// (deterministic, so tight) and its wall clock (a shared, noisy machine, so wide).

import Benchmark
import CastDevice
import CastScenario
import CastsimBenchmarkSupport
import CastWire
import Foundation
import NIOCore

// MARK: Helpers

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

/// The session of `castsim run` without a scenario (Scenario.plain), a sender connected
/// to receiver-0, and the GET_STATUS it asks.
func plainSession() -> ScenarioSession {
    var session = ScenarioSession(scenario: .plain(deviceConfiguration()))
    _ = session.connectionOpened(ConnectionID(1), now: .zero)
    _ = session.receive(envelope("sender-0", "receiver-0", CastNamespace.connection, ["type": "CONNECT"]), on: ConnectionID(1), now: .zero)
    return session
}

let plainGetStatus = envelope("sender-0", "receiver-0", CastNamespace.receiver, ["type": "GET_STATUS", "requestId": 1])

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
        plain.make { SessionUnderLoad(session: plainSession(), request: plainGetStatus) }
    } teardown: { plain.drop() }

    // Scenario: a recording's writer at work: the two lines of that round (the sender's
    // GET_STATUS and the RECEIVER_STATUS, as the session numbers them) appended to the
    // writer's kept buffer by the line writer it keeps for the recording, the entries read
    // where they lie, as the writer reads them; the wall clock moves on a millisecond every
    // 25 rounds (50 k requests a second). Per round: what `--record` adds off the device's
    // loop. The allocations are the writer's and the buffer's, once a sample.
    let recordedRound = Fixture<[JournalEntry]>()
    Benchmark("scenario.recording-lines-get-status", configuration: hotPath()) { benchmark in
        let entries = recordedRound.value
        var lines = RecordingLineWriter()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 * 1024)
        var round: Int64 = 0
        entries.withUnsafeBufferPointer { entries in
            for _ in benchmark.scaledIterations {
                for entry in entries.indices {
                    lines.append((entries.baseAddress! + entry).pointee, wall: 1_795_000_000_123 + round / 25, to: &bytes)
                }
                round += 1
                if bytes.count > 60 * 1024 { bytes.removeAll(keepingCapacity: true) }
            }
        }
        blackHole(bytes)
    } setup: {
        recordedRound.make {
            var session = plainSession()
            return session.receive(plainGetStatus, on: ConnectionID(1), now: SimTime(seconds: 12.345678)).compactMap { output in
                guard case .message(let entry) = output else { return nil }
                return entry
            }
        }
    } teardown: { recordedRound.drop() }

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
}
