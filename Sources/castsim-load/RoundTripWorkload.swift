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
    /// Clients following castsim's event stream (its messages) through the run.
    var followers = 0
    /// Clients following castsim's journal through the run, polling it with a cursor every
    /// `pollInterval` seconds.
    var pollers = 0
    var pollInterval = 0.05
    /// Requests a second over all senders, or nil: each request as soon as the last is answered.
    var rate: Double?

    var mode: String { "roundtrip" }
    var echoBroadcasts: Bool { false }
    var castsimArguments: [String] { followers + pollers > 0 ? ["--control-port", "0"] : [] }
    var summary: String {
        "roundtrip: \(senders) sender\(senders == 1 ? "" : "s") asking GET_STATUS, \(requests) requests measured after \(warmup) warm-up"
            + (rate.map { ", paced at \(NumberText.format($0)) requests/s" } ?? "")
            + (followers > 0 ? ", \(followers) event-stream follower\(followers == 1 ? "" : "s") of castsim's messages" : "")
            + (pollers > 0 ? ", \(pollers) journal poller\(pollers == 1 ? "" : "s") every \(NumberText.format(pollInterval)) s" : "")
    }
    var parameters: [String: JSONValue] {
        ["senders": .number(Double(senders)), "requests": .number(Double(requests)), "warmup": .number(Double(warmup)),
         "followers": .number(Double(followers)), "rate": rate.map(JSONValue.number) ?? .null,
         "pollers": .number(Double(pollers)), "poll_interval": .number(pollInterval)]
    }

    /// Sender `index`'s pace, when the run is paced.
    private func pace(_ index: Int) -> RequestLoop.Pace? {
        rate.map { RequestLoop.Pace(rate: $0, sender: index, of: senders) }
    }

    func run(against target: LoadTarget) async throws -> WorkloadResult {
        let progress = LoadProgress()
        // The control API's clients are castsim's alone: the echo server has none.
        var control: SocketAddress?
        if followers + pollers > 0, target.name == "castsim" {
            guard let address = target.control else {
                throw LoadError("--followers and --pollers need castsim's control API, and this castsim printed none on its ready line")
            }
            control = address
        }
        var following: EventFollowers?
        var polling: JournalPollers?
        // Whatever fails on the way, every client opened so far is closed.
        var connections: [LoadConnection] = []
        func closeAll() async {
            await LoadTarget.close(connections)
            await following?.close()
            await polling?.close()
        }
        do {
            if let control, followers > 0 {
                following = try await EventFollowers.open(followers, to: control, types: "message", group: target.group)
            }
            if let control, pollers > 0 {
                polling = try await JournalPollers.start(pollers, to: control, every: .nanoseconds(Int64(pollInterval * 1e9)),
                                                         group: target.group)
            }
            // Every sender's first request is requestId 1: its answer is the reference size.
            let (opened, replyBytes) = try await target.openSenders(senders, concurrency: 16, requestId: { _ in 1 }, progress: progress)
            connections = opened
            let warmups = connections.indices.map { Self.share(of: warmup, part: $0, of: senders) }
            _ = try await progress.awaitPhase("the warm-up", of: target, connections.indices.map { index in
                RequestLoop.run(connections[index], firstId: 2, count: warmups[index], record: false, progress: progress, pace: pace(index))
            }, closingOnStall: connections)

            let window = try MeasuredWindow(target)
            let samples = try await progress.awaitPhase("the measured requests", of: target, connections.indices.map { index in
                RequestLoop.run(connections[index], firstId: 2 + warmups[index], count: Self.share(of: requests, part: index, of: senders),
                                record: true, progress: progress, pace: pace(index))
            }, closingOnStall: connections)
            let figures = try window.end(target)
            let followedBytes = following?.bytes
            try await polling?.catchUp()
            let polled = polling?.figures
            await closeAll()

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
            ] + (following == nil ? [] : [
                // Over the whole run, warm-up included: evidence the followers were fed, not a rate.
                Metric("follower_kib", "followers got KiB", followedBytes.map { Double($0) / 1024 }, .kibibytes, compared: false),
            ]) + (polled.map { polled in [
                // Every message from the pollers' start to the end of the run (they catch up
                // then), over all of them: evidence they kept reading, not a rate.
                Metric("poller_messages", "pollers got msgs", Double(polled.messages), .count, compared: false),
                Metric("poller_polls", "polls", Double(polled.polls), .count, compared: false),
            ] } ?? []), referenceReplyBytes: replyBytes)
        } catch {
            await closeAll()
            throw error
        }
    }
}
