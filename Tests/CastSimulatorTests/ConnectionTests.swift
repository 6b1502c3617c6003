import CastDevice
import CastSimulator
import CastWire
import Foundation
import NIOCore
import Testing

@Suite("Cast port over real TLS on loopback", .timeLimit(.minutes(2)))
struct ConnectionTests {
    @Test("A client completes TLS 1.2+, CONNECTs and gets RECEIVER_STATUS")
    func basicRoundTrip() async throws {
        try await withSimulator { simulator, group in
            let client = try await TestCastClient.connect(to: simulator.castAddress, group: group)
            let status = try await client.connectToReceiver()
            #expect(status?["status"]?["applications"]?.arrayValue?.first?["appId"] == "E8C28D3C")
            await client.close()
        }
    }

    @Test("TLS 1.2 is accepted; a sender limited to TLS 1.1 cannot connect")
    func tlsVersions() async throws {
        try await withSimulator { simulator, group in
            let modern = try await TestCastClient.connect(to: simulator.castAddress, group: group, maximumTLSVersion: .tlsv12)
            #expect(try await modern.connectToReceiver() != nil)
            await modern.close()
            var refused = false
            do {
                let old = try await TestCastClient.connect(to: simulator.castAddress, group: group, maximumTLSVersion: .tlsv11)
                // The handshake fails after TCP connects: nothing comes back, the connection closes.
                try? await old.send(to: "receiver-0", CastNamespace.connection, ["type": "CONNECT"])
                refused = await old.waitForClose(timeout: .seconds(5))
            } catch {
                refused = true
            }
            #expect(refused)
        }
    }

    @Test("Two connections both receive a broadcast caused by one of them")
    func broadcastsReachBoth() async throws {
        try await withSimulator { simulator, group in
            let first = try await TestCastClient.connect(to: simulator.castAddress, group: group)
            let second = try await TestCastClient.connect(to: simulator.castAddress, group: group)
            _ = try await first.connectToReceiver()
            _ = try await second.connectToReceiver()
            try await first.send(to: "receiver-0", CastNamespace.receiver, ["type": "SET_VOLUME", "volume": ["level": 0.4], "requestId": 7])
            for client in [first, second] {
                let status = await client.waitFor { envelope, json in
                    json["type"] == "RECEIVER_STATUS" && json["requestId"] == 7 && envelope.destinationId == "*"
                }
                #expect(status?.1["status"]?["volume"]?["level"] == 0.4)
            }
            await first.close()
            await second.close()
        }
    }

    /// Sends `bad` on one connection and checks that it alone is closed.
    private func expectOnlyOffenderClosed(_ bad: ByteBuffer, thenClose: Bool = false) async throws {
        try await withSimulator { simulator, group in
            let bystander = try await TestCastClient.connect(to: simulator.castAddress, group: group)
            _ = try await bystander.connectToReceiver()
            let offender = try await TestCastClient.connect(to: simulator.castAddress, group: group)
            _ = try await offender.connectToReceiver()
            try await offender.sendRaw(bad)
            if thenClose {
                // The peer goes away mid-frame: the server must drop it without harm.
                try await offender.channel.close(mode: .output)
            }
            #expect(await offender.waitForClose())
            // The device forgot the offender; the bystander carries on.
            try await Task.sleep(for: .milliseconds(50))
            let connections = try await simulator.inspect { $0.openConnections.count }
            #expect(connections == 1)
            try await bystander.send(to: "receiver-0", CastNamespace.receiver, ["type": "GET_STATUS", "requestId": 99])
            #expect(await bystander.waitFor { _, json in json["requestId"] == 99 } != nil)
            await bystander.close()
        }
    }

    @Test("A declared length over 64 KiB closes only that connection")
    func oversizedLength() async throws {
        var frame = ByteBuffer()
        frame.writeInteger(UInt32(70_000), endianness: .big)
        frame.writeBytes([UInt8](repeating: 0, count: 16))
        try await expectOnlyOffenderClosed(frame)
    }

    @Test("A body that is not a CastMessage closes only that connection")
    func garbageBody() async throws {
        var frame = ByteBuffer()
        frame.writeInteger(UInt32(20), endianness: .big)
        frame.writeBytes([UInt8](repeating: 0xEE, count: 20))
        try await expectOnlyOffenderClosed(frame)
    }

    @Test("A connection that ends inside a frame closes only that connection")
    func truncatedFrame() async throws {
        var frame = ByteBuffer()
        frame.writeInteger(UInt32(400), endianness: .big)
        frame.writeBytes([UInt8](repeating: 0x08, count: 10))
        try await expectOnlyOffenderClosed(frame, thenClose: true)
    }

    @Test("A stalled reader does not delay another connection's replies, and is dropped when its queue overflows")
    func stalledReader() async throws {
        try await withSimulator(configure: { $0.outboundQueueLimit = 256 * 1024 }) { simulator, group in
            let active = try await TestCastClient.connect(to: simulator.castAddress, group: group)
            _ = try await active.connectToReceiver()
            try await active.send(to: "receiver-0", CastNamespace.receiver, ["type": "LAUNCH", "appId": "CC1AD845", "requestId": 2])
            let launched = await active.waitFor { _, json in json["type"] == "RECEIVER_STATUS" && json["requestId"] == 2 }
            let transportId = try #require(launched?.1["status"]?["applications"]?.arrayValue?.first?["transportId"]?.stringValue)
            try await active.send(to: transportId, CastNamespace.connection, ["type": "CONNECT"])

            let stalled = try await TestCastClient.connect(to: simulator.castAddress, group: group, receiveBuffer: 4096)
            _ = try await stalled.connectToReceiver()
            try await stalled.send(to: transportId, CastNamespace.connection, ["type": "CONNECT"])
            try await stalled.send(to: transportId, CastNamespace.media, ["type": "GET_STATUS", "requestId": 2])
            #expect(await stalled.waitFor { _, json in json["requestId"] == 2 } != nil)
            // Stop reading: the kernel buffers fill, then the server's queue for it.
            try await stalled.channel.setOption(.autoRead, value: false)

            // Each LOAD makes two ~50 KB MEDIA_STATUS broadcasts (the media is echoed twice in each).
            let title = String(repeating: "t", count: 25_000)
            let started = ContinuousClock.now
            for requestId in 10..<160 {
                try await active.send(to: transportId, CastNamespace.media, [
                    "type": "LOAD", "requestId": .number(Double(requestId)),
                    "media": ["contentId": "big.mp4", "metadata": ["metadataType": 0, "title": .string(title)]],
                ])
                let reply = await active.waitFor(timeout: .seconds(5)) { _, json in
                    json["type"] == "MEDIA_STATUS" && json["requestId"]?.intValue == requestId
                }
                try #require(reply != nil, "reply to LOAD \(requestId) did not arrive")
            }
            // Not a benchmark: a generous bound that a loop blocked on the stalled socket would blow.
            #expect(ContinuousClock.now - started < .seconds(60))
            let remaining = try await simulator.inspect { $0.openConnections.count }
            #expect(remaining == 1, "the stalled sender should have been disconnected")
            await stalled.close()
            await active.close()
        }
    }

    @Test("A silent connection is closed after the idle timeout; device PINGs arrive meanwhile")
    func idleTimeout() async throws {
        try await withSimulator(configure: {
            $0.device.heartbeatInterval = 0.2
            $0.device.idleTimeout = 1
        }) { simulator, group in
            let client = try await TestCastClient.connect(to: simulator.castAddress, group: group)
            _ = try await client.connectToReceiver()
            let ping = await client.waitFor(timeout: .seconds(5)) { envelope, json in
                envelope.namespace == CastNamespace.heartbeat && json["type"] == "PING"
            }
            #expect(ping?.0.sourceId == "Tr@n$p0rt-0" && ping?.0.destinationId == "Tr@n$p0rt-0")
            // Say nothing more: the device gives up on us.
            #expect(await client.waitForClose(timeout: .seconds(10)))
            var open = 1
            for _ in 0..<100 where open > 0 {
                try await Task.sleep(for: .milliseconds(20))
                open = try await simulator.inspect { $0.openConnections.count }
            }
            #expect(open == 0)
        }
    }

    @Test("The TLS certificate is fresh, self-signed RSA, valid for under 4 days with notBefore in the past")
    func tlsCertificate() async throws {
        try await withSimulator { simulator, group in
            let client = try await TestCastClient.connect(to: simulator.castAddress, group: group)
            _ = try await client.connectToReceiver()
            let der = try await client.peerCertificateDER()
            #expect(der == Array(simulator.credentials.tlsCertificateDER))
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
        try await withSimulator { simulator, _ in
            for (address, secure) in [(simulator.httpAddress!, false), (simulator.httpsAddress!, true)] {
                let body = try await httpGet(address: address, secure: secure, path: "/setup/eureka_info?params=device_info,name")
                let json = try JSONValue.parse(body)
                #expect(json["name"] == "Test TV")
                #expect(json["device_info"]?["ssdp_udn"] == "fedcba98-7654-3210-fedc-ba9876543210")
                #expect(json["device_info"]?["model_name"] == "Chromecast")
                #expect(json["device_info"]?["manufacturer"] == "Google Inc.")
                #expect(json["device_info"]?["capabilities"]?["display_supported"] == true)
                #expect(json["device_info"]?["capabilities"]?["multizone_supported"] == false)
                #expect(json["ssdp_udn"] == "fedcba98-7654-3210-fedc-ba9876543210")
                #expect(json.objectValue?.keys.sorted() == ["device_info", "name", "ssdp_udn"])
            }
            let flat = try JSONValue.parse(try await httpGet(address: simulator.httpAddress!, secure: false, path: "/setup/eureka_info"))
            #expect(flat["ssdp_udn"] == "fedcba98-7654-3210-fedc-ba9876543210")
            #expect(flat["name"] == "Test TV")
        }
    }
}
