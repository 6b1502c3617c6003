internal import CNIOBoringSSL
import Foundation

/// A second opinion on castsim's PKI: BoringSSL's own path builder and verifier
/// (`X509_verify_cert`), which reads the certificates from their DER as a sender does and
/// knows nothing of how castsim made them.
enum ChainVerifier {
    /// The length of the path from `leaf` to one of `roots` through `intermediates`, valid at
    /// `date`; or why there is none.
    static func verify(leaf: Data, intermediates: [Data], roots: [Data], at date: Date = Date()) -> Result<Int, VerificationFailure> {
        guard let store = X509_STORE_new(), let untrusted = OPENSSL_sk_new_null(), let context = X509_STORE_CTX_new() else {
            return .failure(VerificationFailure(reason: "out of memory"))
        }
        var certificates: [OpaquePointer] = []
        defer {
            X509_STORE_CTX_free(context)
            OPENSSL_sk_free(untrusted)
            X509_STORE_free(store)
            certificates.forEach { X509_free($0) }
        }
        func read(_ der: Data) -> OpaquePointer? {
            let x509 = der.withUnsafeBytes { bytes -> OpaquePointer? in
                var cursor = bytes.bindMemory(to: UInt8.self).baseAddress
                return d2i_X509(nil, &cursor, bytes.count)
            }
            if let x509 { certificates.append(x509) }
            return x509
        }
        for root in roots {
            guard let x509 = read(root), X509_STORE_add_cert(store, x509) == 1 else {
                return .failure(VerificationFailure(reason: "a root is not a certificate"))
            }
        }
        for intermediate in intermediates {
            guard let x509 = read(intermediate), OPENSSL_sk_push(untrusted, UnsafeMutableRawPointer(x509)) != 0 else {
                return .failure(VerificationFailure(reason: "an intermediate is not a certificate"))
            }
        }
        guard let leaf = read(leaf), X509_STORE_CTX_init(context, store, leaf, untrusted) == 1 else {
            return .failure(VerificationFailure(reason: "the leaf is not a certificate"))
        }
        X509_STORE_CTX_set_time_posix(context, 0, Int64(date.timeIntervalSince1970))
        guard X509_verify_cert(context) == 1 else {
            let reason = String(cString: X509_verify_cert_error_string(Int(X509_STORE_CTX_get_error(context))))
            return .failure(VerificationFailure(reason: reason))
        }
        return .success(OPENSSL_sk_num(X509_STORE_CTX_get0_chain(context)))
    }

    struct VerificationFailure: Error, Equatable {
        let reason: String
    }
}
