import CastDevice
import CastScenario
import CastSimulator
import CastSimulatorTesting
import CastWire
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import Testing

/// Every line a logger writes, as the terminal would get it.
final class CapturedLog: Sendable {
    let lines = NIOLockedValueBox<[String]>([])

    var logger: Logger {
        var logger = Logger(label: "castsim-captured") { _ in Handler(log: self) }
        logger.logLevel = .trace
        return logger
    }

    struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            let text = "\(event.level) \(event.message) \(all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))"
            log.lines.withLockedValue { $0.append(text) }
        }
    }
}

@Suite("Runtime defects: bind failures, log injection, durations")
struct RuntimeDefectTests {
    @Test("A port in use is named: address, port and which listener, not an errno")
    func portInUse() async throws {
        try await withCastSimulator { first in
            let port = try #require(first.castAddress.port)
            do {
                _ = try await withCastSimulator(configure: { $0.castPort = port }) { _ in Issue.record("a second simulator bound the same port") }
            } catch let error as ListenError {
                #expect(error.listener == .cast && error.port == port && error.reason == .inUse)
                #expect(error.description == "port \(port) on 127.0.0.1 (the Cast port) is already in use")
                #expect(error.description(naming: "--port") == "port \(port) on 127.0.0.1 (--port) is already in use")
            }
        }
    }

    @Test("An HTTP or HTTPS port in use is named too: which listener, which port")
    func httpPortInUse() async throws {
        try await withCastSimulator { first in
            for (listener, port) in [(ListenError.Listener.http, try #require(first.httpAddress?.port)),
                                     (.https, try #require(first.httpsAddress?.port))] {
                do {
                    _ = try await withCastSimulator(configure: {
                        $0.castPort = 0
                        if listener == .http { $0.httpPort = port } else { $0.httpPort = 0; $0.httpsPort = port }
                    }) { _ in Issue.record("a second simulator bound the same \(listener) port") }
                } catch let error as ListenError {
                    #expect(error.listener == listener && error.port == port && error.reason == .inUse, "\(error)")
                }
            }
        }
    }

    @Test("A start that fails after the device is up (a named interface that does not exist) throws, and leaks nothing")
    func failedStartAfterTheDevice() async throws {
        // A manual clock with steps ahead: nothing scheduled on the loop holds the device,
        // so it is released as the start fails (debug builds trap on a pending promise then).
        let scenario = try Scenario.parse(Data("""
            {"name": "later", "clock": {"mode": "manual"}, "device": {"heartbeatInterval": "0s", "idleTimeout": "0s"},
             "timeline": [{"at": "1m", "withdraw": true}]}
            """.utf8))
        for _ in 0..<3 {
            do {
                _ = try await withCastSimulator(configure: {
                    $0.scenario = scenario
                    $0.clock = .manual
                    $0.discovery = .builtin(interfaces: ["castsim-none0"])
                }) { _ in Issue.record("started with an interface that does not exist") }
            } catch let error as DiscoveryUnavailable {
                #expect(error.description.contains("castsim-none0"), "\(error.description)")
            }
        }
        // The loop ran the device's shutdown: a second start on the same port works.
        try await withCastSimulator { simulator in #expect(simulator.castAddress.port != nil) }
    }

    @Test("What a sender sends reaches the log escaped, even at trace level: no forged lines, no terminal escapes")
    func logInjection() {
        let log = CapturedLog()
        var device = DeviceConfiguration(identity: try! DeviceIdentity(uuid: "fedcba9876543210fedcba9876543210"))
        device.heartbeatInterval = nil
        let simulator = EmbeddedCastSimulator(SimulatorConfiguration(device: device, logger: log.logger))
        let sender = simulator.connectSender()
        sender.connect()
        sender.send(CastEnvelope(sourceId: "sender-0\n2026-11-22T10:00:00+0000 info castsim: all is well", destinationId: "receiver-0",
                                 namespace: "urn:x-cast:x\u{1B}[2J\u{1B}]0;owned\u{07}", payload: .string("{\"type\":\"A\"}\n\u{1B}[31mred")))
        sender.send(to: "receiver-0\r\nforged", CastNamespace.receiver, ["type": "GET_STATUS", "requestId": 1])
        let lines = log.lines.withLockedValue { $0 }
        #expect(lines.contains { $0.contains(#"urn:x-cast:x\u{1B}[2J"#) }, "the message was logged")
        for line in lines {
            #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "\(line)")
        }
    }

    @Test("A manual clock refuses a span that is no duration, and carries on")
    func clockRange() {
        let simulator = EmbeddedCastSimulator()
        #expect(!simulator.advanceClock(by: 1e23))
        #expect(!simulator.advanceClock(by: -1))
        #expect(!simulator.advanceClock(by: .nan))
        #expect(simulator.advanceClock(by: 10))
        #expect(simulator.snapshot.time == SimTime(seconds: 10))
    }
}
