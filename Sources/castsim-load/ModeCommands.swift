import ArgumentParser

/// `castsim-load roundtrip`
struct RoundTripCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roundtrip",
        abstract: "C senders asking GET_STATUS, one request at a time each: latency and requests/s.")

    @Option(help: "Concurrent senders (C), each on its own TLS connection.")
    var senders = 1

    @Option(help: "Measured requests (R), shared out among the senders.")
    var requests = 20_000

    @Option(help: "Requests before the measured ones, not counted. Default: 5% of --requests.")
    var warmup: Int?

    @Option(help: "Clients following castsim's event stream of messages (GET /api/v1/events?types=message) through the run: what they cost castsim shows against a run without (castsim only; at most 64, the control API's limit).")
    var followers = 0

    @Option(help: "Clients following castsim's journal by polling it with a cursor (GET /api/v1/journal?after=SEQ&limit=10000), each once its last answer is in and --poll-interval has passed (castsim only).")
    var pollers = 0

    @Option(help: "Seconds a journal poller waits after an answer before it asks again.")
    var pollInterval = 0.05

    @Option(help: "Requests a second over all senders: each sender also waits for its turn, so castsim and the echo are compared at the same load below their limits (the latency a sender sees at that load). Default: each request as soon as the last is answered.")
    var rate: Double?

    @OptionGroup var options: TargetOptions

    func validate() throws {
        guard senders >= 1 else { throw ValidationError("--senders must be at least 1") }
        if let rate, !(rate.isFinite && rate >= 1) { throw ValidationError("--rate must be a number of requests a second, at least 1") }
        guard requests >= senders else { throw ValidationError("--requests (\(requests)) must be at least --senders (\(senders)): every sender asks") }
        try checkWarmup(warmup)
        guard (0...64).contains(followers) else { throw ValidationError("--followers must be 0-64 (the control API's limit on open streams)") }
        guard (0...64).contains(pollers) else { throw ValidationError("--pollers must be 0-64") }
        guard pollInterval.isFinite, pollInterval >= 0, pollInterval <= 60 else {
            throw ValidationError("--poll-interval must be 0-60 seconds")
        }
        if options.connect != nil, let option = [("--followers", followers), ("--pollers", pollers)].first(where: { $0.1 > 0 })?.0 {
            throw ValidationError("\(option) needs a castsim started here (its control API's address comes from its ready line), not --connect")
        }
    }

    func run() async throws {
        try await LoadSession(options: options).run(
            RoundTripWorkload(senders: senders, requests: requests, warmup: warmup ?? defaultWarmup(requests), followers: followers,
                              pollers: pollers, pollInterval: pollInterval, rate: rate))
    }
}

/// `castsim-load recording`
struct RecordingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recording",
        abstract: "What writing a recording costs: windows of GET_STATUS round trips with recording off and on in turn, in one castsim.",
        discussion: """
            Starts castsim with its control API, opens C senders, and runs P pairs of measured \
            windows of R requests each on the same connections, recording off in one and on in \
            the other (POST and DELETE /api/v1/recording, to a file in the temporary folder, \
            removed after); the order turns each pair. Prints castsim's median CPU per request off \
            and on (its threads' nanoseconds, from /proc/PID/task/*/schedstat), the writer \
            thread's part, and each pair's extra CPU as a percentage: its \
            median, least and most; then every window's CPU together, on against off, and \
            the 95 % interval of the pairs' mean, beside issue 27's budget of 10 %. \
            castsim only: the echo \
            server records nothing.
            """)

    @Option(help: "Concurrent senders (C), each on its own TLS connection.")
    var senders = 10

    @Option(help: "Measured requests (R) in each window, shared out among the senders.")
    var requests = 100_000

    @Option(help: "Pairs of windows (P), one recording off and one on.")
    var pairs = 6

    @Option(help: "Requests before the first window, not counted. Default: 5% of --requests.")
    var warmup: Int?

    @Option(help: "Requests a second over all senders, as in roundtrip. Default: each request as soon as the last is answered.")
    var rate: Double?

    @OptionGroup var castsim: CastsimOptions

    @Flag(help: "Print one JSON object instead of the table.")
    var json = false

    func validate() throws {
        guard senders >= 1 else { throw ValidationError("--senders must be at least 1") }
        guard requests >= senders else { throw ValidationError("--requests (\(requests)) must be at least --senders (\(senders)): every sender asks") }
        guard (1...100).contains(pairs) else { throw ValidationError("--pairs must be 1-100") }
        try checkWarmup(warmup)
        if let rate, !(rate.isFinite && rate >= 1) { throw ValidationError("--rate must be a number of requests a second, at least 1") }
    }

    func run() async throws {
        var options = try TargetOptions.parse(["--target", "castsim"] + (json ? ["--json"] : []))
        options.castsim = castsim
        try await LoadSession(options: options).run(
            RecordingWorkload(senders: senders, requests: requests, warmup: warmup ?? defaultWarmup(requests), pairs: pairs, rate: rate))
    }
}

/// `castsim-load fanout`
struct FanoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fanout",
        abstract: "L listeners on receiver-0, one driver sending SET_VOLUME: time until the last listener has the broadcast status.")

    @Option(help: "Listening senders (L).")
    var listeners = 100

    @Option(help: "Measured rounds (R): SET_VOLUME requests, each sent when every listener has the last one's status.")
    var requests = 2_000

    @Option(help: "Rounds before the measured ones, not counted. Default: 5% of --requests.")
    var warmup: Int?

    @OptionGroup var options: TargetOptions

    func validate() throws {
        guard listeners >= 1 else { throw ValidationError("--listeners must be at least 1") }
        guard requests >= 1 else { throw ValidationError("--requests must be at least 1") }
        try checkWarmup(warmup)
        guard requests + (warmup ?? 0) < FanoutWorkload.listenerIdBase - 1 else {
            throw ValidationError("--requests and --warmup: at most \(FanoutWorkload.listenerIdBase - 2) rounds")
        }
    }

    func run() async throws {
        try await LoadSession(options: options).run(
            FanoutWorkload(listeners: listeners, requests: requests, warmup: warmup ?? defaultWarmup(requests)))
    }
}

/// `castsim-load idle`
struct IdleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "idle",
        abstract: "N connected senders that stay silent: server memory per sender, and a fresh sender's latency beside them.")

    @Option(help: "Idle senders (N), each CONNECTed to receiver-0 and answered once.")
    var senders = 2_000

    @Option(help: "The fresh sender's measured GET_STATUS requests while the idle senders stay connected.")
    var requests = 200

    @Option(help: "The fresh sender's requests before memory is first read. Default: \(IdleWorkload.defaultWarmup), which fills castsim's journal of the last 10,000 messages.")
    var warmup: Int?

    @Option(help: "TLS handshakes in flight while the idle senders connect.")
    var concurrency = 32

    @Option(help: "Seconds to wait after the last idle sender connected before reading memory.")
    var settle = 2.0

    @OptionGroup var options: TargetOptions

    func validate() throws {
        guard senders >= 1 else { throw ValidationError("--senders must be at least 1") }
        guard requests >= 1 else { throw ValidationError("--requests must be at least 1") }
        try checkWarmup(warmup)
        guard concurrency >= 1 else { throw ValidationError("--concurrency must be at least 1") }
        guard settle >= 0, settle <= 600 else { throw ValidationError("--settle must be 0-600 seconds") }
    }

    func run() async throws {
        try await LoadSession(options: options).run(
            IdleWorkload(senders: senders, requests: requests, warmup: warmup ?? IdleWorkload.defaultWarmup,
                         concurrency: concurrency, settleSeconds: settle))
    }
}

/// `castsim-load churn`
struct ChurnCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "churn",
        abstract: "K short connections (TLS, CONNECT, GET_STATUS, close): connections/s, CPU per connection, what is left after.")

    @Option(help: "Measured connections (K).")
    var connections = 2_000

    @Option(help: "Connections open at a time.")
    var concurrency = 4

    @Option(help: "Connections before the measured ones, not counted. Default: 5% of --connections.")
    var warmup: Int?

    @Option(help: "Seconds to wait after the last close before reading memory and descriptors.")
    var settle = 1.0

    @OptionGroup var options: TargetOptions

    func validate() throws {
        guard connections >= 1 else { throw ValidationError("--connections must be at least 1") }
        guard concurrency >= 1 else { throw ValidationError("--concurrency must be at least 1") }
        try checkWarmup(warmup)
        guard settle >= 0, settle <= 600 else { throw ValidationError("--settle must be 0-600 seconds") }
    }

    func run() async throws {
        try await LoadSession(options: options).run(
            ChurnWorkload(connections: connections, concurrency: concurrency, warmup: warmup ?? defaultWarmup(connections),
                          settleSeconds: settle))
    }
}

private func checkWarmup(_ warmup: Int?) throws {
    if let warmup, warmup < 0 { throw ValidationError("--warmup must be 0 or more") }
}
