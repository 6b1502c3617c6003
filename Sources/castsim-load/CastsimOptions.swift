import ArgumentParser
import Foundation

/// Which castsim a mode starts, and with what more: the options of every mode that starts one.
struct CastsimOptions: ParsableArguments {
    @Option(name: .customLong("castsim"), help: "The castsim binary to start. Default: castsim in the folder castsim-load is in.")
    var castsimPath: String?

    @Option(name: .customLong("castsim-arg"), parsing: .unconditionalSingleValue,
            help: "One more argument for `castsim run` (repeatable), e.g. --castsim-arg=--heartbeat-interval=5.")
    var castsimArguments: [String] = []

    /// `--castsim`, else castsim beside this executable: both come out of one build.
    var executable: String {
        if let castsimPath { return castsimPath }
        return URL(fileURLWithPath: LoadSession.ownExecutable()).deletingLastPathComponent().appendingPathComponent("castsim").path
    }
}
