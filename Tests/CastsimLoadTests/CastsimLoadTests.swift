import CastDevice
import CastWire
import Foundation
import NIOCore
import Testing

import castsim_load

/// The load generator's own parts: what it sends must be what CastWire would encode, what
/// it reads must find castsim's requestIds, and its echo server must answer with castsim's
/// size, or every ratio it prints is wrong.
@Suite("castsim-load: frames, replies, percentiles")
struct CastsimLoadPartsTests {
    @Test("A stamped frame is byte for byte what CastFraming encodes, for every number of digits")
    func templateMatchesCastWire() throws {
        for requestId in [1, 7, 10, 99, 100, 4_321, 12_345, 999_999, 1_000_000_000, CastFrameTemplate.maximumRequestId] {
            let stamped = CastLoadMessages.getStatus.frame(requestId: requestId, allocator: ByteBufferAllocator())
            let encoded = try CastFraming.frame(CastEnvelope(
                sourceId: "sender-0", destinationId: "receiver-0", namespace: CastNamespace.receiver,
                payload: .string(JSONValue.object(["type": "GET_STATUS", "requestId": .number(Double(requestId))]).jsonText())))
            #expect(Array(stamped.readableBytesView) == Array(encoded.readableBytesView), "requestId \(requestId)")
        }
    }

    @Test("The reply scanner reads the requestId of castsim's own RECEIVER_STATUS, and nothing from a CONNECT")
    func scannerReadsCastsimReplies() throws {
        var device = SimulatedDevice(configuration: DeviceConfiguration(identity: try DeviceIdentity(uuid: "0123456789abcdef0123456789abcdef")))
        let connection = ConnectionID(1)
        _ = device.connectionOpened(connection, now: .zero)
        _ = device.receive(CastEnvelope(sourceId: "sender-0", destinationId: "receiver-0", namespace: CastNamespace.connection,
                                        payload: .string(#"{"type":"CONNECT"}"#)),
                           on: connection, now: .zero)
        let outputs = device.receive(CastEnvelope(sourceId: "sender-0", destinationId: "receiver-0", namespace: CastNamespace.receiver,
                                                  payload: .string(#"{"type":"GET_STATUS","requestId":48213}"#)),
                                     on: connection, now: .zero)
        let replies = outputs.compactMap { output -> CastEnvelope? in
            if case .send(let envelope, _) = output, envelope.namespace == CastNamespace.receiver { return envelope }
            return nil
        }
        let reply = try #require(replies.first)
        var frame = try CastFraming.frame(reply)
        let body = try #require(try CastFraming.nextBody(from: &frame))
        #expect(ReplyScanner.requestId(in: body) == 48213)

        var connect = CastLoadMessages.connect
        let connectBody = try #require(try CastFraming.nextBody(from: &connect))
        #expect(ReplyScanner.requestId(in: connectBody) == nil)
    }

    @Test("The echo server's canned reply has the body size it is asked for", arguments: [120, 604, 763, 5_000])
    func cannedReplySize(bytes: Int) throws {
        let reply = try EchoServer.cannedReply(bodyBytes: bytes, destination: "sender-0")
        #expect(reply.bodyBytes == bytes)
        var frame = reply.frame(requestId: 3, allocator: ByteBufferAllocator())
        let body = try #require(try CastFraming.nextBody(from: &frame))
        #expect(ReplyScanner.requestId(in: body) == 3)
        #expect(try CastFraming.parse(body: body).namespace == CastNamespace.receiver)
    }

    @Test("Percentiles are nearest-rank over every sample")
    func percentiles() throws {
        let summary = try #require(LatencyHistogram((1...1000).reversed().map { UInt64($0) * 1000 }).summary())
        #expect(summary.p50 == 500)
        #expect(summary.p99 == 990)
        #expect(summary.p999 == 999)
        #expect(summary.max == 1000)
        #expect(LatencyHistogram().summary() == nil)
    }
}

/// The executable as a user runs it, against castsim and its own echo server started from
/// the same build folder: every mode prints figures for both and their ratios.
@Suite("castsim-load: every mode against castsim and the echo server", .serialized, .timeLimit(.minutes(5)))
struct CastsimLoadRunTests {
    @Test("roundtrip: latency, throughput and server CPU for both targets, replies of the same size")
    func roundtrip() throws {
        let report = try Self.run(["roundtrip", "--senders", "2", "--requests", "400", "--json"])
        for target in ["castsim", "echo"] {
            let figures = try Self.figures(report, target)
            #expect(try Self.number(figures, "p50_us") > 0, "\(target)")
            #expect(try Self.number(figures, "p99_9_us") >= Self.number(figures, "p50_us"), "\(target)")
            #expect(try Self.number(figures, "requests_per_second") > 0, "\(target)")
            #expect(figures["server_cpu_us_per_request"] is NSNumber, "\(target): server CPU read from /proc")
        }
        #expect(try Self.number(Self.figures(report, "castsim"), "reply_bytes") == Self.number(Self.figures(report, "echo"), "reply_bytes"))
        let ratio = try #require(report["ratio"] as? [String: Any])
        #expect(ratio["p50_us"] is NSNumber)
    }

    @Test("roundtrip --followers: castsim's event stream is followed through the run, and the followers are fed")
    func followers() throws {
        // Enough requests that the measured phase takes castsim several of /proc's 10 ms CPU
        // ticks: with 200, a fast build answered them all within one tick, read as no CPU.
        let report = try Self.run(["roundtrip", "--senders", "2", "--requests", "1500", "--followers", "2", "--target", "castsim", "--json"])
        let figures = try Self.figures(report, "castsim")
        // 1,575 requests (75 of them warm-up) and their answers, each a message event of a
        // few hundred bytes, to each follower.
        #expect(try Self.number(figures, "follower_kib") > 2 * 1575 * 2 * 0.2)
        #expect(try Self.number(figures, "server_cpu_us_per_request") > 0)
    }

    @Test("roundtrip --pollers: castsim's journal is polled with a cursor through the run, and every poller reads every message")
    func pollers() throws {
        let report = try Self.run(["roundtrip", "--senders", "2", "--requests", "200", "--pollers", "2", "--target", "castsim", "--json"])
        let figures = try Self.figures(report, "castsim")
        // The pollers start on an empty journal and catch up at the end: each reads every
        // sender's CONNECT, first GET_STATUS and its answer, then 210 requests and answers.
        #expect(try Self.number(figures, "poller_messages") == 2 * (2 * 3 + 2 * 210))
        #expect(try Self.number(figures, "poller_polls") >= 4)
    }

    @Test("roundtrip --rate: the senders keep to the pace, however fast the answers come")
    func paced() throws {
        // 2 senders, 300 requests at 600 a second: each sender's 150th request is its 149th
        // turn, 149 × 1/300 s after its first. Unpaced, this run takes a few milliseconds.
        let report = try Self.run(["roundtrip", "--senders", "2", "--requests", "300", "--warmup", "0", "--rate", "600",
                                   "--target", "castsim", "--json"])
        let figures = try Self.figures(report, "castsim")
        let rate = try Self.number(figures, "requests_per_second")
        #expect(rate <= 600 * 150 / 149 + 1, "\(rate) requests/s")
        #expect(rate > 100, "\(rate) requests/s")
        let parameters = try #require(report["parameters"] as? [String: Any])
        #expect((parameters["rate"] as? NSNumber)?.doubleValue == 600)
    }

    @Test("recording: windows with recording off and on in turn, every request of the on windows written, each pair's cost read")
    func recording() throws {
        let report = try Self.run(["recording", "--senders", "2", "--requests", "1500", "--pairs", "2", "--json"])
        #expect((report["ratio"] as? [String: Any])?.isEmpty == true, "castsim only: no echo, no ratio")
        #expect((report["targets"] as? [String: Any])?.keys.sorted() == ["castsim"])
        let figures = try Self.figures(report, "castsim")
        #expect(try Self.number(figures, "castsim_cpu_us_per_request_off") > 0)
        #expect(try Self.number(figures, "castsim_cpu_us_per_request_on") > 0)
        // Two on windows of 1,500 requests: each request and its answer a line, and every
        // sender's connection opened anew in the recording.
        #expect(try Self.number(figures, "events_written") >= 2 * 2 * 1500)
        let cost = try Self.number(figures, "recording_cost_percent")
        #expect(try Self.number(figures, "recording_cost_percent_min") <= cost)
        #expect(try Self.number(figures, "recording_cost_percent_max") >= cost)
        // Every window together is the pairs' costs weighed by their off windows: within them.
        let all = try Self.number(figures, "recording_cost_percent_all")
        #expect(try Self.number(figures, "recording_cost_percent_min") <= all + 1e-9)
        #expect(try Self.number(figures, "recording_cost_percent_max") >= all - 1e-9)
        #expect(try Self.number(figures, "recording_cost_percent_interval") >= 0)
        #expect(try Self.number(figures, "budget_percent") == 10)
        #expect(figures["writer_cpu_us_per_request"] is NSNumber, "the writer thread's CPU read from /proc/PID/task")
    }

    @Test("fanout: every listener gets every round's broadcast")
    func fanout() throws {
        let report = try Self.run(["fanout", "--listeners", "5", "--requests", "40", "--json"])
        for target in ["castsim", "echo"] {
            let figures = try Self.figures(report, target)
            let rounds = try Self.number(figures, "rounds_per_second")
            // Five listeners, each with every round's status.
            #expect(abs(try Self.number(figures, "messages_per_second") / rounds - 5) < 0.01, "\(target)")
        }
    }

    @Test("idle: the idle senders are connected while the fresh sender measures")
    func idle() throws {
        let report = try Self.run(["idle", "--senders", "40", "--requests", "20", "--warmup", "10", "--settle", "0.2",
                                   "--target", "castsim", "--json"])
        let figures = try Self.figures(report, "castsim")
        #expect(try Self.number(figures, "server_descriptors") >= 41)
        #expect(figures["server_kib_per_sender"] is NSNumber)
        #expect(report["targets"].flatMap { ($0 as? [String: Any])?["echo"] } == nil)
    }

    @Test("churn: castsim's descriptors are back where they started")
    func churn() throws {
        let report = try Self.run(["churn", "--connections", "60", "--settle", "0.5", "--target", "castsim", "--json"])
        let figures = try Self.figures(report, "castsim")
        #expect(try Self.number(figures, "connections_per_second") > 0)
        #expect(try Self.number(figures, "server_descriptors_after") == Self.number(figures, "server_descriptors_before"))
    }

    @Test("devices: a household of 20 starts, idles and serves a sender on its last device, across a /24 boundary")
    func devices() throws {
        // 127.3.0.250 to 127.3.1.13: the last device is past .255.
        let report = try Self.run(["devices", "--devices", "20", "--host", "127.3.0.250", "--idle", "1", "--json"])
        #expect(try Self.number(report, "devices") == 20)
        #expect(try Self.number(report, "ready_ms") > 0)
        // Twenty idle devices are some hundreds of KiB: within the noise of a busy machine,
        // so the figures are read, not compared.
        #expect(try Self.number(report, "rss_kib") > 0 && Self.number(try #require(report["one_device"] as? [String: Any]), "rss_kib") > 0)
        #expect(report["kib_per_device"] is NSNumber && report["idle_cpu_percent"] is NSNumber)
        #expect(try Self.number(report, "last_device_round_trip_ms") > 0)
    }

    @Test("streaming: a mirroring session of 2 s is acknowledged frame by frame, and castsim's CPU is read")
    func streaming() throws {
        let report = try Self.run(["streaming", "--seconds", "2", "--json"])
        // 30 frames a second and 100 Opus frames, each acknowledged.
        #expect(try Self.number(report, "video_frames") >= 50 && Self.number(report, "audio_frames") >= 150)
        #expect(try Self.number(report, "acknowledged") >= Self.number(report, "video_frames") - 3)
        let ack = try #require(report["ack_ms"] as? [String: Any])
        #expect(try Self.number(ack, "p50") >= 0 && Self.number(ack, "max") >= Self.number(ack, "p99"))
        #expect(report["castsim_cpu_percent"] is NSNumber)
    }

    @Test("Bad options are refused with what was expected")
    func badOptions() throws {
        let refusals: [(arguments: [String], expected: String)] = [
            (["roundtrip", "--senders", "0"], "--senders must be at least 1"),
            (["idle", "--connect", "localhost"], "expected HOST:PORT"),
            (["roundtrip", "--followers", "65"], "--followers must be 0-64"),
            (["roundtrip", "--rate", "0"], "--rate must be a number of requests a second, at least 1"),
            (["roundtrip", "--pollers", "65"], "--pollers must be 0-64"),
            (["roundtrip", "--pollers", "1", "--poll-interval=-1"], "--poll-interval must be 0-60 seconds"),
            (["devices", "--devices", "10001"], "--devices must be 1-10000"),
            (["streaming", "--bit-rate", "5"], "--bit-rate must be 100000-50000000"),
            (["recording", "--pairs", "0"], "--pairs must be 1-100"),
        ]
        for (arguments, expected) in refusals {
            let (status, _, error) = try Self.execute(arguments)
            #expect(status != 0, "\(arguments)")
            #expect(error.contains(expected), "\(arguments): stderr \(error)")
        }
    }

    // MARK: Running the executable

    /// castsim-load beside this test bundle: `swift build` puts every product of the
    /// package in the one folder.
    static func executable() throws -> URL {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if folder.lastPathComponent.hasSuffix(".xctest") { folder.deleteLastPathComponent() }
        let url = folder.appendingPathComponent("castsim-load")
        guard FileManager.default.isExecutableFile(atPath: url.path),
              FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent("castsim").path) else {
            throw LoadRunFailure("castsim-load and castsim are not built in \(folder.path): run `swift build --build-tests` first")
        }
        return url
    }

    static func execute(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = arguments
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        // Read both to the end before waiting: a full pipe would block the child.
        let group = DispatchGroup()
        nonisolated(unsafe) var errorBytes = Data()
        group.enter()
        DispatchQueue.global().async {
            errorBytes = stderr.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outputBytes = stdout.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outputBytes, as: UTF8.self), String(decoding: errorBytes, as: UTF8.self))
    }

    /// Runs a mode with --json and returns the report.
    static func run(_ arguments: [String]) throws -> [String: Any] {
        let (status, output, error) = try execute(arguments)
        guard status == 0 else { throw LoadRunFailure("castsim-load \(arguments.joined(separator: " ")) exited \(status): \(error)") }
        guard let report = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] else {
            throw LoadRunFailure("not a JSON object: \(output)")
        }
        return report
    }

    static func figures(_ report: [String: Any], _ target: String) throws -> [String: Any] {
        guard let figures = (report["targets"] as? [String: Any])?[target] as? [String: Any] else {
            throw LoadRunFailure("no figures for \(target) in \(report)")
        }
        return figures
    }

    static func number(_ figures: [String: Any], _ key: String) throws -> Double {
        guard let value = figures[key] as? NSNumber else { throw LoadRunFailure("\(key) is not a number in \(figures)") }
        return value.doubleValue
    }
}

struct LoadRunFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
