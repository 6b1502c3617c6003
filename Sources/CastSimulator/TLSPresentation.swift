import CastCredentials
import CastDevice
import CastWire
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL

/// The TLS identity new connections are presented, made when the first sender connects and
/// renewed at the first accept after its renewal date: a strict sender refuses a
/// certificate that has expired or that is valid for more than 4 days, so a device that
/// runs for a week must change it. A connection keeps the certificate it was presented;
/// device auth signs over that one.
///
/// Made on demand, not at start: issuing it is two RSA signatures and its TLS context an
/// RSA key check, 2.5 ms and 30 KiB a device, which a thousand devices that no sender
/// ever connects to need not pay (README, "A household").
final class TLSPresentation: Sendable {
    /// A class, so that a device no sender has reached holds one pointer, not the
    /// credentials' few kilobytes inline.
    final class Current: Sendable {
        let credentials: DeviceCredentials
        let context: NIOSSLContext

        init(credentials: DeviceCredentials, context: NIOSSLContext) {
            self.credentials = credentials
            self.context = context
        }
    }

    private let pki: DeveloperPKI
    private let tlsKey: RSAPrivateKey
    private let deviceId: String
    private let lifetime: TimeInterval
    private let logger: Logger
    private let state = NIOLockedValueBox<Current?>(nil)

    init(pki: DeveloperPKI, tlsKey: RSAPrivateKey, deviceId: String, lifetime: TimeInterval, logger: Logger) {
        self.pki = pki
        self.tlsKey = tlsKey
        self.deviceId = deviceId
        self.lifetime = lifetime
        self.logger = logger
    }

    /// The identity to present now: the one made before while it is not due for renewal,
    /// else a new one. A renewal that fails keeps the old certificate (and says so).
    func current(at date: Date = Date()) throws -> Current {
        try state.withLockedValue { state in
            if let state, date < state.credentials.tlsRenewalDate { return state }
            do {
                let credentials = try state.map { try $0.credentials.renewed(at: date) }
                    ?? DeviceCredentials(pki: pki, tlsKey: tlsKey, deviceId: deviceId, date: date, tlsLifetime: lifetime)
                let made = Current(credentials: credentials, context: try NIOSSLContext(configuration: credentials.tlsConfiguration()))
                if state != nil {
                    logger.info("TLS certificate renewed", metadata: ["notAfter": "\(credentials.tls.certificate.notValidAfter)"])
                }
                state = made
                return made
            } catch let error where state != nil {
                logger.error("TLS certificate renewal failed, the old one stays: \(error)")
                return state!
            }
        }
    }
}

/// Device auth answers with the developer PKI's chain, which every device of the process
/// shares; only the self-signed chain and the fallback TLS certificate are the device's own.
extension TLSPresentation: DeviceAuthority {
    var tlsCertificateDER: Data { (try? current().credentials.tls.der) ?? Data() }

    func deviceCertificateDER(_ chain: DeviceAuthChain) -> Data {
        switch chain {
        case .developerRoot: pki.device.der
        case .selfSigned: (try? current().credentials.selfSignedDevice.der) ?? Data()
        }
    }

    func intermediateCertificatesDER(_ chain: DeviceAuthChain) -> [Data] {
        switch chain {
        case .developerRoot: [pki.intermediate.der]
        case .selfSigned: []
        }
    }

    func sign(_ data: Data, hash: HashAlgorithm, chain: DeviceAuthChain) throws -> Data {
        // Both chains certify the same device key.
        try pki.device.sign(data, digest: hash == .sha256 ? .sha256 : .sha1)
    }
}
