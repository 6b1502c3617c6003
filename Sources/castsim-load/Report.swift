import CastWire
import Foundation

/// One figure of a run for one target.
struct Metric: Sendable {
    enum Style: Sendable {
        case count, rate, micros, mebibytes, kibibytes
    }

    /// Its name in --json.
    let key: String
    /// Its column heading.
    let title: String
    /// nil when it could not be measured (no server process to read, no samples).
    let value: Double?
    let style: Style
    /// Whether the ratio row shows castsim / echo for it (not for a parameter, such as
    /// the number of requests, which is the same on both).
    let compared: Bool

    init(_ key: String, _ title: String, _ value: Double?, _ style: Style, compared: Bool = true) {
        self.key = key
        self.title = title
        self.value = value
        self.style = style
        self.compared = compared
    }

    var text: String {
        guard let value, value.isFinite else { return "-" }
        switch style {
        case .count, .rate: return String(format: "%.0f", value)
        case .micros: return value < 1000 ? String(format: "%.1f", value) : String(format: "%.0f", value)
        case .mebibytes, .kibibytes: return String(format: "%.1f", value)
        }
    }
}

extension Metric {
    /// p50, p99, p99.9 and max of a phase's latencies, in µs: every mode prints these four.
    static func latencies(_ summary: LatencyHistogram.Summary?) -> [Metric] {
        [
            Metric("p50_us", "p50 µs", summary?.p50, .micros),
            Metric("p99_us", "p99 µs", summary?.p99, .micros),
            Metric("p99_9_us", "p99.9 µs", summary?.p999, .micros),
            Metric("max_us", "max µs", summary?.max, .micros),
        ]
    }
}

/// What a run prints: a line saying what ran, a table with a row per target and a ratio
/// row (castsim / echo, each figure over its bare-TLS limit), and notes.
struct LoadReport: Sendable {
    let workload: any LoadWorkload
    /// (target name, its figures), in the order run.
    let results: [(target: String, result: WorkloadResult)]
    let notes: [String]

    /// castsim's figure over the echo server's, per key; nil where either is missing or
    /// the echo figure is 0.
    var ratios: [String: Double] {
        guard let castsim = results.first(where: { $0.target == "castsim" })?.result,
              let echo = results.first(where: { $0.target == "echo" })?.result else { return [:] }
        var ratios: [String: Double] = [:]
        for metric in castsim.metrics where metric.compared {
            guard let value = metric.value,
                  let base = echo.metrics.first(where: { $0.key == metric.key })?.value, base != 0 else { continue }
            ratios[metric.key] = value / base
        }
        return ratios
    }

    var table: String {
        guard let columns = results.first?.result.metrics else { return workload.summary }
        let ratios = self.ratios
        var rows: [[String]] = [["target"] + columns.map(\.title)]
        for (target, result) in results {
            rows.append([target] + columns.map { column in
                result.metrics.first(where: { $0.key == column.key })?.text ?? "-"
            })
        }
        if !ratios.isEmpty {
            rows.append(["ratio"] + columns.map { column in
                ratios[column.key].map { String(format: "%.2f", $0) } ?? ""
            })
        }
        return ([workload.summary] + Self.aligned(rows) + notes).joined(separator: "\n")
    }

    /// Rows as lines of columns: the first (a name) left-aligned, the figures right-aligned.
    static func aligned(_ rows: [[String]]) -> [String] {
        let widths = (0..<rows[0].count).map { index in rows.map { $0[index].count }.max()! }
        return rows.map { row in
            row.enumerated().map { index, cell in
                let pad = String(repeating: " ", count: widths[index] - cell.count)
                return index == 0 ? cell + pad : pad + cell
            }.joined(separator: "  ")
        }
    }

    var json: String {
        var targets: [String: JSONValue] = [:]
        for (target, result) in results {
            var figures: [String: JSONValue] = [:]
            for metric in result.metrics {
                figures[metric.key] = metric.value.map { .number(Self.rounded($0)) } ?? .null
            }
            targets[target] = .object(figures)
        }
        return JSONValue.object([
            "mode": .string(workload.mode),
            "parameters": .object(workload.parameters),
            "targets": .object(targets),
            "ratio": .object(ratios.mapValues { .number(Self.rounded($0)) }),
            "notes": .array(notes.map { .string($0) }),
        ]).jsonText()
    }

    /// Three decimals are plenty (µs, MiB, ratios), and keep the JSON readable.
    private static func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
}
