import CastSimulator
import CastSimulatorTesting
import CastWire
import Crypto
import Foundation
import Testing
import X509
import _CryptoExtras

@Suite("Device authentication over TLS", .timeLimit(.minutes(2)))
struct DeviceAuthIntegrationTests {
    @Test("The AuthResponse signature verifies with the device certificate over nonce || this session's TLS certificate",
          arguments: [Cast_Channel_HashAlgorithm.sha1, .sha256])
    func signatureVerifies(hash: Cast_Channel_HashAlgorithm) async throws {
        try await withCastSimulator { simulator in
            let client = try await CastTestSender.connect(to: simulator)
            let nonce = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
            var message = Cast_Channel_DeviceAuthMessage()
            message.challenge.senderNonce = nonce
            message.challenge.hashAlgorithm = hash
            // No CONNECT first: deviceauth is a transport namespace.
            try await client.send(CastEnvelope(sourceId: "sender-0", destinationId: "receiver-0",
                                               namespace: CastNamespace.deviceAuth, payload: .binary(try message.serializedData())))
            let reply = await client.waitFor { envelope, _ in envelope.namespace == CastNamespace.deviceAuth }
            guard case .binary(let data)? = reply?.0.payload else {
                Issue.record("no BINARY deviceauth reply")
                return
            }
            let response = try Cast_Channel_DeviceAuthMessage(serializedBytes: data).response
            #expect(response.senderNonce == nonce && response.hashAlgorithm == hash)

            let tlsDER = try await client.peerCertificateDER()
            let deviceCertificate = try Certificate(derEncoded: Array(response.clientAuthCertificate))
            let key = try #require(_RSA.Signing.PublicKey(deviceCertificate.publicKey))
            let signature = _RSA.Signing.RSASignature(rawRepresentation: response.signature)
            let signed = nonce + Data(tlsDER)
            let valid = switch hash {
            case .sha1: key.isValidSignature(signature, for: Insecure.SHA1.hash(data: signed), padding: .insecurePKCS1v1_5)
            case .sha256: key.isValidSignature(signature, for: SHA256.hash(data: signed), padding: .insecurePKCS1v1_5)
            }
            #expect(valid)
            // And not over some other data.
            #expect(!key.isValidSignature(signature, for: SHA256.hash(data: Data(tlsDER)), padding: .insecurePKCS1v1_5))
            await client.close()
        }
    }
}
