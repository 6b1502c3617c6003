import CastWire
import NIOCore

/// `idle`: N senders CONNECTed to receiver-0 that then say nothing: what each costs the
/// server in memory, and whether a fresh sender's GET_STATUS slows down beside them.
struct IdleWorkload: LoadWorkload {
    let senders: Int
    /// The fresh sender's measured requests.
    let requests: Int
    /// The fresh sender's requests before "before" is read. The default fills castsim's
    /// message journal (it keeps the last 10,000 messages senders sent, `--journal-limit`),
    /// so that bounded, one-off growth is not charged to the idle senders.
    let warmup: Int
    /// Handshakes in flight while the idle senders connect.
    let concurrency: Int
    /// Seconds between the last idle sender's answer and reading "after".
    let settleSeconds: Double

    static let defaultWarmup = 10_000

    var mode: String { "idle" }
    var echoBroadcasts: Bool { false }
    var summary: String {
        "idle: \(senders) connected senders that stay silent; a fresh sender's GET_STATUS, \(requests) requests measured after \(warmup) warm-up"
    }
    var parameters: [String: JSONValue] {
        ["senders": .number(Double(senders)), "requests": .number(Double(requests)), "warmup": .number(Double(warmup)),
         "concurrency": .number(Double(concurrency)), "settle_seconds": .number(settleSeconds)]
    }

    func run(against target: LoadTarget) async throws -> WorkloadResult {
        let progress = LoadProgress()
        let (fresh, _) = try await target.openSenders(1, concurrency: 1, requestId: { _ in 1 }, progress: progress)
        var connections = fresh
        do {
            _ = try await progress.awaitPhase("the warm-up", of: target, [
                RequestLoop.run(fresh[0], firstId: 2, count: warmup, record: false, progress: progress),
            ], closingOnStall: connections)
            let before = try target.pid.map(ProcessFigures.sample(pid:))

            let (idle, replyBytes) = try await target.openSenders(senders, concurrency: concurrency, requestId: { _ in 1 },
                                                                  progress: progress)
            connections += idle
            try await Task.sleep(for: .seconds(settleSeconds))
            let after = try target.pid.map(ProcessFigures.sample(pid:))

            let window = try MeasuredWindow(target)
            let samples = try await progress.awaitPhase("the fresh sender's requests", of: target, [
                RequestLoop.run(fresh[0], firstId: 2 + warmup, count: requests, record: true, progress: progress),
            ], closingOnStall: connections)
            let figures = try window.end(target)
            await LoadTarget.close(connections)

            let latency = LatencyHistogram(samples[0]).summary()
            var growth: Double?
            if let before, let after { growth = Double(after.rssKiB - before.rssKiB) / Double(senders) }
            return WorkloadResult(metrics: [
                Metric("senders", "senders", Double(senders), .count, compared: false),
                Metric("server_rss_before_mib", "RSS before MiB", before.map { Double($0.rssKiB) / 1024 }, .mebibytes),
                Metric("server_rss_after_mib", "RSS after MiB", after.map { Double($0.rssKiB) / 1024 }, .mebibytes),
                Metric("server_kib_per_sender", "KiB/sender", growth, .kibibytes),
                Metric("server_descriptors", "srv fds", after.map { Double($0.descriptors) }, .count),
            ] + Metric.latencies(latency) + [
                Metric("server_cpu_us_per_request", "srv CPU µs/req", figures.serverMicros(per: requests), .micros),
                Metric("reply_bytes", "reply B", replyBytes.map(Double.init), .count),
            ], referenceReplyBytes: replyBytes)
        } catch {
            await LoadTarget.close(connections)
            throw error
        }
    }
}
