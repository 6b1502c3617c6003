import CastCredentials
import Crypto
import Foundation
import Testing
import X509
import _CryptoExtras

@Suite("A device's credentials: the short-lived TLS certificate, its renewal, device-auth signatures")
struct DeviceCredentialsTests {
    static func tlsKey() async throws -> _RSA.Signing.PrivateKey { try await SharedKeys.shared.tls() }

    @Test("The TLS certificate: self-signed RSA, notBefore an hour back, valid for 3 days (under Chrome's 4)")
    func tlsCertificate() async throws {
        let now = Date()
        let credentials = try DeviceCredentials(pki: try await DeveloperPKITests.pki(), tlsKey: try await Self.tlsKey(), deviceId: "0123", date: now)
        let certificate = credentials.tls.certificate
        #expect(certificate.issuer == certificate.subject)
        #expect(abs(certificate.notValidBefore.timeIntervalSince(now) + 3600) < 2)
        let lifetime = certificate.notValidAfter.timeIntervalSince(now)
        #expect(lifetime < 4 * 24 * 3600 && abs(lifetime - 3 * 24 * 3600) < 2)
        #expect(try certificate.extensions.basicConstraints == .notCertificateAuthority)
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
        #expect(renewed.tls.certificate.publicKey == credentials.tls.certificate.publicKey)
        #expect(renewed.tls.certificate.notValidAfter > credentials.tls.certificate.notValidAfter)
        #expect(renewed.pki.device.der == credentials.pki.device.der)
    }

    @Test("Device-auth signatures verify with the device certificate, SHA-1 and SHA-256; the self-signed certificate certifies the same key")
    func signatures() async throws {
        let credentials = try DeviceCredentials(pki: try await DeveloperPKITests.pki(), tlsKey: try await Self.tlsKey(), deviceId: "0123")
        let data = Data("nonce".utf8) + credentials.tls.der
        let key = try #require(_RSA.Signing.PublicKey(credentials.pki.device.certificate.publicKey))
        let sha1 = _RSA.Signing.RSASignature(rawRepresentation: try credentials.pki.device.sign(data, digest: .sha1))
        let sha256 = _RSA.Signing.RSASignature(rawRepresentation: try credentials.pki.device.sign(data, digest: .sha256))
        #expect(key.isValidSignature(sha1, for: Insecure.SHA1.hash(data: data), padding: .insecurePKCS1v1_5))
        #expect(key.isValidSignature(sha256, for: SHA256.hash(data: data), padding: .insecurePKCS1v1_5))
        #expect(!key.isValidSignature(sha256, for: SHA256.hash(data: credentials.tls.der), padding: .insecurePKCS1v1_5))
        let selfSigned = credentials.selfSignedDevice.certificate
        #expect(selfSigned.publicKey == credentials.pki.device.certificate.publicKey && selfSigned.issuer == selfSigned.subject)
        #expect(selfSigned.issuer != credentials.pki.intermediate.certificate.subject)
    }
}
