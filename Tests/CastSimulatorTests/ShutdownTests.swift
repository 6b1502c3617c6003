import CastDevice
import CastSimulator
import CastSimulatorTesting
import CastWire
import Foundation
import Logging
import NIOCore
import NIOPosix
import Testing

/// Stopping a simulator with everything still going: nothing is left to run on its loop
/// once the loop is gone, and what was underway ends as it should.
@Suite("Stopping a running simulator", .timeLimit(.minutes(2)))
struct ShutdownTests {
    static func configuration() throws -> SimulatorConfiguration {
        var configuration = SimulatorConfiguration(
            device: DeviceConfiguration(identity: try DeviceIdentity(uuid: "fedcba9876543210fedcba9876543211", friendlyName: "Stop TV")),
            logger: Logger.quiet)
        configuration.listenEphemerally(on: "127.0.0.1")
        return configuration
    }

    @Test("A recording ends with the close of every sender still there when the simulator stops, one in its TLS handshake included")
    func recordingEndsWithTheCloses() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("castsim-stop-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let simulator = try await CastSimulator.start(try Self.configuration())
        _ = try await simulator.startRecording(to: path)
        let sender = try await CastTestSender.connect(to: simulator)
        _ = try await sender.connectToReceiver()
        // TCP only: the device has the connection, its TLS handshake has not begun.
        let handshaking = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(to: simulator.castAddress).get()
        while try await simulator.inspect({ $0.connections.count }) < 2 { try await Task.sleep(for: .milliseconds(5)) }

        await simulator.stop()

        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { try JSONValue.parse(String($0)) }
        let connected = lines.filter { $0["event"] == "connected" }.compactMap { $0["connection"]?.intValue }
        let disconnected = lines.filter { $0["event"] == "disconnected" }.compactMap { $0["connection"]?.intValue }
        #expect(connected.count == 2)
        #expect(Set(disconnected) == Set(connected), "connected \(connected), disconnected \(disconnected)")
        #expect(lines.last?["event"] == "disconnected" && lines.last?["how"] == "device", "the last line: \(lines.last?.jsonText() ?? "none")")
        #expect(await sender.waitForClose())
        try? await handshaking.close()
    }

    @Test("After stop: a news stream ends at once, open ones have ended, and the device answers that it has stopped")
    func nothingReachesTheLoopAfterStop() async throws {
        let simulator = try await CastSimulator.start(try Self.configuration())
        let open = simulator.news()
        let sender = try await CastTestSender.connect(to: simulator)
        _ = try await sender.connectToReceiver()
        await simulator.stop()

        #expect(try await Self.ends(open), "a stream open when the simulator stopped has ended")
        #expect(try await Self.ends(simulator.news()), "a stream asked for after stop ends at once")
        await #expect(throws: SimulatorStopped.self) { _ = try await simulator.snapshot() }
        #expect(await sender.waitForClose())
    }

    /// Whether `stream` ends (after whatever it still holds) within 5 s.
    static func ends(_ stream: AsyncStream<SimulatorNews>) async throws -> Bool {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in stream {}
                return true
            }
            group.addTask {
                try await Task.sleep(for: .seconds(5))
                return false
            }
            let first = try await group.next()!
            group.cancelAll()
            return first
        }
    }
}

extension Logger {
    static var quiet: Logger {
        var logger = Logger(label: "castsim-test")
        logger.logLevel = .critical
        return logger
    }
}
