import CastDevice
import CastScenario
import CastSimulator
import CastSimulatorTesting
import CastWire
import Foundation
import NIOCore
import Testing

@Suite("Cast port over real TLS on loopback", .timeLimit(.minutes(2)))
struct ConnectionTests {
    @Test("A client completes TLS 1.2+, CONNECTs and gets RECEIVER_STATUS")
    func basicRoundTrip() async throws {
        try await withCastSimulator { simulator in
            let client = try await CastTestSender.connect(to: simulator)
            let status = try await client.connectToReceiver()
            #expect(status["status"]?["applications"]?.arrayValue?.first?["appId"] == "E8C28D3C")
            await client.close()
        }
    }

    @Test("TLS 1.2 is accepted; a sender limited to TLS 1.1 cannot connect")
    func tlsVersions() async throws {
        try await withCastSimulator { simulator in
            let modern = try await CastTestSender.connect(to: simulator.castAddress, maximumTLSVersion: .tlsv12)
            #expect(try await modern.connectToReceiver()["type"] == "RECEIVER_STATUS")
            await modern.close()
            var refused = false
            do {
                let old = try await CastTestSender.connect(to: simulator.castAddress, maximumTLSVersion: .tlsv11)
                // The handshake fails after TCP connects: nothing comes back, the connection closes.
                try? await old.send(to: "receiver-0", CastNamespace.connection, ["type": "CONNECT"])
                refused = await old.waitForClose(timeout: .seconds(5))
            } catch {
                refused = true
            }
            #expect(refused)
        }
    }

    @Test("A stalled reader does not delay another connection's replies, and is dropped when its queue overflows")
    func stalledReader() async throws {
        try await withCastSimulator(configure: { $0.outboundQueueLimit = 256 * 1024 }) { simulator in
            let active = try await CastTestSender.connect(to: simulator)
            let transportId = try await active.launch()

            let stalled = try await CastTestSender.connect(to: simulator.castAddress, receiveBuffer: 4096)
            _ = try await stalled.connectToReceiver()
            try await stalled.send(to: transportId, CastNamespace.connection, ["type": "CONNECT"])
            try await stalled.send(to: transportId, CastNamespace.media, ["type": "GET_STATUS", "requestId": 2])
            #expect(await stalled.waitFor { _, json in json["requestId"] == 2 } != nil)
            // Stop reading: the kernel buffers fill, then the server's queue for it.
            try await stalled.channel.setOption(.autoRead, value: false).get()

            // Each LOAD makes two ~50 KB MEDIA_STATUS broadcasts (the media is echoed twice in each).
            let title = String(repeating: "t", count: 25_000)
            let started = ContinuousClock.now
            for requestId in 10..<160 {
                let arrived = try await Self.load(title: title, requestId: requestId, on: transportId, by: active)
                try #require(arrived, "reply to LOAD \(requestId) did not arrive")
            }
            // Not a benchmark: a generous bound that a loop blocked on the stalled socket would blow.
            #expect(ContinuousClock.now - started < .seconds(60))
            let remaining = try await simulator.inspect { $0.connections.count }
            #expect(remaining == 1, "the stalled sender should have been disconnected")
            await stalled.close()
            await active.close()
        }
    }

    /// Sends a LOAD with a long title and waits for the MEDIA_STATUS that answers it.
    private static func load(title: String, requestId: Int, on transportId: String, by sender: CastTestSender) async throws -> Bool {
        try await sender.send(to: transportId, CastNamespace.media, [
            "type": "LOAD", "requestId": .number(Double(requestId)),
            "media": ["contentId": "big.mp4", "metadata": ["metadataType": 0, "title": .string(title)]],
        ])
        let reply = await sender.waitFor(timeout: .seconds(5)) { _, json in
            json["type"] == "MEDIA_STATUS" && json["requestId"]?.intValue == requestId
        }
        return reply != nil
    }

    @Test("The TLS certificate is fresh, self-signed RSA, valid for under 4 days with notBefore in the past")
    func tlsCertificate() async throws {
        try await withCastSimulator { simulator in
            let client = try await CastTestSender.connect(to: simulator)
            _ = try await client.connectToReceiver()
            let der = try await client.peerCertificateDER()
            #expect(try der == Array(simulator.credentials.tls.der))
            let validity = try CertificateFacts(der: der)
            let now = Date()
            #expect(validity.notBefore < now)
            #expect(now.timeIntervalSince(validity.notBefore) <= 2 * 3600)
            #expect(validity.notAfter.timeIntervalSince(now) < 4 * 24 * 3600)
            #expect(validity.notAfter.timeIntervalSince(now) > 2 * 24 * 3600)
            #expect(validity.isRSA)
            await client.close()
        }
    }

    @Test("HTTP and HTTPS eureka_info answer params=device_info,name with the device identity")
    func eurekaInfo() async throws {
        try await withCastSimulator { simulator in
            for (address, secure) in [(simulator.httpAddress!, false), (simulator.httpsAddress!, true)] {
                let body = try await httpGet(address: address, secure: secure, path: "/setup/eureka_info?params=device_info,name")
                let json = try JSONValue.parse(body)
                #expect(json["name"] == "Test TV")
                #expect(json["device_info"]?["ssdp_udn"] == "fedcba98-7654-3210-fedc-ba9876543210")
                #expect(json["device_info"]?["model_name"] == "Chromecast")
                #expect(json["device_info"]?["manufacturer"] == "Google Inc.")
                #expect(json["device_info"]?["capabilities"]?["display_supported"] == true)
                #expect(json["device_info"]?["capabilities"]?["multizone_supported"] == true)
                #expect(json["ssdp_udn"] == "fedcba98-7654-3210-fedc-ba9876543210")
                #expect(json.objectValue?.keys.sorted() == ["device_info", "name", "ssdp_udn"])
            }
            let flat = try JSONValue.parse(try await httpGet(address: simulator.httpAddress!, secure: false, path: "/setup/eureka_info"))
            #expect(flat["ssdp_udn"] == "fedcba98-7654-3210-fedc-ba9876543210")
            #expect(flat["name"] == "Test TV")
            // A device in no group: an empty multizone section, in the shape probes read.
            let multizone = try JSONValue.parse(try await httpGet(address: simulator.httpAddress!, secure: false, path: "/setup/eureka_info?params=multizone"))
            #expect(multizone["multizone"]?["groups"] == [])
            #expect(multizone["multizone"]?["dynamic_groups"] == [])
        }
    }

    @Test("eureka_info answers another method with 405 and any other path with 404, as JSON")
    func eurekaInfoErrors() async throws {
        try await withCastSimulator { simulator in
            for (address, secure) in [(simulator.httpAddress!, false), (simulator.httpsAddress!, true)] {
                let post = try await httpRequest(address: address, secure: secure, method: "POST", path: "/setup/eureka_info")
                #expect(post.status == 405 && post.body == #"{"error":"use GET"}"#)
                #expect(post.head.lowercased().contains("allow: get"))
                #expect(post.head.lowercased().contains("content-type: application/json"))
                let other = try await httpRequest(address: address, secure: secure, path: "/setup/offer")
                #expect(other.status == 404 && other.body == #"{"error":"not found"}"#)
            }
        }
    }

    @Test("closeConnection with a reset drops the sender's connection")
    func reset() async throws {
        let scenario = try Scenario.parse(Data("""
        {"name": "reset", "clock": {"mode": "manual"}, "device": {"heartbeatInterval": "0s"},
         "timeline": [{"after": {"event": "GET_STATUS"}, "closeConnection": {"which": "first", "mode": "reset"}}]}
        """.utf8))
        try await withCastSimulator(configure: { $0.scenario = scenario; $0.clock = .manual }) { simulator in
            let client = try await CastTestSender.connect(to: simulator)
            try await client.send(to: "receiver-0", CastNamespace.connection, ["type": "CONNECT"])
            try await client.send(to: "receiver-0", CastNamespace.receiver, ["type": "GET_STATUS", "requestId": 1])
            #expect(await client.waitForClose())
            var open = 1
            for _ in 0..<100 where open > 0 {
                try await Task.sleep(for: .milliseconds(20))
                open = try await simulator.inspect { $0.connections.count }
            }
            #expect(open == 0)
        }
    }
}
