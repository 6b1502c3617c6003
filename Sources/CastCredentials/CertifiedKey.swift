import Crypto
import Foundation
import SwiftASN1
import X509
import _CryptoExtras

/// A certificate and the RSA key it certifies. Cast device authentication is RSA only:
/// Open Screen rejects an EC device certificate and any issuer key under 2048 bits.
public struct CertifiedKey: Sendable {
    public let certificate: Certificate
    public let key: _RSA.Signing.PrivateKey
    /// The certificate's DER, as it goes on the wire.
    public let der: Data

    public init(certificate: Certificate, key: _RSA.Signing.PrivateKey) throws {
        self.certificate = certificate
        self.key = key
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        der = Data(serializer.serializedBytes)
    }

    /// Reads a PEM certificate and its PEM key (PKCS#1 or PKCS#8), checking that they belong together.
    public init(certificatePEM: String, keyPEM: String) throws(CredentialsError) {
        let certificate: Certificate
        let key: _RSA.Signing.PrivateKey
        do {
            certificate = try Certificate(pemEncoded: certificatePEM)
        } catch {
            throw .unreadable("not a PEM certificate: \(error)")
        }
        do {
            key = try _RSA.Signing.PrivateKey(pemRepresentation: keyPEM)
        } catch {
            throw .unreadable("not a PEM RSA private key: \(error)")
        }
        guard certificate.publicKey == Certificate.PublicKey(key.publicKey) else {
            throw .mismatchedKey("the key does not belong to the certificate \(certificate.subject)")
        }
        do {
            try self.init(certificate: certificate, key: key)
        } catch {
            throw .unreadable("cannot serialize \(certificate.subject): \(error)")
        }
    }

    public var certificatePEM: String {
        get throws { try certificate.serializeAsPEM().pemString }
    }

    /// SHA-256 of the certificate's DER, as `openssl x509 -fingerprint -sha256` prints it.
    public var fingerprint: String {
        SHA256.hash(data: der).map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return byte < 16 ? "0" + hex : hex
        }.joined(separator: ":")
    }

    /// PKCS#8, the form `openssl` and Open Screen read.
    public var keyPEM: String { key.pkcs8PEMRepresentation }

    /// RSASSA-PKCS1-v1_5 over `data` with the requested digest, as device auth signs.
    public func sign(_ data: Data, digest: SignatureDigest) throws -> Data {
        let signature = switch digest {
        case .sha1: try key.signature(for: Insecure.SHA1.hash(data: data), padding: .insecurePKCS1v1_5)
        case .sha256: try key.signature(for: SHA256.hash(data: data), padding: .insecurePKCS1v1_5)
        }
        return signature.rawRepresentation
    }
}

/// The digests a Cast sender may ask device auth to sign with.
public enum SignatureDigest: Sendable {
    case sha1, sha256
}

public enum CredentialsError: Error, Equatable, Sendable, CustomStringConvertible {
    case unreadable(String)
    case mismatchedKey(String)
    case missingFile(String)
    case invalidChain(String)
    case io(String)

    public var description: String {
        switch self {
        case .unreadable(let text), .mismatchedKey(let text), .missingFile(let text), .invalidChain(let text), .io(let text): text
        }
    }
}
