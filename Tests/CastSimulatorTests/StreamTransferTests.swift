import CastDevice
import CastScenario
import CastSimulator
import CastSimulatorTesting
import CastWire
import Testing

/// Stream transfer in a household (docs/protocol/media.md §7): a `transferSession` step
/// moves the session as a controller does; the target's senders see it play on, the
/// source goes back to idle.
@Suite("Stream transfer between two devices of a household")
struct StreamTransferTests {
    /// Whether `kind` comes in `news` (which ends when the device stops).
    static func first(_ news: AsyncStream<SimulatorNews>, _ kind: DeviceEvent.Kind) async -> Bool {
        for await item in news {
            if case .event(let event) = item, event.kind == kind { return true }
        }
        return false
    }

    @Test("transferSession: Bedroom plays the same queue at Kitchen's position and rate; Kitchen is idle; events on both")
    func transfer() async throws {
        let (configurations, _) = try HouseholdRuntimeTests.household(groupPort: 32_721)
        try await withFleet(configurations) { fleet in
            let kitchen = fleet.devices[0], bedroom = fleet.devices[1]
            let sender = try await CastTestSender.connect(to: kitchen)
            let transport = try await sender.launch()
            let loaded = try await sender.request(CastNamespace.media, to: transport, [
                "type": "QUEUE_LOAD", "customData": ["account": "a1"],
                "items": [["media": ["contentId": "http://example.test/a.mp3", "streamType": "BUFFERED", "contentType": "audio/mp3", "duration": 300]],
                          ["media": ["contentId": "http://example.test/b.mp3", "streamType": "BUFFERED", "contentType": "audio/mp3", "duration": 300]]],
            ])
            #expect(loaded["status"]?[0]?["playerState"] == "PLAYING")
            _ = try await sender.request(CastNamespace.media, to: transport, ["type": "SEEK", "currentTime": 120])
            let watcher = try await CastTestSender.connect(to: bedroom)
            _ = try await watcher.connectToReceiver()

            let kitchenNews = kitchen.news(), bedroomNews = bedroom.news(), recorded = kitchen.news()
            try await kitchen.act(.household(.transferSession(to: "Bedroom")), json: ["transferSession": "Bedroom"])

            let moved = try #require(try await bedroom.snapshot().media)
            #expect(moved.playerState == .playing && moved.items.count == 2 && moved.customData == ["account": "a1"])
            #expect(moved.currentItem?.media.contentId == "http://example.test/a.mp3" && moved.currentTime >= 120 && moved.currentTime < 122)
            let receiver = await watcher.waitFor { _, json in json["type"] == "RECEIVER_STATUS" && json["status"]?["applications"]?[0]?["appId"] == "CC1AD845" }
            #expect(receiver != nil)
            let source = try await kitchen.snapshot()
            #expect(source.media == nil && source.runningApp?.isIdleScreen != false)
            #expect(await Self.first(kitchenNews, .sessionTransferred(peer: "Bedroom", outgoing: true)))
            #expect(await Self.first(bedroomNews, .sessionTransferred(peer: "Kitchen", outgoing: false)))
            // What a recording of Kitchen keeps: the operator's input, before the next one.
            try await kitchen.act(.device(.setStandby(false)), json: ["standby": false])
            var input: JSONValue?
            for await item in recorded {
                if case .input(let json, _) = item { input = json; break }
            }
            #expect(input == ["transferSession": "Bedroom"])

            // Refused with a reason, nothing done: nothing plays here now, or the target is this device.
            await #expect(throws: (any Error).self) { try await kitchen.act(.household(.transferSession(to: "Bedroom"))) }
            await #expect(throws: (any Error).self) { try await bedroom.act(.household(.transferSession(to: "Bedroom"))) }
            #expect(try await bedroom.snapshot().media?.playerState == .playing)
            for each in [sender, watcher] { await each.close() }
        }
    }
}
