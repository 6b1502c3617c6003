internal import CNIOBoringSSL
import Foundation

/// An X.509 certificate, read or issued, with what castsim and its tests ask of one.
///
/// Sendable: nothing changes it after it is made (BoringSSL caches the parsed extensions
/// under its own lock).
public final class Certificate: @unchecked Sendable {
    /// An `X509`.
    let x509: OpaquePointer
    /// The DER, as it goes on the wire.
    public let der: Data

    /// Takes `x509` over; nil (and `x509` freed) when it cannot be encoded.
    init?(owning x509: OpaquePointer) {
        guard let der = BoringSSL.der({ i2d_X509(x509, $0) }) else {
            X509_free(x509)
            return nil
        }
        self.x509 = x509
        self.der = Data(der)
    }

    deinit {
        X509_free(x509)
    }

    /// Reads exactly one DER certificate: bytes after it are refused, not ignored (what
    /// `der` then holds is what was read).
    public convenience init(derEncoded der: [UInt8]) throws(CredentialsError) {
        var consumed = 0
        let x509 = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor = buffer.baseAddress
            defer { if let start = buffer.baseAddress, let cursor { consumed = cursor - start } }
            return d2i_X509(nil, &cursor, buffer.count)
        }
        guard let x509 else { throw BoringSSL.error("not a DER certificate", as: CredentialsError.unreadable) }
        guard consumed == der.count else {
            X509_free(x509)
            let extra = der.count - consumed
            throw .unreadable("not a DER certificate: \(extra) byte\(extra == 1 ? "" : "s") after it")
        }
        guard let read = Certificate(owning: x509) else { throw BoringSSL.error("not a DER certificate", as: CredentialsError.unreadable) }
        self.init(read)
    }

    public convenience init(pemEncoded pem: String) throws(CredentialsError) {
        guard let x509 = BoringSSL.reading(pem, { PEM_read_bio_X509($0, nil, nil, nil) }),
              let read = Certificate(owning: x509) else {
            throw BoringSSL.error("not a PEM certificate", as: CredentialsError.unreadable)
        }
        self.init(read)
    }

    /// Shares `other`'s certificate (a convenience initializer cannot return another instance).
    private init(_ other: Certificate) {
        X509_up_ref(other.x509)
        x509 = other.x509
        der = other.der
    }

    public var pemRepresentation: String {
        BoringSSL.text { PEM_write_bio_X509($0, x509) } ?? ""
    }

    public var subject: DistinguishedName { DistinguishedName(X509_get_subject_name(x509)) }
    public var issuer: DistinguishedName { DistinguishedName(X509_get_issuer_name(x509)) }

    public var notValidBefore: Date { Self.date(X509_get0_notBefore(x509)) }
    public var notValidAfter: Date { Self.date(X509_get0_notAfter(x509)) }

    /// The public key (SubjectPublicKeyInfo, DER): two certificates of one key have the same.
    public var publicKeyDER: [UInt8] {
        BoringSSL.der { i2d_X509_PUBKEY(X509_get_X509_PUBKEY(x509), $0) } ?? []
    }

    /// The size of its RSA key, or nil when the key is not RSA.
    public var rsaKeyBits: Int? {
        guard let key = X509_get0_pubkey(x509), EVP_PKEY_id(key) == EVP_PKEY_RSA else { return nil }
        return Int(EVP_PKEY_bits(key))
    }

    /// The signature algorithm's name, as `openssl x509 -text` prints it (`sha256WithRSAEncryption`).
    public var signatureAlgorithm: String {
        guard let name = OBJ_nid2ln(X509_get_signature_nid(x509)) else { return "unknown" }
        return String(cString: name)
    }

    public enum BasicConstraints: Equatable, Sendable {
        case certificateAuthority(maxPathLength: Int?)
        case notCertificateAuthority
    }

    /// The basic constraints extension, or nil when there is none.
    public var basicConstraints: BasicConstraints? {
        let flags = X509_get_extension_flags(x509)
        guard flags & UInt32(EXFLAG_BCONS) != 0 else { return nil }
        guard flags & UInt32(EXFLAG_CA) != 0 else { return .notCertificateAuthority }
        let length = X509_get_pathlen(x509)
        return .certificateAuthority(maxPathLength: length < 0 ? nil : Int(length))
    }

    public struct KeyUsage: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let digitalSignature = KeyUsage(rawValue: UInt32(X509v3_KU_DIGITAL_SIGNATURE))
        public static let keyEncipherment = KeyUsage(rawValue: UInt32(X509v3_KU_KEY_ENCIPHERMENT))
        public static let keyCertSign = KeyUsage(rawValue: UInt32(X509v3_KU_KEY_CERT_SIGN))
        public static let cRLSign = KeyUsage(rawValue: UInt32(X509v3_KU_CRL_SIGN))
    }

    /// The key usage extension, or nil when there is none.
    public var keyUsage: KeyUsage? {
        let usage = X509_get_key_usage(x509)
        return usage == UInt32.max ? nil : KeyUsage(rawValue: usage)
    }

    /// Whether `issuer` issued this certificate: it names `issuer`'s subject, matches its key
    /// identifier, and carries `issuer`'s valid signature.
    public func isIssued(by issuer: Certificate) -> Bool {
        guard X509_check_issued(issuer.x509, x509) == X509_V_OK, let key = X509_get0_pubkey(issuer.x509) else { return false }
        return X509_verify(x509, key) == 1
    }

    /// Whether `signature` is this certificate's RSA key's PKCS#1 v1.5 signature of `data`.
    public func isValidSignature(_ signature: Data, for data: Data, digest: SignatureDigest) -> Bool {
        guard let key = X509_get0_pubkey(x509), let rsa = EVP_PKEY_get0_RSA(key) else { return false }
        let hash = digest.hash(data)
        return signature.withUnsafeBytes { signature in
            RSA_verify(digest.nid, hash, hash.count, signature.bindMemory(to: UInt8.self).baseAddress, signature.count, rsa) == 1
        }
    }

    private static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date {
        var seconds: Int64 = 0
        guard let time, ASN1_TIME_to_posix(time, &seconds) == 1 else { return .distantPast }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }
}

/// A certificate's subject or issuer: compared by its DER, printed as RFC 2253 says
/// (`CN=castsim Device,O=castsim`).
public struct DistinguishedName: Hashable, Sendable, CustomStringConvertible {
    let der: [UInt8]
    public let description: String

    init(_ name: OpaquePointer?) {
        der = BoringSSL.der { i2d_X509_NAME(name, $0) } ?? []
        description = BoringSSL.text { X509_NAME_print_ex($0, name, 0, Self.rfc2253) } ?? "?"
    }

    /// `XN_FLAG_RFC2253` (a macro Swift does not import) but with UTF-8 printed as it is.
    private static let rfc2253 = ASN1_STRFLGS_ESC_2253 | ASN1_STRFLGS_ESC_CTRL | ASN1_STRFLGS_UTF8_CONVERT
        | ASN1_STRFLGS_DUMP_UNKNOWN | ASN1_STRFLGS_DUMP_DER | XN_FLAG_SEP_COMMA_PLUS | XN_FLAG_DN_REV | XN_FLAG_FN_SN
        | XN_FLAG_DUMP_UNKNOWN_FIELDS

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.der == rhs.der }
    public func hash(into hasher: inout Hasher) { hasher.combine(der) }
}
