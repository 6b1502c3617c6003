import CastControl
import CastDevice
import CastSimulator
import CastSimulatorTesting
import CastWire
import Testing

/// The state says what discovery really does: `advertised` is true only while a browser
/// finds the device, and `discovery` says who advertises it, where, or why not.
@Suite("Control API: what discovery does")
struct DiscoveryStateTests {
    @Test("Discovery off (--mdns off): not advertised, and why, in the state and the device list")
    func off() async throws {
        try await withControlledDevice { _, http in
            let state = try await http.get("/api/v1/state").json
            #expect(state["discovery"] == ["mode": "off", "advertised": false, "reason": "discovery is off (castsim run --mdns off)",
                                           "interfaces": []])
            #expect(state["device"]?["advertised"] == false)
            #expect(try await http.get("/api/v1/devices").json["devices"]?[0]?["advertised"] == false)
        }
    }

    @Test("On a loopback address with no --interface: the responder is not started, not advertised, and the state says so")
    func loopback() async throws {
        try await withControlledDevice(configure: { $0.discovery = .builtin(interfaces: []) }) { _, http in
            let state = try await http.get("/api/v1/state").json
            let discovery = try #require(state["discovery"])
            #expect(discovery["mode"] == "builtin" && discovery["advertised"] == false && discovery["interfaces"] == [])
            #expect(discovery["reason"]?.stringValue?.hasPrefix("listening on loopback only (127.0.0.1)") == true, "\(discovery.jsonText())")
            #expect(state["device"]?["advertised"] == false)
        }
    }

    @Test("Only the Cast service leaving (quirk dropCastAfter) is an advertisementChanged with otherServices; a withdraw has none")
    func castDroppedEvent() {
        let dropped = EventView.json(DeviceEvent(time: .zero, kind: .advertisementChanged(.dropCast)))
        #expect(dropped["kind"] == "advertisementChanged" && dropped["advertised"] == false && dropped["otherServices"] == true)
        #expect(EventView.json(DeviceEvent(time: .zero, kind: .advertisementChanged(.withdraw)))["otherServices"] == nil)
    }

    @Test("Ad breaks and stream transfer in the event stream: which break and clip (null when over), which way and to whom")
    func breakAndTransferEvents() {
        #expect(EventView.json(DeviceEvent(time: .zero, kind: .adBreakChanged(mediaSessionId: 3, breakId: "mid", clipId: "ad2")))
            .removing("time").removing("text") == ["kind": "adBreakChanged", "mediaSessionId": 3, "breakId": "mid", "breakClipId": "ad2"])
        #expect(EventView.json(DeviceEvent(time: .zero, kind: .adBreakChanged(mediaSessionId: 3, breakId: nil, clipId: nil)))["breakId"] == .null)
        #expect(EventView.json(DeviceEvent(time: .zero, kind: .sessionTransferred(peer: "Bedroom", outgoing: true)))
            .removing("time").removing("text") == ["kind": "sessionTransferred", "direction": "out", "peer": "Bedroom"])
    }

    @Test("The event stream names discovery events, and ?types=discovery takes them alone")
    func eventType() async throws {
        try await withControlledDevice { _, http in
            let reply = try await http.stream("/api/v1/events?types=discovery", timeout: .seconds(2), until: { $0.contains("event: hello") })
            #expect(reply.status == 200)
        }
    }
}
