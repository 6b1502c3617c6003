internal import CNIOBoringSSL
import Foundation

/// castsim's keys and certificates are made and read with the BoringSSL that swift-nio-ssl
/// builds for TLS. swift-crypto and swift-certificates would bring a second copy of it and
/// some 3.5 CPU-minutes of build for the dozen calls below; that module is not a product of
/// swift-nio-ssl, but it is in every build that links NIOSSL, pinned to the exact version
/// (Package.swift), and nothing of it appears in CastCredentials' public interface.
package enum BoringSSL {
    /// `what`, and what BoringSSL's error queue says of it (emptied), as `kind` of error.
    static func error(_ what: String, as kind: (String) -> CredentialsError = CredentialsError.crypto) -> CredentialsError {
        var reasons: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return kind(reasons.isEmpty ? what : "\(what) (\(reasons.joined(separator: "; ")))")
    }

    /// The text `write` puts into a memory BIO (PEM, a printed name), or nil when it fails.
    package static func text(_ write: (OpaquePointer) -> Int32) -> String? {
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        defer { BIO_free(bio) }
        guard write(bio) > 0 else { return nil }
        var contents: UnsafePointer<UInt8>?
        var length = 0
        guard BIO_mem_contents(bio, &contents, &length) == 1, let contents else { return nil }
        return String(decoding: UnsafeBufferPointer(start: contents, count: length), as: UTF8.self)
    }

    /// `read` applied to a read-only memory BIO over `text`.
    package static func reading<T>(_ text: String, _ read: (OpaquePointer) -> T?) -> T? {
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, buffer.count) else { return nil }
            defer { BIO_free(bio) }
            return read(bio)
        }
    }

    /// The DER `encode` writes (an `i2d_*` function's two-call protocol), or nil when it fails.
    package static func der(_ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32) -> [UInt8]? {
        let length = encode(nil)
        guard length > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        let written = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return encode(&cursor)
        }
        return written == length ? bytes : nil
    }
}
