import CastCredentials
internal import CNIOBoringSSL

/// Keys in forms castsim does not write itself, made with BoringSSL directly.
enum TestKeys {
    /// The key of a PKCS#8 PEM as PKCS#1 (`BEGIN RSA PRIVATE KEY`), as older tools write it.
    static func pkcs1PEM(of pkcs8: String) -> String? {
        withKey(pkcs8) { key in
            BoringSSL.text { PEM_write_bio_RSAPrivateKey($0, EVP_PKEY_get0_RSA(key), nil, nil, 0, nil, nil) }
        }
    }

    /// A new P-256 key, PKCS#8 PEM.
    static func ecPEM() -> String? {
        guard let ec = EC_KEY_new_by_curve_name(NID_X9_62_prime256v1) else { return nil }
        defer { EC_KEY_free(ec) }
        guard EC_KEY_generate_key(ec) == 1, let key = EVP_PKEY_new() else { return nil }
        defer { EVP_PKEY_free(key) }
        guard EVP_PKEY_set1_EC_KEY(key, ec) == 1 else { return nil }
        return BoringSSL.text { PEM_write_bio_PKCS8PrivateKey($0, key, nil, nil, 0, nil, nil) }
    }

    private static func withKey(_ pem: String, _ body: (OpaquePointer) -> String?) -> String? {
        BoringSSL.reading(pem) { bio in
            guard let key = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else { return nil }
            defer { EVP_PKEY_free(key) }
            return body(key)
        }
    }
}
