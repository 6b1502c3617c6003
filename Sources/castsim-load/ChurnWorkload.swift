import CastWire
import NIOConcurrencyHelpers
import NIOCore

/// `churn`: K short-lived senders, a few at a time: TLS connect, CONNECT, GET_STATUS,
/// close. How many the server takes a second, what each costs, and whether memory and
/// descriptors come back afterwards.
struct ChurnWorkload: LoadWorkload {
    let connections: Int
    let concurrency: Int
    let warmup: Int
    /// Seconds after the last close before "after" is read: the server closes its side
    /// when it sees ours.
    let settleSeconds: Double

    var mode: String { "churn" }
    var echoBroadcasts: Bool { false }
    var summary: String {
        "churn: \(connections) connections (TLS, CONNECT, GET_STATUS, close), \(concurrency) at a time, after \(warmup) warm-up"
    }
    var parameters: [String: JSONValue] {
        ["connections": .number(Double(connections)), "concurrency": .number(Double(concurrency)),
         "warmup": .number(Double(warmup)), "settle_seconds": .number(settleSeconds)]
    }

    func run(against target: LoadTarget) async throws -> WorkloadResult {
        _ = try await cycle(warmup, against: target)
        try await Task.sleep(for: .seconds(settleSeconds))
        let window = try MeasuredWindow(target)
        let (latencies, replyBytes) = try await cycle(connections, against: target)
        let figures = try window.end(target)
        try await Task.sleep(for: .seconds(settleSeconds))
        let after = try target.pid.map(ProcessFigures.sample(pid:))

        let latency = latencies.summary()
        return WorkloadResult(metrics: [
            Metric("connections", "conns", Double(connections), .count, compared: false),
            Metric("connections_per_second", "conns/s", Double(connections) / figures.seconds, .rate),
        ] + Metric.latencies(latency) + [
            Metric("server_cpu_us_per_connection", "srv CPU µs/conn", figures.serverMicros(per: connections), .micros),
            Metric("load_cpu_us_per_connection", "load CPU µs/conn", figures.ownMicros(per: connections), .micros),
            Metric("server_rss_before_mib", "RSS before MiB", figures.serverBefore.map { Double($0.rssKiB) / 1024 }, .mebibytes),
            Metric("server_rss_after_mib", "RSS after MiB", after.map { Double($0.rssKiB) / 1024 }, .mebibytes),
            Metric("server_descriptors_before", "fds before", figures.serverBefore.map { Double($0.descriptors) }, .count),
            Metric("server_descriptors_after", "fds after", after.map { Double($0.descriptors) }, .count),
        ], referenceReplyBytes: replyBytes)
    }

    /// Opens, uses and closes `count` connections, `concurrency` at a time; the latency of
    /// each is from the connect call to the GET_STATUS answer.
    private func cycle(_ count: Int, against target: LoadTarget) async throws -> (LatencyHistogram, Int?) {
        let next = NIOLockedValueBox(0)
        let progress = LoadProgress()
        return try await withThrowingTaskGroup(of: (LatencyHistogram, Int?).self) { group in
            for _ in 0..<min(concurrency, count) {
                group.addTask {
                    var latencies = LatencyHistogram()
                    var replyBytes: Int?
                    while case let index = next.withLockedValue({ value -> Int in defer { value += 1 }; return value }),
                          index < count {
                        let start = LoadClock.now()
                        let connection = try await LoadConnection.open(target).get()
                        do {
                            let bytes = try await connection.connectToReceiver(requestId: 1).get()
                            latencies.record(LoadClock.now() &- start)
                            if replyBytes == nil { replyBytes = bytes }
                        } catch {
                            _ = try? await connection.close().get()
                            throw LoadError("connection \(index + 1) of \(count) to \(target.name) failed: \(error)")
                        }
                        try await connection.close().get()
                        progress.advance()
                    }
                    return (latencies, replyBytes)
                }
            }
            var all = LatencyHistogram()
            var replyBytes: Int?
            for try await (latencies, bytes) in group {
                all.merge(latencies.samples)
                replyBytes = replyBytes ?? bytes
            }
            return (all, replyBytes)
        }
    }
}
