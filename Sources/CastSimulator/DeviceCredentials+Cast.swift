import CastCredentials
import CastDevice
import CastWire
import Foundation
import NIOSSL

extension DeviceCredentials {
    /// Credentials for `identity`: the given developer PKI (nil: one made in memory for
    /// this process) and a new TLS certificate over the process's shared TLS key.
    package static func make(for identity: DeviceIdentity, pki: DeveloperPKI? = nil, date: Date = Date(),
                             tlsLifetime: TimeInterval = TLSCertificate.lifetime) async throws -> DeviceCredentials {
        async let tlsKey = SharedKeys.shared.tls()
        let chosen: DeveloperPKI
        if let pki { chosen = pki } else { chosen = try await SharedKeys.shared.developerPKI() }
        return try DeviceCredentials(pki: chosen, tlsKey: try await tlsKey, deviceId: identity.uuid, date: date,
                                     tlsLifetime: tlsLifetime)
    }

    /// The TLS identity for NIOSSL (also the load generator's echo server's, so that both
    /// pay the same for a handshake).
    package func tlsConfiguration() throws -> TLSConfiguration {
        let certificate = try NIOSSLCertificate(bytes: Array(tls.der), format: .der)
        let key = try NIOSSLPrivateKey(bytes: Array(tls.key.derRepresentation), format: .der)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(certificate)], privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        return configuration
    }
}

extension DeviceCredentials: DeviceAuthority {
    public var tlsCertificateDER: Data { tls.der }

    public func deviceCertificateDER(_ chain: DeviceAuthChain) -> Data {
        switch chain {
        case .developerRoot: pki.device.der
        case .selfSigned: selfSignedDevice.der
        }
    }

    public func intermediateCertificatesDER(_ chain: DeviceAuthChain) -> [Data] {
        switch chain {
        case .developerRoot: [pki.intermediate.der]
        case .selfSigned: []
        }
    }

    public func sign(_ data: Data, hash: Cast_Channel_HashAlgorithm, chain: DeviceAuthChain) throws -> Data {
        // Both chains certify the same device key.
        try pki.device.sign(data, digest: hash == .sha256 ? .sha256 : .sha1)
    }
}
