import CastDevice
import CastWire
import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509
import _CryptoExtras

/// The keys and certificates a simulated device presents: a short-lived TLS certificate
/// for the Cast port, and the device certificate that signs deviceauth challenges.
public struct DeviceCredentials: DeviceAuthority {
    public let tlsCertificateDER: Data
    public let deviceCertificateDER: Data
    public let intermediateCertificatesDER: [Data]
    let tlsKey: _RSA.Signing.PrivateKey
    let deviceKey: _RSA.Signing.PrivateKey

    /// Chrome refuses a TLS certificate whose remaining lifetime exceeds 4 days (§1.1);
    /// Open Screen's generator uses 3.
    public static let tlsLifetime: TimeInterval = 3 * 24 * 3600
    /// notBefore lies this far in the past, so a sender whose clock lags a little still
    /// sees a valid certificate.
    public static let notBeforeMargin: TimeInterval = 3600

    /// Generates fresh credentials: a TLS certificate valid from shortly before `date`
    /// for 3 days, and a self-signed device certificate named after the device UUID.
    public static func generate(identity: DeviceIdentity, date: Date = Date()) async throws -> DeviceCredentials {
        // Two 2048-bit RSA keys are the slowest part of start-up: make them concurrently.
        async let tlsKeyTask = Task.detached { try _RSA.Signing.PrivateKey(keySize: .bits2048) }.value
        async let deviceKeyTask = Task.detached { try _RSA.Signing.PrivateKey(keySize: .bits2048) }.value
        let tlsKey = try await tlsKeyTask
        let deviceKey = try await deviceKeyTask
        let notBefore = date.addingTimeInterval(-notBeforeMargin)
        let tls = try selfSigned(
            key: tlsKey, commonName: "castsim TLS \(identity.uuid)",
            notBefore: notBefore, notAfter: date.addingTimeInterval(tlsLifetime))
        let device = try selfSigned(
            key: deviceKey, commonName: identity.uuid,
            notBefore: notBefore, notAfter: date.addingTimeInterval(365 * 24 * 3600))
        return DeviceCredentials(
            tlsCertificateDER: tls, deviceCertificateDER: device, intermediateCertificatesDER: [],
            tlsKey: tlsKey, deviceKey: deviceKey)
    }

    static func selfSigned(key rsaKey: _RSA.Signing.PrivateKey, commonName: String, notBefore: Date, notAfter: Date)
        throws -> Data
    {
        let key = Certificate.PrivateKey(rsaKey)
        let name = try DistinguishedName {
            OrganizationName("castsim")
            CommonName(commonName)
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: key.publicKey,
            notValidBefore: notBefore, notValidAfter: notAfter, issuer: name, subject: name,
            signatureAlgorithm: .sha256WithRSAEncryption,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true, keyEncipherment: true))
            },
            issuerPrivateKey: key)
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return Data(serializer.serializedBytes)
    }

    public func sign(_ data: Data, hash: Cast_Channel_HashAlgorithm) throws -> Data {
        let signature: _RSA.Signing.RSASignature
        switch hash {
        case .sha1:
            signature = try deviceKey.signature(for: Insecure.SHA1.hash(data: data), padding: .insecurePKCS1v1_5)
        case .sha256:
            signature = try deviceKey.signature(for: SHA256.hash(data: data), padding: .insecurePKCS1v1_5)
        }
        return signature.rawRepresentation
    }

    /// The TLS identity for NIOSSL (also the load generator's echo server's, so that both
    /// pay the same for a handshake).
    package func tlsConfiguration() throws -> TLSConfiguration {
        let certificate = try NIOSSLCertificate(bytes: Array(tlsCertificateDER), format: .der)
        let key = try NIOSSLPrivateKey(bytes: Array(tlsKey.derRepresentation), format: .der)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(certificate)], privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        return configuration
    }
}
