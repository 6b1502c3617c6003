import ArgumentParser

/// Which servers a run loads, and how: the options every mode shares.
struct TargetOptions: ParsableArguments {
    enum Choice: String, ExpressibleByArgument, CaseIterable {
        case castsim, echo, both
    }

    @Option(help: "castsim, echo or both. both runs castsim first: the size of its answers sets the echo server's.")
    var target: Choice = .both

    @OptionGroup var castsim: CastsimOptions

    @Option(help: "HOST:PORT of a castsim already running, to load instead of starting one.")
    var connect: String?

    @Option(name: .customLong("server-pid"), help: "With --connect: the process id of that castsim, for its CPU, memory and descriptors (else they are left out).")
    var serverPid: Int32?

    @Option(help: "Event loop threads of the load generator. Keep 1 on a 2-core machine: the server needs the other core.")
    var threads = 1

    @Option(name: .customLong("reply-bytes"), help: "With --target echo: the body size of the echo server's reply (castsim's answer to requestId 1). Default: measured from castsim when both run, else \(Self.defaultReplyBytes).")
    var replyBytes: Int?

    @Flag(help: "Print one JSON object instead of the table.")
    var json = false

    /// castsim's answer to GET_STATUS requestId 1 from a fresh default device, measured
    /// with this version; only used when castsim does not run first.
    static let defaultReplyBytes = 604

    func validate() throws {
        guard (1...64).contains(threads) else { throw ValidationError("--threads must be 1-64") }
        if let connect, Self.hostAndPort(connect) == nil {
            throw ValidationError("--connect \"\(connect)\": expected HOST:PORT, e.g. 127.0.0.1:8009")
        }
        if connect != nil, castsim.castsimPath != nil { throw ValidationError("--connect and --castsim exclude each other: one names a running castsim, the other one to start") }
        if connect != nil, !castsim.castsimArguments.isEmpty { throw ValidationError("--castsim-arg needs a castsim started here, not --connect") }
        if serverPid != nil, connect == nil { throw ValidationError("--server-pid goes with --connect (a castsim started here is measured anyway)") }
        if let serverPid, serverPid <= 0 { throw ValidationError("--server-pid must be a process id") }
        if target == .echo, connect != nil || castsim.castsimPath != nil || !castsim.castsimArguments.isEmpty {
            throw ValidationError("--target echo loads only the echo server: --connect, --castsim and --castsim-arg do not apply")
        }
        if let replyBytes, !(1...60_000).contains(replyBytes) { throw ValidationError("--reply-bytes must be 1-60000") }
    }

    /// "host:port" or "[v6]:port".
    static func hostAndPort(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
              (1...65535).contains(port) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }
}
