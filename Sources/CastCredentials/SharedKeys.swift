import Foundation

/// Keys made once per process and shared by every device it simulates. An RSA-2048 key
/// takes tens of milliseconds to make and a certificate one signature, so a device (or a
/// fleet of fifty) starts by certifying shared keys, not by making its own; nothing a
/// sender checks depends on two devices' keys differing.
public actor SharedKeys {
    public static let shared = SharedKeys()

    private var tlsKey: RSAPrivateKey?
    private var ephemeralPKI: DeveloperPKI?

    /// The TLS key of every device in this process.
    public func tls() async throws -> RSAPrivateKey {
        if let tlsKey { return tlsKey }
        let key = try await Task.detached { try CertificateIssuer.newKey() }.value
        // Another caller may have made one meanwhile: keep the first.
        if let tlsKey { return tlsKey }
        tlsKey = key
        return key
    }

    /// `pki`, or the one made in memory for this process when nil, and the TLS key.
    public func keys(pki: DeveloperPKI?) async throws -> (DeveloperPKI, RSAPrivateKey) {
        async let tlsKey = tls()
        let chosen: DeveloperPKI
        if let pki { chosen = pki } else { chosen = try await developerPKI() }
        return (chosen, try await tlsKey)
    }

    /// A developer PKI made in memory for this process, for devices given no directory.
    public func developerPKI() async throws -> DeveloperPKI {
        if let ephemeralPKI { return ephemeralPKI }
        let pki = try await DeveloperPKI.generate()
        if let ephemeralPKI { return ephemeralPKI }
        ephemeralPKI = pki
        return pki
    }
}
