internal import CNIOBoringSSL
import Foundation

/// An RSA private key. Cast device authentication is RSA only: Open Screen rejects an EC
/// device certificate and any issuer key under 2048 bits.
///
/// Sendable: the key is never changed after it is made, and BoringSSL signs with one key
/// from several threads at once (its blinding state is locked).
public final class RSAPrivateKey: @unchecked Sendable {
    /// An `EVP_PKEY` holding an RSA key.
    let evpKey: OpaquePointer

    private init(owning key: OpaquePointer) {
        self.evpKey = key
    }

    deinit {
        EVP_PKEY_free(evpKey)
    }

    /// A new key of `bits` bits, public exponent 65537.
    public static func generate(bits: Int = 2048) throws(CredentialsError) -> RSAPrivateKey {
        guard let rsa = RSA_new() else { throw BoringSSL.error("cannot make an RSA key") }
        defer { RSA_free(rsa) }
        guard let exponent = BN_new() else { throw BoringSSL.error("cannot make an RSA key") }
        defer { BN_free(exponent) }
        guard BN_set_word(exponent, BN_ULONG(RSA_F4)) == 1, RSA_generate_key_ex(rsa, Int32(bits), exponent, nil) == 1,
              let key = EVP_PKEY_new() else {
            throw BoringSSL.error("cannot make an RSA-\(bits) key")
        }
        guard EVP_PKEY_set1_RSA(key, rsa) == 1 else {
            EVP_PKEY_free(key)
            throw BoringSSL.error("cannot make an RSA-\(bits) key")
        }
        return RSAPrivateKey(owning: key)
    }

    /// Reads a PEM private key, PKCS#1 (`RSA PRIVATE KEY`) or PKCS#8 (`PRIVATE KEY`), unencrypted.
    public convenience init(pemRepresentation pem: String) throws(CredentialsError) {
        guard let key = BoringSSL.reading(pem, { PEM_read_bio_PrivateKey($0, nil, nil, nil) }) else {
            throw BoringSSL.error("not a PEM RSA private key", as: CredentialsError.unreadable)
        }
        guard EVP_PKEY_id(key) == EVP_PKEY_RSA else {
            EVP_PKEY_free(key)
            throw .unreadable("not an RSA key: Cast device authentication signs with RSA only")
        }
        self.init(owning: key)
    }

    /// PKCS#8 PEM, the form `openssl` and Open Screen read.
    public var pkcs8PEMRepresentation: String {
        // Writing a key that exists into memory fails only when memory does.
        BoringSSL.text { PEM_write_bio_PKCS8PrivateKey($0, evpKey, nil, nil, 0, nil, nil) } ?? ""
    }

    /// DER as `i2d_PrivateKey` writes an RSA key (PKCS#1), which NIOSSL takes as a TLS key.
    public var derRepresentation: [UInt8] {
        BoringSSL.der { i2d_PrivateKey(evpKey, $0) } ?? []
    }

    /// The public key as a certificate carries it (SubjectPublicKeyInfo, DER).
    public var publicKeyDER: [UInt8] {
        BoringSSL.der { i2d_PUBKEY(evpKey, $0) } ?? []
    }

    public var bits: Int { Int(EVP_PKEY_bits(evpKey)) }

    /// RSASSA-PKCS1-v1_5 over `data` with `digest`, as device auth signs.
    public func signature(for data: Data, digest: SignatureDigest) throws(CredentialsError) -> Data {
        let rsa = EVP_PKEY_get0_RSA(evpKey)
        var signature = [UInt8](repeating: 0, count: Int(RSA_size(rsa)))
        var length: UInt32 = 0
        let hashed = digest.hash(data)
        let signed = hashed.withUnsafeBufferPointer { hash in
            RSA_sign(digest.nid, hash.baseAddress, hash.count, &signature, &length, rsa)
        }
        guard signed == 1 else { throw BoringSSL.error("cannot sign") }
        return Data(signature.prefix(Int(length)))
    }
}

/// The digests a Cast sender may ask device auth to sign with.
public enum SignatureDigest: Sendable {
    case sha1, sha256

    var nid: Int32 {
        switch self {
        case .sha1: NID_sha1
        case .sha256: NID_sha256
        }
    }

    func hash(_ data: Data) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: self == .sha1 ? Int(SHA_DIGEST_LENGTH) : Int(SHA256_DIGEST_LENGTH))
        data.withUnsafeBytes { bytes in
            let input = bytes.bindMemory(to: UInt8.self)
            switch self {
            case .sha1: _ = SHA1(input.baseAddress, input.count, &digest)
            case .sha256: _ = SHA256(input.baseAddress, input.count, &digest)
            }
        }
        return digest
    }
}
