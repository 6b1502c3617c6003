import CastCredentials
import CastDevice
import Foundation
import NIOSSL

extension DeviceCredentials {
    /// Credentials for `identity`: the given developer PKI (nil: one made in memory for
    /// this process) and a new TLS certificate over the process's shared TLS key.
    package static func make(for identity: DeviceIdentity, pki: DeveloperPKI? = nil, date: Date = Date(),
                             tlsLifetime: TimeInterval = TLSCertificate.lifetime) async throws -> DeviceCredentials {
        let (chosen, tlsKey) = try await SharedKeys.shared.keys(pki: pki)
        return try DeviceCredentials(pki: chosen, tlsKey: tlsKey, deviceId: identity.uuid, date: date, tlsLifetime: tlsLifetime)
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
