import Foundation

/// What one simulated device presents: its TLS certificate, and the device certificates
/// that answer device-auth challenges (the developer PKI's, and the same device key
/// certified by itself, for senders' "untrusted device" paths).
public struct DeviceCredentials: Sendable {
    public let pki: DeveloperPKI
    public let tls: CertifiedKey
    /// The PKI's device key in a self-signed certificate: correctly signed replies that
    /// chain to no root.
    public let selfSignedDevice: CertifiedKey
    let tlsCommonName: String
    let tlsLifetime: TimeInterval

    /// Credentials for a device named `deviceId` (its UUID), with a TLS certificate valid
    /// from about `date` for `tlsLifetime` over `tlsKey`.
    public init(pki: DeveloperPKI, tlsKey: RSAPrivateKey, deviceId: String, date: Date = Date(),
                tlsLifetime: TimeInterval = TLSCertificate.lifetime) throws {
        self.pki = pki
        tlsCommonName = "castsim TLS \(deviceId)"
        self.tlsLifetime = tlsLifetime
        tls = try TLSCertificate.issue(key: tlsKey, commonName: tlsCommonName, date: date, lifetime: tlsLifetime)
        let notBefore = date.addingTimeInterval(-TLSCertificate.notBeforeMargin)
        selfSignedDevice = try CertificateIssuer.selfSigned(
            commonName: "castsim Device \(deviceId) (self-signed)", key: pki.device.key, notBefore: notBefore,
            notAfter: notBefore.addingTimeInterval(CertificateIssuer.chainLifetime))
    }

    private init(_ old: DeviceCredentials, tls: CertifiedKey) {
        pki = old.pki
        self.tls = tls
        selfSignedDevice = old.selfSignedDevice
        tlsCommonName = old.tlsCommonName
        tlsLifetime = old.tlsLifetime
    }

    /// The same credentials with a fresh TLS certificate (same key) valid from about `date`.
    public func renewed(at date: Date = Date()) throws -> DeviceCredentials {
        DeviceCredentials(self, tls: try TLSCertificate.issue(key: tls.key, commonName: tlsCommonName, date: date,
                                                             lifetime: tlsLifetime))
    }

    /// When the TLS certificate should be replaced: `renewalMargin` before it expires, or
    /// half-way through a lifetime shorter than twice that.
    public var tlsRenewalDate: Date {
        let notAfter = tls.certificate.notValidAfter
        let margin = min(TLSCertificate.renewalMargin, tlsLifetime / 2)
        return notAfter.addingTimeInterval(-margin)
    }
}
