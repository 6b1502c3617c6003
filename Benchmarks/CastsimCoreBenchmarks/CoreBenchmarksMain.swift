import Benchmark

/// The entry point package-benchmark's BenchmarkPlugin would generate, written out: that
/// build-tool plugin costs every build its generator, and swift-argument-parser and
/// swift-system compiled a second time for the host with it (some 30 CPU-seconds of a
/// release build), for these lines. `swift package benchmark` finds the target by its
/// folder under Benchmarks/, not by the plugin.
@main
struct CoreBenchmarksMain: BenchmarkRunnerHooks {
    static func registerBenchmarks() {
        _ = benchmarks()
    }
}
