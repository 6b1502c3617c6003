import CastDevice
import CastSimulator
import CastSimulatorTesting
import CastWire
import Testing

/// The news a batch at a time, as the control API's event streams take it.
@Suite("News in batches: only what the reader wants is queued, and the queue ends with the simulator", .timeLimit(.minutes(1)))
struct NewsBatchesTests {
    @Test("A reader of connections alone keeps them, however many messages pass, past a limit of two")
    func filteredBeforeTheLimit() async throws {
        let simulator = try await CastSimulator.start(try ShutdownTests.configuration())
        let news = simulator.newsBatches(buffering: 2) { news in
            switch news {
            case .connected, .disconnected: true
            default: false
            }
        }
        // The subscription is made on the device's loop: a look at the device after it has it.
        while try await simulator.newsSubscriptions().subscribers < 1 { try await Task.sleep(for: .milliseconds(5)) }
        let sender = try await CastTestSender.connect(to: simulator)
        _ = try await sender.connectToReceiver()
        for _ in 0..<20 { _ = try await sender.request(CastNamespace.receiver, to: CastEndpoint.platformReceiver, ["type": "GET_STATUS"]) }
        await sender.close()
        await simulator.stop()

        var taken: [SimulatorNews] = []
        while let batch = await news.next() { taken += batch }
        #expect(taken.count == 2, "\(taken)")
        guard taken.count == 2 else { return }
        guard case .connected(let opened, _, _) = taken[0], case .disconnected(let closed, _, _) = taken[1] else {
            Issue.record("expected the connection's opening and its close: \(taken)")
            return
        }
        #expect(opened == closed)
    }

    @Test("Finished by its reader, the queue's subscription goes from the device")
    func finishedByTheReader() async throws {
        let simulator = try await CastSimulator.start(try ShutdownTests.configuration())
        let news = simulator.newsBatches()
        while try await simulator.newsSubscriptions().subscribers < 1 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(try await simulator.newsSubscriptions().streams == 1)
        news.finish()
        while try await simulator.newsSubscriptions().subscribers > 0 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(try await simulator.newsSubscriptions().streams == 0)
        await simulator.stop()
    }
}
