import NIOCore

/// Latency samples of one measured phase, in nanoseconds, with exact percentiles.
///
/// Every sample is kept rather than bucketed: a run is at most a few million samples of
/// 8 bytes, and an exact p99.9 of a short run is worth more here than the memory.
package struct LatencyHistogram: Sendable {
    private(set) var samples: [UInt64] = []

    package init() {}

    package init(_ samples: [UInt64]) { self.samples = samples }

    mutating func record(_ nanoseconds: UInt64) { samples.append(nanoseconds) }

    mutating func merge(_ other: [UInt64]) { samples.append(contentsOf: other) }

    var count: Int { samples.count }

    /// The figures a report prints, in microseconds; nil without samples.
    package func summary() -> Summary? {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        /// Nearest rank: the smallest sample with at least `fraction` of them at or below it.
        func rank(_ fraction: Double) -> Double {
            let index = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
            return Double(sorted[min(max(index, 0), sorted.count - 1)]) / 1000
        }
        return Summary(p50: rank(0.50), p99: rank(0.99), p999: rank(0.999), max: Double(sorted.last!) / 1000)
    }

    package struct Summary: Sendable {
        package var p50: Double
        package var p99: Double
        package var p999: Double
        package var max: Double
    }
}

/// A monotonic clock in nanoseconds, cheap enough to read twice per request.
enum LoadClock {
    static func now() -> UInt64 { NIODeadline.now().uptimeNanoseconds }
}
