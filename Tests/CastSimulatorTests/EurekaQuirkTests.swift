import CastDevice
import CastDiscovery
import CastSimulator
import CastSimulatorTesting
import CastWire
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import Testing

/// eureka_info as real families answer it (docs/profiles.md, quirks Q1–Q6, Q10, Q28):
/// what each port does, the Host check, the lock-up after too many polls.
@Suite("eureka_info quirks: flat 8008, broken or closed 8443, Host check, lock-up")
struct EurekaQuirkTests {
    private func withDevice<T>(_ profile: DeviceProfile? = nil, quirks: DeviceQuirks.Eureka? = nil,
                               _ body: (CastSimulator) async throws -> T) async throws -> T {
        try await withCastSimulator(configure: { configuration in
            profile?.apply(to: &configuration.device)
            if let quirks { configuration.device.quirks = DeviceQuirks(eureka: quirks) }
        }, body)
    }

    @Test("A Chromecast's 8008 ignores params and answers the flat version-12 body; 8443 answers device_info with its MAC")
    func flatHTTP() async throws {
        try await withDevice(.chromecast) { simulator in
            let flat = try JSONValue.parse(try await httpGet(address: simulator.httpAddress!, secure: false,
                                                             path: "/setup/eureka_info?params=device_info,name"))
            #expect(flat["version"] == 12 && flat["device_info"] == nil)
            #expect(flat["ssdp_udn"] == "fedcba98-7654-3210-fedc-ba9876543210" && flat["name"] == "Test TV")
            #expect(flat["mac_address"] == "FE:DC:BA:98:76:54" && flat["hotspot_bssid"] == "BA:98:76:54:32:10")
            let detailed = try JSONValue.parse(try await httpGet(address: simulator.httpsAddress!, secure: true,
                                                                 path: "/setup/eureka_info?params=device_info,name"))
            #expect(detailed["device_info"]?["model_name"] == "Chromecast")
            #expect(detailed["device_info"]?["mac_address"] == "FE:DC:BA:98:76:54")
        }
    }

    @Test("An Android TV: mac_address zeros and its code name; 8443 ends the TLS handshake at once")
    func androidTV() async throws {
        try await withDevice(.bravia) { simulator in
            let flat = try JSONValue.parse(try await httpGet(address: simulator.httpAddress!, secure: false, path: "/setup/eureka_info"))
            #expect(flat["mac_address"] == "00:00:00:00:00:00")
            await #expect(throws: (any Error).self) {
                _ = try await httpRequest(address: simulator.httpsAddress!, secure: true, path: "/setup/eureka_info?params=device_info")
            }
        }
    }

    /// A request for eureka_info that gets no answer within half a second: still waiting.
    private func unanswered(_ address: SocketAddress, secure: Bool) async throws -> (request: Task<Void, any Error>, finished: NIOLockedValueBox<Bool>) {
        let finished = NIOLockedValueBox(false)
        let request = Task {
            defer { finished.withLockedValue { $0 = true } }
            _ = try await httpRequest(address: address, secure: secure, path: "/setup/eureka_info")
        }
        try await Task.sleep(for: .milliseconds(500))
        #expect(!finished.withLockedValue { $0 })
        return (request, finished)
    }

    @Test("8443 that stalls: connected, and nothing comes back until the device stops")
    func stall() async throws {
        try await withDevice(quirks: .init(https: .stall)) { simulator in
            let (request, _) = try await unanswered(simulator.httpsAddress!, secure: true)
            await simulator.stop()
            await #expect(throws: (any Error).self) { try await request.value }
        }
    }

    @Test("AirReceiver: neither 8008 nor 8443 listens")
    func closedPorts() async throws {
        try await withDevice(.airReceiver) { simulator in
            #expect(simulator.httpAddress == nil && simulator.httpsAddress == nil)
        }
    }

    @Test("hostCheck: 403 for a host name in Host; an IP address or an empty Host (pychromecast's retry) is answered")
    func hostCheck() async throws {
        try await withDevice(quirks: .init(hostCheck: true)) { simulator in
            let address = simulator.httpsAddress!
            let named = try await httpRequest(address: address, secure: true, path: "/setup/eureka_info", host: "living-room.local")
            #expect(named.status == 403)
            let ip = try await httpRequest(address: address, secure: true, path: "/setup/eureka_info", host: "127.0.0.1:\(address.port!)")
            #expect(ip.status == 200)
            let v6 = try await httpRequest(address: address, secure: true, path: "/setup/eureka_info", host: "[::1]:8443")
            #expect(v6.status == 200)
            let empty = try await httpRequest(address: address, secure: true, path: "/setup/eureka_info", host: "")
            #expect(empty.status == 200)
        }
        // Off (castsim's own device): any Host.
        try await withDevice { simulator in
            let named = try await httpRequest(address: simulator.httpAddress!, secure: false, path: "/setup/eureka_info", host: "x.local")
            #expect(named.status == 200)
        }
    }

    @Test("deviceDesc: 8008 serves DIAL's device-desc.xml with the name, maker, model and UDN; current firmware answers 404")
    func deviceDescription() async throws {
        try await withCastSimulator(configure: { configuration in
            configuration.device.identity.friendlyName = "Den & <Kitchen>"
            configuration.device.quirks = DeviceQuirks(eureka: .init(deviceDesc: true))
        }) { simulator in
            let address = simulator.httpAddress!
            let reply = try await httpRequest(address: address, secure: false, path: "/ssdp/device-desc.xml", host: "127.0.0.1:\(address.port!)")
            #expect(reply.status == 200)
            #expect(reply.head.lowercased().contains("application-url: http://127.0.0.1:\(address.port!)/apps/"))
            #expect(reply.body.contains("<friendlyName>Den &amp; &lt;Kitchen&gt;</friendlyName>"))
            #expect(reply.body.contains("<manufacturer>\(simulator.configuration.device.identity.manufacturer)</manufacturer>"))
            #expect(reply.body.contains("<modelName>\(simulator.configuration.device.identity.modelName)</modelName>"))
            #expect(reply.body.contains("<UDN>uuid:\(DeviceIdentity.dashed(simulator.configuration.device.identity.uuid))</UDN>"))
            #expect(reply.body.contains("<deviceType>urn:dial-multiscreen-org:device:dial:1</deviceType>"))
            // Only the plain port describes itself to DIAL.
            let secure = try await httpRequest(address: simulator.httpsAddress!, secure: true, path: "/ssdp/device-desc.xml")
            #expect(secure.status == 404)
        }
        try await withDevice(.chromecast) { simulator in
            let reply = try await httpRequest(address: simulator.httpAddress!, secure: false, path: "/ssdp/device-desc.xml")
            #expect(reply.status == 404)
        }
    }

    @Test("crashAfterPolls: the polls past the limit hang on both ports, and the Cast channel stops answering")
    func lockUp() async throws {
        try await withDevice(quirks: .init(crashAfterPolls: 2)) { simulator in
            let news = NewsLog(simulator.news())
            defer { news.stop() }
            let sender = try await CastTestSender.connect(to: simulator)
            _ = try await sender.connectToReceiver()
            _ = try await httpGet(address: simulator.httpAddress!, secure: false, path: "/setup/eureka_info")
            _ = try await httpGet(address: simulator.httpsAddress!, secure: true, path: "/setup/eureka_info")
            let (third, finished) = try await unanswered(simulator.httpAddress!, secure: false)
            // The third poll locks the device up once the device has heard of it: asked before,
            // the GET_STATUS could still be answered (on a loaded machine the poll can take
            // longer to arrive than the half second `unanswered` waits).
            let lockedUp = await news.contains { news in
                if case .event(let event) = news, case .faultApplied(.unresponsive) = event.kind { return true }
                return false
            }
            #expect(lockedUp, "the device heard of the lock-up")
            try await sender.send(to: "receiver-0", CastNamespace.receiver, ["type": "GET_STATUS", "requestId": 5])
            let answer = await sender.waitFor(timeout: .milliseconds(500)) { _, json in json["requestId"] == 5 }
            #expect(answer == nil)
            await sender.close()
            // Stopping the device ends the held request.
            await simulator.stop()
            _ = try? await third.value
            #expect(finished.withLockedValue { $0 })
        }
    }
}

/// The advertisement as real families make it (quirks Q13, Q14, Q16, Q17).
@Suite("mDNS quirks: Fuchsia host, st fixed, extra TXT keys, another id")
struct AdvertisementQuirkTests {
    private func description(_ profile: DeviceProfile, _ mdns: DeviceQuirks.MDNS? = nil) throws -> CastServiceDescription {
        var device = DeviceConfiguration(identity: try DeviceIdentity(uuid: "fedcba9876543210fedcba9876543210", friendlyName: "Den"))
        profile.apply(to: &device)
        if let mdns { device.quirks = DeviceQuirks(mdns: mdns) }
        return CastServiceDescription(device, port: 8009)
    }

    private func srvTarget(_ description: CastServiceDescription) -> DNSName? {
        for record in description.records(addresses: [[10, 0, 0, 1]]) {
            if case .srv(_, _, _, let target) = record.data { return target }
        }
        return nil
    }

    @Test("A Nest Hub's SRV target and A record are fuchsia-<mac in fours>.local, not the UUID")
    func fuchsiaHost() throws {
        let hub = try description(.nestHub)
        #expect(srvTarget(hub) == DNSName("fuchsia-fedc-ba98-7654.local"))
        #expect(hub.records(addresses: [[10, 0, 0, 1]]).contains { $0.name == DNSName("fuchsia-fedc-ba98-7654.local") && $0.type == .a })
        #expect(srvTarget(try description(.chromecast)) == DNSName("fedcba98-7654-3210-fedc-ba9876543210.local"))
    }

    @Test("Android and Google TVs advertise the Android TV remote service with their MAC as bt; other families do not")
    func androidTVRemote() throws {
        for profile in [DeviceProfile.bravia, .chromecastWithGoogleTV, .googleTVStreamer] {
            #expect(try description(profile).androidTVRemote == .init(port: 6466, mac: "FE:DC:BA:98:76:54"), "\(profile.name)")
        }
        for profile in DeviceProfile.catalog where ![DeviceProfile.bravia, .chromecastWithGoogleTV, .googleTVStreamer].map(\.name).contains(profile.name) {
            #expect(try description(profile).androidTVRemote == nil, "\(profile.name)")
        }
        #expect(try description(.chromecast, .init(androidTVRemote: true)).androidTVRemote != nil)
    }

    @Test("Android TVs add ct after the usual keys; st and id can be fixed")
    func txt() throws {
        let tv = try description(.bravia)
        #expect(tv.txt.last == "ct=1e3a5c" && tv.txt.count == 13)
        #expect(!(try description(.chromecast)).txt.contains { $0.hasPrefix("ct=") })
        let child = try description(.nestAudio, .init(id: "a4b1c2d3e4f5", status: 2))
        #expect(child.txt.contains("st=2") && child.txt.first == "id=a4b1c2d3e4f5")
    }
}
