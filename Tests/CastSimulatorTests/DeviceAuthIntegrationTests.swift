import CastCredentials
import CastSimulator
import CastSimulatorTesting
import CastWire
import Foundation
import Testing

@Suite("Device authentication over TLS", .timeLimit(.minutes(2)))
struct DeviceAuthIntegrationTests {
    @Test("The AuthResponse signature verifies with the device certificate over nonce || this session's TLS certificate",
          arguments: [HashAlgorithm.sha1, .sha256])
    func signatureVerifies(hash: HashAlgorithm) async throws {
        try await withCastSimulator { simulator in
            let client = try await CastTestSender.connect(to: simulator)
            let nonce = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
            let response = try #require(await Self.challenge(client, nonce: nonce, hash: hash))
            #expect(response.senderNonce == nonce && response.hashAlgorithm == hash)

            let tlsDER = try await client.peerCertificateDER()
            #expect(try Self.signatureCovers(nonce + Data(tlsDER), response, hash: hash))
            // And not over some other data.
            #expect(try !Self.signatureCovers(Data(tlsDER), response, hash: hash))
            // The chain: the developer PKI's device certificate and intermediate.
            #expect(try response.clientAuthCertificate == simulator.credentials.pki.device.der)
            #expect(try response.intermediateCertificate == [simulator.credentials.pki.intermediate.der])
            await client.close()
        }
    }

    @Test("A long-running device renews its TLS certificate; each connection is answered over the one it was presented")
    func renewal() async throws {
        try await withCastSimulator(configure: { $0.tlsCertificateLifetime = 4 }) { simulator in
            let early = try await CastTestSender.connect(to: simulator)
            _ = try await early.connectToReceiver()  // the handshake is done
            let earlyDER = Data(try await early.peerCertificateDER())
            // Renewed half-way through a lifetime this short.
            try await Task.sleep(for: .seconds(2.5))
            let late = try await CastTestSender.connect(to: simulator)
            _ = try await late.connectToReceiver()
            let lateDER = Data(try await late.peerCertificateDER())
            #expect(try lateDER != earlyDER && lateDER == simulator.credentials.tls.der)
            // eureka_info over HTTPS presents the renewed certificate too.
            let https = try await httpRequest(address: try #require(simulator.httpsAddress), secure: true, path: "/setup/eureka_info")
            #expect(https.status == 200 && https.peerCertificateDER.map { Data($0) } == lateDER)
            let earlyCertificate = try Certificate(derEncoded: Array(earlyDER))
            let lateCertificate = try Certificate(derEncoded: Array(lateDER))
            #expect(lateCertificate.notValidAfter > earlyCertificate.notValidAfter)
            for (client, der) in [(early, earlyDER), (late, lateDER)] {
                let nonce = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
                let response = try #require(await Self.challenge(client, nonce: nonce, hash: .sha256))
                #expect(try Self.signatureCovers(nonce + der, response, hash: .sha256))
                await client.close()
            }
        }
    }

    static func challenge(_ client: CastTestSender, nonce: Data, hash: HashAlgorithm) async throws -> AuthResponse? {
        let message = DeviceAuthMessage(challenge: AuthChallenge(senderNonce: nonce, hashAlgorithm: hash))
        // No CONNECT first: deviceauth is a transport namespace.
        try await client.send(CastEnvelope(sourceId: "sender-0", destinationId: "receiver-0",
                                           namespace: CastNamespace.deviceAuth, payload: .binary(message.serializedData)))
        let reply = await client.waitFor { envelope, _ in envelope.namespace == CastNamespace.deviceAuth }
        guard case .binary(let data)? = reply?.0.payload else {
            Issue.record("no BINARY deviceauth reply")
            return nil
        }
        return try DeviceAuthMessage(serializedBytes: data).response
    }

    static func signatureCovers(_ signed: Data, _ response: AuthResponse, hash: HashAlgorithm) throws -> Bool {
        let deviceCertificate = try Certificate(derEncoded: Array(response.clientAuthCertificate))
        return deviceCertificate.isValidSignature(response.signature, for: signed, digest: hash == .sha256 ? .sha256 : .sha1)
    }
}
