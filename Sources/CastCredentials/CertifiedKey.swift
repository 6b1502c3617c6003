internal import CNIOBoringSSL
import Foundation

/// A certificate and the RSA key it certifies.
public struct CertifiedKey: Sendable {
    public let certificate: Certificate
    public let key: RSAPrivateKey

    /// The certificate's DER, as it goes on the wire.
    public var der: Data { certificate.der }

    init(certificate: Certificate, key: RSAPrivateKey) {
        self.certificate = certificate
        self.key = key
    }

    /// Reads a PEM certificate and its PEM key (PKCS#1 or PKCS#8), checking that they belong together.
    public init(certificatePEM: String, keyPEM: String) throws(CredentialsError) {
        let certificate = try Certificate(pemEncoded: certificatePEM)
        let key = try RSAPrivateKey(pemRepresentation: keyPEM)
        guard X509_check_private_key(certificate.x509, key.evpKey) == 1 else {
            ERR_clear_error()
            throw .mismatchedKey("the key does not belong to the certificate \(certificate.subject)")
        }
        self.init(certificate: certificate, key: key)
    }

    public var certificatePEM: String { certificate.pemRepresentation }

    /// SHA-256 of the certificate's DER, as `openssl x509 -fingerprint -sha256` prints it.
    public var fingerprint: String {
        SignatureDigest.sha256.hash(der).map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return byte < 16 ? "0" + hex : hex
        }.joined(separator: ":")
    }

    /// PKCS#8, the form `openssl` and Open Screen read.
    public var keyPEM: String { key.pkcs8PEMRepresentation }

    /// RSASSA-PKCS1-v1_5 over `data` with the requested digest, as device auth signs.
    public func sign(_ data: Data, digest: SignatureDigest) throws(CredentialsError) -> Data {
        try key.signature(for: data, digest: digest)
    }
}

public enum CredentialsError: Error, Equatable, Sendable, CustomStringConvertible {
    case unreadable(String)
    case mismatchedKey(String)
    case missingFile(String)
    case invalidChain(String)
    case io(String)
    /// BoringSSL could not make a key, a certificate or a signature.
    case crypto(String)

    public var description: String {
        switch self {
        case .unreadable(let text), .mismatchedKey(let text), .missingFile(let text), .invalidChain(let text), .io(let text),
             .crypto(let text): text
        }
    }
}
