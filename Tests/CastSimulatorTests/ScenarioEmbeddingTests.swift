import CastDevice
import CastScenario
import CastSimulator
import CastWire
import Foundation
import NIOCore
import Testing

@Suite("Embedding: a scenario in-process, over real TLS", .timeLimit(.minutes(2)))
struct ScenarioEmbeddingTests {
    static let scenario = """
    {"name": "embedded", "clock": {"mode": "manual"},
     "device": {"name": "Embedded TV", "idleTimeout": "0s"},
     "media": {"http://media.test/*": {"duration": "10m", "contentType": "video/mp4"}},
     "timeline": [{"after": {"event": "sessionStarted", "delay": "1m"}, "remote": "pause"}],
     "expectations": [{"name": "loads", "message": {"type": "LOAD"}, "within": "5m"}]}
    """

    private func withScenario<T>(_ json: String, _ body: (CastSimulator, TestCastClient) async throws -> T) async throws -> T {
        let scenario = try Scenario.parse(Data(json.utf8))
        return try await withSimulator(configure: { configuration in
            let logger = configuration.logger
            var fresh = SimulatorConfiguration(scenario: scenario, logger: logger)
            fresh.host = "127.0.0.1"
            fresh.castPort = 0
            fresh.httpPort = nil
            fresh.httpsPort = nil
            configuration = fresh
        }) { simulator, group in
            let client = try await TestCastClient.connect(to: simulator.castAddress, group: group)
            let result = try await body(simulator, client)
            await client.close()
            return result
        }
    }

    @Test("Start with a scenario, drive a sender, advance the manual clock, inspect state, messages and the report")
    func embedded() async throws {
        try await withScenario(Self.scenario) { simulator, client in
            #expect(simulator.configuration.clock == .manual)
            _ = try await client.connectToReceiver()
            try await client.send(to: "receiver-0", CastNamespace.receiver, ["type": "LAUNCH", "appId": "CC1AD845", "requestId": 2])
            let launched = await client.waitFor { _, json in json["type"] == "RECEIVER_STATUS" && json["requestId"] == 2 }
            let transport = try #require(launched?.1["status"]?["applications"]?.arrayValue?.first?["transportId"]?.stringValue)
            try await client.send(to: transport, CastNamespace.connection, ["type": "CONNECT"])
            try await client.send(to: transport, CastNamespace.media, ["type": "LOAD", "requestId": 3, "media": ["contentId": "http://media.test/a.mp4"]])
            let loaded = await client.waitFor { _, json in json["requestId"] == 3 }
            #expect(loaded?.1["status"]?.arrayValue?.first?["media"]?["duration"] == 600)

            // Nothing moves until the test says so: then the scripted pause comes, 60 s in.
            #expect(await simulator.advanceClock(by: 59))
            #expect(try await simulator.inspect { $0.runningApp?.media?.session?.playerState } == .playing)
            #expect(await simulator.advanceClock(by: 1))
            let paused = await client.waitFor { _, json in json["status"]?.arrayValue?.first?["playerState"] == "PAUSED" }
            #expect(paused?.1["status"]?.arrayValue?.first?["currentTime"] == 60)
            #expect(try await simulator.inspect { $0.runningApp?.media?.session?.currentTime(at: SimTime(seconds: 60)) } == 60)

            let received = try await simulator.receivedMessages()
            let types = received.compactMap { $0.payload?["type"]?.stringValue }
            #expect(types.contains("LOAD"))
            let report = try await simulator.report()
            #expect(report.passed && report.stepsFired == 1 && report.expectations.first?.decidedAt == 0)
            try await simulator.waitUntilComplete()
        }
    }

    @Test("Faults at the socket: an oversized frame, then a reset", arguments: ["oversized", "malformed"])
    func socketFaults(kind: String) async throws {
        let json = """
        {"name": "faults", "clock": {"mode": "manual"}, "device": {"heartbeatInterval": "0s", "idleTimeout": "0s"},
         "timeline": [{"after": {"event": "GET_STATUS"}, "sendFrame": {"kind": "\(kind)"}}]}
        """
        try await withScenario(json) { _, client in
            try await client.send(to: "receiver-0", CastNamespace.connection, ["type": "CONNECT"])
            try await client.send(to: "receiver-0", CastNamespace.receiver, ["type": "GET_STATUS", "requestId": 1])
            // The client's own decoder refuses the frame and closes: what a sender should do.
            #expect(await client.waitForClose())
        }
    }

    @Test("closeConnection with a reset drops the sender's connection")
    func reset() async throws {
        let json = """
        {"name": "reset", "clock": {"mode": "manual"}, "device": {"heartbeatInterval": "0s"},
         "timeline": [{"after": {"event": "GET_STATUS"}, "closeConnection": {"which": "first", "mode": "reset"}}]}
        """
        try await withScenario(json) { simulator, client in
            try await client.send(to: "receiver-0", CastNamespace.connection, ["type": "CONNECT"])
            try await client.send(to: "receiver-0", CastNamespace.receiver, ["type": "GET_STATUS", "requestId": 1])
            #expect(await client.waitForClose())
            var open = 1
            for _ in 0..<100 where open > 0 {
                try await Task.sleep(for: .milliseconds(20))
                open = try await simulator.inspect { $0.openConnections.count }
            }
            #expect(open == 0)
        }
    }
}
