internal import CNIOBoringSSL
import Foundation

/// Issues the certificates of a developer Cast PKI, shaped as a strict verifier (Chrome,
/// Open Screen) demands: RSA 2048 everywhere, PKCS#1 v1.5 signatures over SHA-256 (RSA-PSS
/// fails), CA flags and path lengths on issuers, digitalSignature on the device certificate.
enum CertificateIssuer {
    static let keyBits = 2048
    /// The root, intermediate and device certificates are committed to the repository:
    /// they must outlive it. (The root's own dates are not checked by senders; the rest are.)
    static let chainLifetime: TimeInterval = 20 * 365 * 24 * 3600

    static func newKey() throws(CredentialsError) -> RSAPrivateKey {
        try RSAPrivateKey.generate(bits: keyBits)
    }

    /// A self-signed root: CA, keyCertSign.
    static func root(commonName: String, key: RSAPrivateKey, notBefore: Date) throws(CredentialsError) -> CertifiedKey {
        try issue(commonName: commonName, key: key, issuer: nil, notBefore: notBefore,
                  notAfter: notBefore.addingTimeInterval(chainLifetime),
                  extensions: [(NID_basic_constraints, "critical,CA:TRUE"), (NID_key_usage, "critical,keyCertSign,cRLSign"),
                               (NID_subject_key_identifier, "hash")])
    }

    /// An intermediate CA that may sign only end-entity certificates (pathlen 0).
    static func intermediate(commonName: String, key: RSAPrivateKey, issuer: CertifiedKey, notBefore: Date)
        throws(CredentialsError) -> CertifiedKey
    {
        try issue(commonName: commonName, key: key, issuer: issuer, notBefore: notBefore,
                  notAfter: notBefore.addingTimeInterval(chainLifetime),
                  extensions: [(NID_basic_constraints, "critical,CA:TRUE,pathlen:0"),
                               (NID_key_usage, "critical,keyCertSign,cRLSign"),
                               (NID_subject_key_identifier, "hash"), (NID_authority_key_identifier, "keyid")])
    }

    /// The device certificate that signs device-auth challenges: not a CA, digitalSignature.
    static func device(commonName: String, key: RSAPrivateKey, issuer: CertifiedKey, notBefore: Date)
        throws(CredentialsError) -> CertifiedKey
    {
        try issue(commonName: commonName, key: key, issuer: issuer, notBefore: notBefore,
                  notAfter: notBefore.addingTimeInterval(chainLifetime),
                  extensions: [(NID_basic_constraints, "critical,CA:FALSE"), (NID_key_usage, "critical,digitalSignature"),
                               (NID_subject_key_identifier, "hash"), (NID_authority_key_identifier, "keyid")])
    }

    /// A self-signed end-entity certificate (the TLS certificate, or a device certificate
    /// that chains to nothing).
    static func selfSigned(commonName: String, key: RSAPrivateKey, notBefore: Date, notAfter: Date)
        throws(CredentialsError) -> CertifiedKey
    {
        try issue(commonName: commonName, key: key, issuer: nil, notBefore: notBefore, notAfter: notAfter,
                  extensions: [(NID_basic_constraints, "critical,CA:FALSE"),
                               (NID_key_usage, "critical,digitalSignature,keyEncipherment")])
    }

    /// An X.509 v3 certificate of `key` named O=castsim, CN=`commonName`, with `extensions`
    /// (OpenSSL's configuration syntax), signed by `issuer` or, without one, by `key` itself.
    private static func issue(commonName: String, key: RSAPrivateKey, issuer: CertifiedKey?, notBefore: Date, notAfter: Date,
                              extensions: [(Int32, String)]) throws(CredentialsError) -> CertifiedKey
    {
        guard let x509 = X509_new() else { throw BoringSSL.error("cannot make a certificate") }
        guard let name = X509_NAME_new() else {
            X509_free(x509)
            throw BoringSSL.error("cannot make a certificate")
        }
        defer { X509_NAME_free(name) }
        // Random, 127 bits and positive, as RFC 5280 §4.1.2.2 asks.
        var serial = (0..<16).map { _ in UInt8.random(in: 0...255) }
        serial[0] = serial[0] & 0x7F | 0x40
        var made = X509_set_version(x509, Int(X509_VERSION_3)) == 1
            && serial.withUnsafeBufferPointer { bytes in
                guard let number = BN_bin2bn(bytes.baseAddress, bytes.count, nil) else { return false }
                defer { BN_free(number) }
                return BN_to_ASN1_INTEGER(number, X509_get_serialNumber(x509)) != nil
            }
            && ASN1_TIME_set_posix(X509_getm_notBefore(x509), Int64(notBefore.timeIntervalSince1970)) != nil
            && ASN1_TIME_set_posix(X509_getm_notAfter(x509), Int64(notAfter.timeIntervalSince1970)) != nil
            && add(NID_organizationName, "castsim", to: name) && add(NID_commonName, commonName, to: name)
            && X509_set_subject_name(x509, name) == 1
            && X509_set_issuer_name(x509, issuer.map { X509_get_subject_name($0.certificate.x509) } ?? name) == 1
            && X509_set_pubkey(x509, key.evpKey) == 1
        if made {
            // The key identifiers are taken from these two: the subject's key is set above.
            var context = X509V3_CTX()
            X509V3_set_ctx(&context, issuer?.certificate.x509 ?? x509, x509, nil, nil, 0)
            for (nid, value) in extensions where made {
                guard let extensionValue = X509V3_EXT_nconf_nid(nil, &context, nid, value) else {
                    made = false
                    break
                }
                made = X509_add_ext(x509, extensionValue, -1) == 1
                X509_EXTENSION_free(extensionValue)
            }
        }
        guard made, X509_sign(x509, (issuer?.key ?? key).evpKey, EVP_sha256()) > 0 else {
            X509_free(x509)
            throw BoringSSL.error("cannot issue the certificate of \(commonName)")
        }
        guard let certificate = Certificate(owning: x509) else { throw BoringSSL.error("cannot encode the certificate of \(commonName)") }
        return CertifiedKey(certificate: certificate, key: key)
    }

    private static func add(_ nid: Int32, _ value: String, to name: OpaquePointer) -> Bool {
        let bytes = Array(value.utf8)
        return X509_NAME_add_entry_by_NID(name, nid, MBSTRING_UTF8, bytes, bytes.count, -1, 0) == 1
    }
}
