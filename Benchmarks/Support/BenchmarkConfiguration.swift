// What every castsim benchmark target shares: how a hot path is measured and checked,
// fixtures made in setup, and the resident memory figure.

import Benchmark

/// Allowed p90 deviation from the checked-in threshold, in percent. A 2x regression is +100 %.
package enum Tolerance {
    /// Allocation counts are the same run to run, bar a few from the runtime; 2x fails.
    package static let allocations: BenchmarkThresholds.RelativeThreshold = 25
    /// Wall clock on a 2-core machine shared with builds: fails only beyond 3x slower.
    package static let wallClock: BenchmarkThresholds.RelativeThreshold = 200
}

/// A hot path: `scalingFactor` operations per iteration, about a second of measuring, with
/// thresholds on its allocations and wall clock (`scripts/bench.sh check|update` pass
/// `--metric mallocCountTotal --metric wallClock`). Hardware instruction counters are not
/// available on the machines this runs on (perf_event_open fails), so `.instructions` is not
/// used; add it here where it is.
package func hotPath(_ scalingFactor: BenchmarkScalingFactor = .kilo, maxIterations: Int = 60) -> Benchmark.Configuration {
    .init(
        metrics: [.throughput, .wallClock, .mallocCountTotal],
        timeUnits: .microseconds,
        warmupIterations: 2,
        scalingFactor: scalingFactor,
        maxDuration: .milliseconds(1_500),
        maxIterations: maxIterations,
        thresholds: [
            .mallocCountTotal: .init(relative: [.p90: Tolerance.allocations]),
            .wallClock: .init(relative: [.p90: Tolerance.wallClock]),
        ]
    )
}

/// State made in a benchmark's setup and dropped in its teardown, so that registering every
/// benchmark (which the runner does for each one it runs) costs nothing.
package final class Fixture<State>: @unchecked Sendable {
    /// Where the state lives while it exists. A pointer, not an optional: `state!` makes a
    /// copy even in a `_read`, and a copy of the whole state for each `value.tick` read in a
    /// benchmark's loop (every reference in it retained and released) was 13 % of
    /// `scenario.plain-receiver-get-status`.
    private var state: UnsafeMutablePointer<State>?
    /// Read and mutated in place: a get-then-set would also copy a session's
    /// 10,000-message journal, and measure the copy.
    package var value: State {
        _read { yield state!.pointee }
        _modify { yield &state!.pointee }
    }
    package init() {}
    package func make(_ body: () throws -> State) rethrows {
        let made = try body()
        drop()
        state = .allocate(capacity: 1)
        state!.initialize(to: made)
    }
    package func drop() {
        guard let state else { return }
        state.deinitialize(count: 1)
        state.deallocate()
        self.state = nil
    }
    deinit { drop() }
}

/// The process's resident memory now, from /proc (-1 where there is none).
package func residentKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return -1 }
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
}
