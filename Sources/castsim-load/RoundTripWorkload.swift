import CastWire
import NIOCore

/// `roundtrip`: C senders, each CONNECTed to receiver-0, asking GET_STATUS one request at
/// a time: the latency of an answer, and how many answers a second the server gives.
struct RoundTripWorkload: LoadWorkload {
    let senders: Int
    /// Measured requests, over all senders.
    let requests: Int
    /// Requests before the measured ones, over all senders, not counted.
    let warmup: Int

    var mode: String { "roundtrip" }
    var echoBroadcasts: Bool { false }
    var summary: String {
        "roundtrip: \(senders) sender\(senders == 1 ? "" : "s") asking GET_STATUS, \(requests) requests measured after \(warmup) warm-up"
    }
    var parameters: [String: JSONValue] {
        ["senders": .number(Double(senders)), "requests": .number(Double(requests)), "warmup": .number(Double(warmup))]
    }

    func run(against target: LoadTarget) async throws -> WorkloadResult {
        let progress = LoadProgress()
        // Every sender's first request is requestId 1: its answer is the reference size.
        let (connections, replyBytes) = try await target.openSenders(senders, concurrency: 16, requestId: { _ in 1 }, progress: progress)
        do {
            let warmups = connections.indices.map { Self.share(of: warmup, part: $0, of: senders) }
            _ = try await progress.awaitPhase("the warm-up", of: target, connections.indices.map { index in
                RequestLoop.run(connections[index], firstId: 2, count: warmups[index], record: false, progress: progress)
            }, closingOnStall: connections)

            let window = try MeasuredWindow(target)
            let samples = try await progress.awaitPhase("the measured requests", of: target, connections.indices.map { index in
                RequestLoop.run(connections[index], firstId: 2 + warmups[index], count: Self.share(of: requests, part: index, of: senders),
                                record: true, progress: progress)
            }, closingOnStall: connections)
            let figures = try window.end(target)
            await LoadTarget.close(connections)

            var latencies = LatencyHistogram()
            for part in samples { latencies.merge(part) }
            let latency = latencies.summary()
            return WorkloadResult(metrics: [
                Metric("requests", "requests", Double(requests), .count, compared: false),
                Metric("requests_per_second", "req/s", Double(requests) / figures.seconds, .rate),
            ] + Metric.latencies(latency) + [
                Metric("server_cpu_us_per_request", "srv CPU µs/req", figures.serverMicros(per: requests), .micros),
                Metric("load_cpu_us_per_request", "load CPU µs/req", figures.ownMicros(per: requests), .micros),
                Metric("server_rss_mib", "srv RSS MiB", figures.serverAfter.map { Double($0.rssKiB) / 1024 }, .mebibytes),
                Metric("reply_bytes", "reply B", replyBytes.map(Double.init), .count),
            ], referenceReplyBytes: replyBytes)
        } catch {
            await LoadTarget.close(connections)
            throw error
        }
    }
}
