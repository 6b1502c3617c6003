import CastCredentials
import Foundation
import Testing

@Suite("A device's credentials: the short-lived TLS certificate, its renewal, device-auth signatures")
struct DeviceCredentialsTests {
    static func tlsKey() async throws -> RSAPrivateKey { try await SharedKeys.shared.tls() }

    @Test("The TLS certificate: self-signed RSA, notBefore an hour back, valid for 3 days (under Chrome's 4)")
    func tlsCertificate() async throws {
        let now = Date()
        let credentials = try DeviceCredentials(pki: try await DeveloperPKITests.pki(), tlsKey: try await Self.tlsKey(), deviceId: "0123", date: now)
        let certificate = credentials.tls.certificate
        #expect(certificate.issuer == certificate.subject)
        #expect(abs(certificate.notValidBefore.timeIntervalSince(now) + 3600) < 2)
        let lifetime = certificate.notValidAfter.timeIntervalSince(now)
        #expect(lifetime < 4 * 24 * 3600 && abs(lifetime - 3 * 24 * 3600) < 2)
        #expect(certificate.basicConstraints == .notCertificateAuthority)
        #expect(certificate.keyUsage == [.digitalSignature, .keyEncipherment])
        #expect(abs(credentials.tlsRenewalDate.timeIntervalSince(certificate.notValidAfter) + 24 * 3600) < 1)
    }

    @Test("Renewal: a new certificate over the same key, later dates; a short lifetime renews half-way")
    func renewal() async throws {
        let start = Date()
        let credentials = try DeviceCredentials(pki: try await DeveloperPKITests.pki(), tlsKey: try await Self.tlsKey(), deviceId: "0123", date: start,
                                                tlsLifetime: 10)
        #expect(abs(credentials.tlsRenewalDate.timeIntervalSince(start) - 5) < 1)
        let renewed = try credentials.renewed(at: start.addingTimeInterval(5))
        #expect(renewed.tls.der != credentials.tls.der)
        #expect(renewed.tls.certificate.publicKeyDER == credentials.tls.certificate.publicKeyDER)
        #expect(renewed.tls.certificate.notValidAfter > credentials.tls.certificate.notValidAfter)
        #expect(renewed.pki.device.der == credentials.pki.device.der)
    }

    @Test("Device-auth signatures verify with the device certificate, SHA-1 and SHA-256; the self-signed certificate certifies the same key")
    func signatures() async throws {
        let credentials = try DeviceCredentials(pki: try await DeveloperPKITests.pki(), tlsKey: try await Self.tlsKey(), deviceId: "0123")
        let data = Data("nonce".utf8) + credentials.tls.der
        // Read back from the DER, as a sender reads the certificate from AuthResponse.
        let certificate = try Certificate(derEncoded: Array(credentials.pki.device.der))
        let sha1 = try credentials.pki.device.sign(data, digest: .sha1)
        let sha256 = try credentials.pki.device.sign(data, digest: .sha256)
        #expect(sha1.count == 256 && sha256.count == 256 && sha1 != sha256)
        #expect(certificate.isValidSignature(sha1, for: data, digest: .sha1))
        #expect(certificate.isValidSignature(sha256, for: data, digest: .sha256))
        #expect(!certificate.isValidSignature(sha256, for: data, digest: .sha1))
        #expect(!certificate.isValidSignature(sha256, for: credentials.tls.der, digest: .sha256))
        // PKCS#1 v1.5 is deterministic: the same data signs the same.
        #expect(try credentials.pki.device.sign(data, digest: .sha256) == sha256)
        let selfSigned = credentials.selfSignedDevice.certificate
        #expect(selfSigned.publicKeyDER == credentials.pki.device.certificate.publicKeyDER && selfSigned.issuer == selfSigned.subject)
        #expect(selfSigned.issuer != credentials.pki.intermediate.certificate.subject)
    }
}
