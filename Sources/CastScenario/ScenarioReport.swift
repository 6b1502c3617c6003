import CastDevice
import CastWire
import Foundation

/// The outcome of a scenario run: every expectation, passed or failed, with evidence.
public struct ScenarioReport: Sendable, Codable, Equatable {
    public struct Evidence: Sendable, Codable, Equatable {
        /// "match": the message that decided it; "closest": the nearest miss.
        public var role: String
        public var time: Double
        public var connection: UInt64
        public var namespace: String
        public var sourceId: String
        public var destinationId: String
        public var payload: JSONValue?
    }

    public struct ExpectationResult: Sendable, Codable, Equatable {
        public var name: String
        public var kind: String
        public var passed: Bool
        /// Simulation seconds at which it was decided.
        public var decidedAt: Double?
        public var reason: String?
        public var evidence: [Evidence]
        /// The device it is about, in a household's report (``FleetScenario``); nil for one device.
        public var device: String?
    }

    public var scenario: String
    public var passed: Bool
    /// Simulation seconds the run lasted.
    public var duration: Double
    public var stepsFired: Int
    public var stepsTotal: Int
    public var messagesReceived: Int
    public var expectations: [ExpectationResult]

    /// A report of nothing yet: passed, no expectations.
    static func empty(_ name: String) -> ScenarioReport {
        ScenarioReport(scenario: name, passed: true, duration: 0, stepsFired: 0, stepsTotal: 0, messagesReceived: 0, expectations: [])
    }

    public func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(self)) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// JUnit XML: one test case per expectation, for CI systems' test views.
    public func junitXML() -> String {
        let failures = expectations.filter { !$0.passed }.count
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        xml += #"<testsuites tests="\#(expectations.count)" failures="\#(failures)">"# + "\n"
        xml += #"  <testsuite name="\#(escape(scenario))" tests="\#(expectations.count)" failures="\#(failures)" errors="0" time="\#(duration)">"# + "\n"
        for result in expectations {
            let suite = result.device.map { "\(scenario).\($0)" } ?? scenario
            xml += #"    <testcase classname="castsim.\#(escape(suite))" name="\#(escape(result.name))" time="\#(result.decidedAt ?? duration)""#
            if result.passed {
                xml += "/>\n"
            } else {
                let detail = result.evidence.map { "\($0.role) at \($0.time)s: \($0.namespace) \($0.payload?.jsonText() ?? "")" }
                    .joined(separator: "\n")
                xml += ">\n"
                xml += #"      <failure message="\#(escape(result.reason ?? "failed"))" type="\#(result.kind)">\#(escape(detail))</failure>"# + "\n"
                xml += "    </testcase>\n"
            }
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }

    private func escape(_ text: String) -> String { XMLText.escaped(text) }
}

extension ScenarioSession {
    /// The report as things stand: what is still pending counts as failed, except a
    /// `never` that nothing broke.
    public func report() -> ScenarioReport {
        var results: [ScenarioReport.ExpectationResult] = []
        for (index, expectation) in scenario.expectations.enumerated() {
            let state = progress[index]
            var passed = state.status == .passed
            var reason = state.reason
            var evidence = state.evidence.map { Self.evidence($0, role: "match") }
            if state.status == .pending {
                passed = expectation.isNever
                if !passed {
                    reason = "not seen by the end of the run"
                    evidence = state.matched.map { Self.evidence($0, role: "match") }
                }
            }
            if !passed, !expectation.isNever, let closest = state.closest {
                evidence.append(Self.evidence(closest, role: "closest"))
            }
            if let measured = state.measured {
                evidence.append(Self.evidence(measured, role: passed ? "match" : "closest"))
            }
            results.append(ScenarioReport.ExpectationResult(
                name: expectation.name, kind: expectation.kindName, passed: passed, decidedAt: state.decidedAt?.seconds,
                reason: passed ? nil : reason, evidence: evidence))
        }
        return ScenarioReport(
            scenario: scenario.name, passed: results.allSatisfy(\.passed), duration: now.seconds, stepsFired: fired.count,
            stepsTotal: scenario.timeline.count, messagesReceived: receivedCount, expectations: results)
    }

    private static func evidence(_ message: ReceivedMessage, role: String) -> ScenarioReport.Evidence {
        ScenarioReport.Evidence(
            role: role, time: message.time.seconds, connection: message.connection.rawValue,
            namespace: message.envelope.namespace, sourceId: message.envelope.sourceId,
            destinationId: message.envelope.destinationId, payload: message.payload)
    }
}

extension ScenarioSession {
    /// A stream's figures as evidence: on the OFFER's connection and the webrtc namespace,
    /// the figures as its payload (the media plane has no endpoints).
    fileprivate static func evidence(_ measured: MeasuredStream, role: String) -> ScenarioReport.Evidence {
        ScenarioReport.Evidence(
            role: role, time: measured.time.seconds, connection: measured.connection.rawValue,
            namespace: MirroringApp.webrtc, sourceId: "", destinationId: "", payload: measured.stream)
    }
}

extension Expectation {
    var kindName: String {
        switch kind {
        case .message: "message"
        case .sequence: "sequence"
        case .never: "never"
        case .streaming: "streaming"
        }
    }
}
