import CastControl
import CastDevice
import CastScenario
import CastSimulator
import CastSimulatorTesting
import CastWire
import Foundation
import Testing

/// The EMP receiver's panel in the control API's state and on the dashboard.
@Suite("Control API: the EMP receiver's panel")
struct EMPStateTests {
    @Test("state: an EMP session shows its channel, program, entitlement and the newest EMP events")
    func empState() async throws {
        let scenario = try Scenario.parse(Data(#"""
            {"name": "emp", "clock": {"mode": "manual"}, "device": {"idleTimeout": "0s", "heartbeatInterval": "0s"},
             "exposure": {
               "epoch": "2026-05-01T18:00:00Z",
               "businessUnits": [{"customer": "Blixt", "businessUnit": "Play", "sessionTokens": {"tok": "valid"}}],
               "channels": {"news-24": {"title": "News 24", "programs": [
                 {"programId": "morning", "assetId": "morning-news", "title": "Morning News", "start": "0s", "end": "10m"},
                 {"programId": "weather", "assetId": "weather", "title": "Weather", "start": "10m", "end": "20m"}]}}}}
            """#.utf8))
        try await withControlledDevice(configure: { $0.scenario = scenario; $0.clock = .manual }) { simulator, http in
            let sender = try await CastTestSender.connect(to: simulator)
            let transportId = try await sender.launch("F40E2D17")
            _ = try await sender.request(CastNamespace.media, to: transportId, [
                "type": "LOAD", "media": ["contentId": "news-24", "streamType": "LIVE", "contentType": "video/mp4"],
                "credentials": "tok", "customData": ["customer": "Blixt", "businessUnit": "Play"], "autoplay": true,
            ])
            // Across the program boundary: the receiver says so on its namespace.
            await simulator.advanceClock(by: 11 * 60)
            #expect(await sender.waitFor { envelope, json in envelope.namespace == CastNamespace.emp && json["type"] == "programchanged" } != nil)

            let emp = try #require(try await http.get("/api/v1/state").json["emp"])
            #expect(emp["channelId"] == "news-24" && emp["programId"] == "weather" && emp["live"] == true)
            #expect(emp["customer"] == "Blixt" && emp["businessUnit"] == "Play")
            #expect(emp["summary"] == "EMP · LIVE · channel news-24 · Weather" && emp["title"] == "Weather")
            #expect(emp["entitlement"]?["ffEnabled"] != nil && emp["entitlement"]?["airplayBlocked"] == false)
            let events = emp["lastEvents"]?.arrayValue ?? []
            #expect(!events.isEmpty && events.count <= 20)
            #expect(events.allSatisfy { $0["namespace"] == .string(CastNamespace.emp) && $0["direction"] == "out" })
            #expect(events.last?["type"] == "programchanged")
            let sequences = events.compactMap { $0["seq"]?.intValue }
            #expect(sequences == sequences.sorted())
            await sender.close()
        }
    }

    @Test("The panel's member is there, null, while another app runs; the running EMP receiver names its panel")
    func panelMember() async throws {
        try await withControlledDevice { simulator, http in
            var state = try await http.get("/api/v1/state").json
            #expect(state.objectValue?.keys.contains("emp") == true && state["emp"] == .null)
            let sender = try await CastTestSender.connect(to: simulator)
            _ = try await sender.launch(CastAppDefinition.emp.appId)
            state = try await http.get("/api/v1/state").json
            #expect(state["app"]?["panel"] == ["key": "emp", "title": "EMP session"])
            await sender.close()
        }
    }

    @Test("act: the EMP receiver's own action is refused (409) while another app runs, and done while it runs")
    func actionNeedsItsApp() async throws {
        try await withControlledDevice { simulator, http in
            var reply = try await http.post("/api/v1/act", #"{"emp": {"event": "isLive"}}"#)
            #expect(reply.status == 409 && reply.error == "emp is the action of an app that is not running (Backdrop runs); launch it first")
            let sender = try await CastTestSender.connect(to: simulator)
            let transportId = try await sender.launch(CastAppDefinition.emp.appId)
            reply = try await http.post("/api/v1/act", #"{"emp": {"event": "isLive"}}"#)
            #expect(reply.status == 200)
            let event = await sender.waitFor { envelope, json in envelope.namespace == CastNamespace.emp && json["type"] == "isLive" }
            #expect(event?.0.sourceId == transportId)
            await sender.close()
        }
    }
}
