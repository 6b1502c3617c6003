import Foundation

/// The certificate the Cast port presents in TLS. Chrome and Open Screen refuse one that
/// is valid for more than 4 days from now (docs/protocol/castv2.md §1.1, §4.4), so it is
/// short-lived, self-signed as a real device's is, and renewed while the device runs.
public enum TLSCertificate {
    /// Open Screen's generator uses 3 days; 5 fails a strict sender.
    public static let lifetime: TimeInterval = 3 * 24 * 3600
    /// notBefore lies this far in the past, so a sender whose clock lags a little still
    /// sees a valid certificate.
    public static let notBeforeMargin: TimeInterval = 3600
    /// A running device presents a new certificate this long before the old one expires.
    public static let renewalMargin: TimeInterval = 24 * 3600

    /// A certificate for `key`, valid from a little before `date` for `lifetime`.
    public static func issue(key: RSAPrivateKey, commonName: String, date: Date = Date(),
                             lifetime: TimeInterval = lifetime) throws -> CertifiedKey {
        try CertificateIssuer.selfSigned(
            commonName: commonName, key: key, notBefore: date.addingTimeInterval(-notBeforeMargin),
            notAfter: date.addingTimeInterval(lifetime))
    }
}
