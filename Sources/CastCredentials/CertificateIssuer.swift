import Crypto
import Foundation
import SwiftASN1
import X509
import _CryptoExtras

/// Issues the certificates of a developer Cast PKI, shaped as a strict verifier (Chrome,
/// Open Screen) demands: RSA 2048 everywhere, PKCS#1 v1.5 signatures (RSA-PSS fails), CA
/// flags and path lengths on issuers, digitalSignature on the device certificate.
enum CertificateIssuer {
    static let keySize = _RSA.Signing.KeySize.bits2048
    /// The root, intermediate and device certificates are committed to the repository:
    /// they must outlive it. (The root's own dates are not checked by senders; the rest are.)
    static let chainLifetime: TimeInterval = 20 * 365 * 24 * 3600

    static func newKey() throws -> _RSA.Signing.PrivateKey {
        try _RSA.Signing.PrivateKey(keySize: keySize)
    }

    static func name(_ commonName: String) throws -> DistinguishedName {
        try DistinguishedName {
            OrganizationName("castsim")
            CommonName(commonName)
        }
    }

    /// A self-signed root: CA, keyCertSign.
    static func root(commonName: String, key: _RSA.Signing.PrivateKey, notBefore: Date) throws -> CertifiedKey {
        let subject = try name(commonName)
        let publicKey = Certificate.PublicKey(key.publicKey)
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
            notValidBefore: notBefore, notValidAfter: notBefore.addingTimeInterval(chainLifetime),
            issuer: subject, subject: subject, signatureAlgorithm: .sha256WithRSAEncryption,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: publicKey)
            },
            issuerPrivateKey: Certificate.PrivateKey(key))
        return try CertifiedKey(certificate: certificate, key: key)
    }

    /// An intermediate CA that may sign only end-entity certificates (pathlen 0).
    static func intermediate(commonName: String, key: _RSA.Signing.PrivateKey, issuer: CertifiedKey, notBefore: Date) throws
        -> CertifiedKey
    {
        try issue(commonName: commonName, key: key, issuer: issuer, notBefore: notBefore, lifetime: chainLifetime,
                  constraints: .isCertificateAuthority(maxPathLength: 0), usage: KeyUsage(keyCertSign: true, cRLSign: true))
    }

    /// The device certificate that signs device-auth challenges: not a CA, digitalSignature.
    static func device(commonName: String, key: _RSA.Signing.PrivateKey, issuer: CertifiedKey, notBefore: Date) throws
        -> CertifiedKey
    {
        try issue(commonName: commonName, key: key, issuer: issuer, notBefore: notBefore, lifetime: chainLifetime,
                  constraints: .notCertificateAuthority, usage: KeyUsage(digitalSignature: true))
    }

    /// A self-signed end-entity certificate (the TLS certificate, or a device certificate
    /// that chains to nothing).
    static func selfSigned(commonName: String, key: _RSA.Signing.PrivateKey, notBefore: Date, notAfter: Date) throws
        -> CertifiedKey
    {
        let subject = try name(commonName)
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: notBefore, notValidAfter: notAfter, issuer: subject, subject: subject,
            signatureAlgorithm: .sha256WithRSAEncryption,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true, keyEncipherment: true))
            },
            issuerPrivateKey: Certificate.PrivateKey(key))
        return try CertifiedKey(certificate: certificate, key: key)
    }

    private static func issue(commonName: String, key: _RSA.Signing.PrivateKey, issuer: CertifiedKey, notBefore: Date,
                              lifetime: TimeInterval, constraints: BasicConstraints, usage: KeyUsage) throws -> CertifiedKey
    {
        let publicKey = Certificate.PublicKey(key.publicKey)
        let issuerKeyId = try issuer.certificate.extensions.subjectKeyIdentifier?.keyIdentifier
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
            notValidBefore: notBefore, notValidAfter: notBefore.addingTimeInterval(lifetime),
            issuer: issuer.certificate.subject, subject: try name(commonName), signatureAlgorithm: .sha256WithRSAEncryption,
            extensions: try Certificate.Extensions {
                Critical(constraints)
                Critical(usage)
                SubjectKeyIdentifier(hash: publicKey)
                if let issuerKeyId { AuthorityKeyIdentifier(keyIdentifier: issuerKeyId) }
            },
            issuerPrivateKey: Certificate.PrivateKey(issuer.key))
        return try CertifiedKey(certificate: certificate, key: key)
    }
}
