import CastWire

/// One of the load generator's modes, run the same way against each target.
protocol LoadWorkload: Sendable {
    /// The subcommand's name: roundtrip, fanout, idle, churn.
    var mode: String { get }
    /// One line saying what was run, above the table.
    var summary: String { get }
    /// The run's parameters, for --json.
    var parameters: [String: JSONValue] { get }
    /// Whether the echo server must send each reply to every connection (fan-out).
    var echoBroadcasts: Bool { get }
    /// What the workload needs of a castsim started for it, beyond the load run's own arguments.
    var castsimArguments: [String] { get }

    func run(against target: LoadTarget) async throws -> WorkloadResult
}

/// A workload's figures for one target.
struct WorkloadResult: Sendable {
    var metrics: [Metric]
    /// Body bytes of the server's answer to requestId 1: what the echo server's canned
    /// reply is padded to, so both targets send replies of the same size.
    var referenceReplyBytes: Int?
}

extension LoadWorkload {
    var castsimArguments: [String] { [] }

    /// `count` split over `parts` as evenly as can be (the first ones get the remainder).
    static func share(of count: Int, part: Int, of parts: Int) -> Int {
        count / parts + (part < count % parts ? 1 : 0)
    }
}

/// The default warm-up: 5% of the measured work, at least one.
func defaultWarmup(_ measured: Int) -> Int { max(1, measured / 20) }
