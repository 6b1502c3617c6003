import ArgumentParser

@main
struct CastsimLoad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "castsim-load",
        abstract: "Load castsim to size a CI backend, beside a bare TLS echo server as the limit.",
        discussion: """
            Each mode starts castsim (from the same build folder, on a free loopback port) and \
            then an echo server of its own that answers every request with a reply of castsim's \
            size and does nothing else, runs the same workload against both, and prints a row \
            per server and a ratio row (castsim / echo). Latencies are p50/p99/p99.9/max in \
            microseconds after a warm-up; server CPU, memory and descriptors come from /proc.
            """,
        subcommands: [RoundTripCommand.self, RecordingCommand.self, FanoutCommand.self, IdleCommand.self, ChurnCommand.self, DevicesCommand.self, StreamingCommand.self, EchoServerCommand.self])
}
