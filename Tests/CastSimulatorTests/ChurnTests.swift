import CastDevice
import CastSimulator
import CastSimulatorTesting
import CastWire
import Foundation
import Testing

/// Connections that come and go leave nothing behind: descriptors, memory, device state.
/// It counts the whole process's memory, so scripts/test.sh runs it on its own.
@Suite("Connection churn over real TLS", .timeLimit(.minutes(5)))
struct ChurnTests {
    @Test("5,000 connections opened and closed return descriptors to the baseline and leave no memory behind")
    func churnLeavesNothingBehind() async throws {
        try await withCastSimulator { simulator in
            // Warm up first: caches, the client's event loop and the allocator's arenas
            // settle in the first few hundred connections.
            try await Self.churn(simulator, connections: 300)
            let descriptors = try Self.openDescriptors()

            // Two rounds of 2,500. What a connection leaves behind grows every round; the
            // allocator's one-off steps (a thread's new arena on a busy machine: 8 MiB at
            // once was seen) happen in one round at most. So the smaller of the two
            // rounds' growths is the leak: under 3 MiB is under 1.2 KiB a connection.
            var growths: [Int] = []
            for _ in 0..<2 {
                let before = try Self.residentBytes()
                try await Self.churn(simulator, connections: 2_500)
                growths.append(try Self.residentBytes() - before)
            }

            #expect(try await simulator.inspect { $0.connections.count } == 0)
            let descriptorsAfter = try Self.openDescriptors()
            #expect(descriptorsAfter <= descriptors, "descriptors before \(descriptors), after \(descriptorsAfter)")
            #expect(growths.min()! < 3 << 20, "resident memory grew by \(growths.map { $0 >> 10 }) KiB in two rounds of 2,500 connections")
            #expect(growths.reduce(0, +) < 24 << 20, "resident memory grew by \(growths.map { $0 >> 10 }) KiB in two rounds of 2,500 connections")
        }
    }

    /// Opens `connections` senders, 8 at a time, each CONNECTing and asking for the
    /// receiver status before it closes.
    static func churn(_ simulator: CastSimulator, connections: Int) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for _ in stride(from: worker, to: connections, by: 8) {
                        let sender = try await CastTestSender.connect(to: simulator)
                        _ = try await sender.connectToReceiver()
                        await sender.close()
                    }
                }
            }
            try await group.waitForAll()
        }
        // The device learns of each close on its own loop: wait until it has.
        let deadline = ContinuousClock.now + .seconds(10)
        while try await simulator.inspect({ $0.connections.count }) > 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    static func openDescriptors() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
    }

    /// Resident set size, from /proc/self/statm (pages).
    static func residentBytes() throws -> Int {
        let fields = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8).split(separator: " ")
        return (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
