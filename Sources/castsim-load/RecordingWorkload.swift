import CastWire
import Foundation
import NIOCore

/// `recording`: what writing a recording costs castsim. C senders ask GET_STATUS as in
/// `roundtrip`, in pairs of measured windows on the same connections and the same process,
/// one with recording off and one with it on (started and stopped through the control API,
/// `POST` and `DELETE /api/v1/recording`), the order turned each pair so a machine that
/// speeds up or slows down through the run weighs on both sides alike. The cost is each
/// pair's ratio, and the median of them: runs of separate processes differed by up to 45 %
/// on the machine castsim is developed on, more than the cost being measured.
struct RecordingWorkload: LoadWorkload {
    let senders: Int
    /// Measured requests in each window, over all senders.
    let requests: Int
    let warmup: Int
    let pairs: Int
    var rate: Double?

    /// Issue 27's budget: recording on costs at most this much more CPU per message.
    static let budgetPercent = 10.0

    var mode: String { "recording" }
    var echoBroadcasts: Bool { false }
    var castsimArguments: [String] { ["--control-port", "0"] }
    var summary: String {
        "recording: \(senders) sender\(senders == 1 ? "" : "s") asking GET_STATUS, \(pairs) pairs of windows of \(requests) requests, "
            + "recording off and on in turn in one castsim" + (rate.map { ", paced at \(NumberText.format($0)) requests/s" } ?? "")
    }
    var parameters: [String: JSONValue] {
        ["senders": .number(Double(senders)), "requests": .number(Double(requests)), "warmup": .number(Double(warmup)),
         "pairs": .number(Double(pairs)), "rate": rate.map(JSONValue.number) ?? .null]
    }

    /// One measured window: CPU per request over the process's threads, and the writer
    /// thread's part, from the scheduler's nanoseconds (windows are short, and /proc/PID/stat's
    /// 10 ms ticks would be a coarse part of a writer's 100 ms).
    private struct Window {
        var serverMicros: Double
        var writerMicros: Double
    }

    func run(against target: LoadTarget) async throws -> WorkloadResult {
        guard let control = target.control, let pid = target.pid else {
            throw LoadError("recording needs castsim's control API and process, and this castsim printed no control address")
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("castsim-load-recording-\(getpid()).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let progress = LoadProgress()
        var connections: [LoadConnection] = []
        do {
            let (opened, _) = try await target.openSenders(senders, concurrency: 16, requestId: { _ in 1 }, progress: progress)
            connections = opened
            let pace = { (index: Int) in rate.map { RequestLoop.Pace(rate: $0, sender: index, of: senders) } }
            var nextIds = connections.map { _ in 2 }
            func requestsRun(_ count: Int, _ phase: String, record: Bool) async throws {
                let shares = connections.indices.map { Self.share(of: count, part: $0, of: senders) }
                _ = try await progress.awaitPhase(phase, of: target, connections.indices.map { index in
                    RequestLoop.run(connections[index], firstId: nextIds[index], count: shares[index], record: record,
                                    progress: progress, pace: pace(index))
                }, closingOnStall: connections)
                for index in connections.indices { nextIds[index] += shares[index] }
            }
            try await requestsRun(warmup, "the warm-up", record: false)

            var off: [Window] = []
            var on: [Window] = []
            var eventsWritten = 0
            for pair in 0..<pairs {
                for recording in pair % 2 == 0 ? [false, true] : [true, false] {
                    if recording {
                        let body: JSONValue = ["path": .string(path), "overwrite": true]
                        let answer = try await ControlRequest.send("POST", "/api/v1/recording", body: body.jsonText(), to: control,
                                                                   group: target.group)
                        guard answer.status == 201 else { throw LoadError("POST /api/v1/recording answered \(answer.status): \(answer.body)") }
                    }
                    let before = try ProcessFigures.threadRuntimes(pid: pid)
                    try await requestsRun(requests, "window \(on.count + off.count + 1) (recording \(recording ? "on" : "off"))", record: false)
                    let after = try ProcessFigures.threadRuntimes(pid: pid)
                    var server: UInt64 = 0
                    var writer: UInt64 = 0
                    for (id, thread) in after {
                        let ran = thread.nanoseconds - min(thread.nanoseconds, before[id]?.nanoseconds ?? 0)
                        server += ran
                        if thread.name == "castsim-record" { writer += ran }
                    }
                    let measured = Window(serverMicros: Double(server) / 1e3 / Double(requests),
                                          writerMicros: Double(writer) / 1e3 / Double(requests))
                    if recording {
                        on.append(measured)
                        let answer = try await ControlRequest.send("DELETE", "/api/v1/recording", to: control, group: target.group)
                        guard answer.status == 200, let events = (try? JSONValue.parse(answer.body))?["events"]?.doubleValue else {
                            throw LoadError("DELETE /api/v1/recording answered \(answer.status): \(answer.body)")
                        }
                        // Each request and its answer is a line: a recording that fell behind
                        // and dropped some would be measured doing less than its work.
                        guard Int(events) >= 2 * requests else {
                            throw LoadError("the recording of a window of \(requests) requests has \(Int(events)) events: it fell behind")
                        }
                        eventsWritten += Int(events)
                    } else {
                        off.append(measured)
                    }
                }
            }
            await LoadTarget.close(connections)

            let costs = zip(off, on).map { ($1.serverMicros / $0.serverMicros - 1) * 100 }
            // Every window's CPU together, on against off: a window's figure swings by a
            // third on a shared machine (steal, neighbours' caches), and sums weigh each
            // request alike where a median of ratios throws most of them away.
            let allWindows = (on.reduce(0) { $0 + $1.serverMicros } / off.reduce(0) { $0 + $1.serverMicros } - 1) * 100
            return WorkloadResult(metrics: [
                Metric("castsim_cpu_us_per_request_off", "off µs/req", Self.median(off.map(\.serverMicros)), .micros),
                Metric("castsim_cpu_us_per_request_on", "on µs/req", Self.median(on.map(\.serverMicros)), .micros),
                Metric("writer_cpu_us_per_request", "writer µs/req", Self.median(on.map(\.writerMicros)), .micros),
                Metric("recording_cost_percent", "cost % (median)", Self.median(costs), .micros),
                Metric("recording_cost_percent_all", "cost % (all)", allWindows, .micros),
                Metric("recording_cost_percent_interval", "± (95 %)", Self.interval95(costs), .micros),
                Metric("recording_cost_percent_min", "min %", costs.min(), .micros),
                Metric("recording_cost_percent_max", "max %", costs.max(), .micros),
                Metric("budget_percent", "budget %", Self.budgetPercent, .micros, compared: false),
                Metric("events_written", "events written", Double(eventsWritten), .count, compared: false),
            ], referenceReplyBytes: nil)
        } catch {
            await LoadTarget.close(connections)
            throw error
        }
    }

    /// Half the width of the 95 % confidence interval of the mean of `values` (1.96
    /// standard errors); nil for fewer than two.
    static func interval95(_ values: [Double]) -> Double? {
        guard values.count > 1 else { return nil }
        let mean = values.reduce(0, +) / Double(values.count)
        let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count - 1)
        return 1.96 * (variance / Double(values.count)).squareRoot()
    }

    /// The middle value (the mean of the two middle ones for an even count); nil for none.
    static func median(_ values: [Double]) -> Double? {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return nil }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
