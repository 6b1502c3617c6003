import Foundation

/// castsim's developer Cast PKI: root CA → intermediate CA → device certificate, all RSA.
/// A sender that trusts the root (Chrome with `--cast-developer-certificate-path`, Open
/// Screen's sender with `-d root.crt`) accepts castsim's device authentication.
public struct DeveloperPKI: Sendable {
    public let root: CertifiedKey
    public let intermediate: CertifiedKey
    public let device: CertifiedKey

    /// The files of a PKI directory, as `castsim certs generate` writes them.
    public enum File: String, CaseIterable, Sendable {
        case rootCertificate = "root.crt", rootKey = "root.key"
        case intermediateCertificate = "intermediate.crt", intermediateKey = "intermediate.key"
        case deviceCertificate = "device.crt", deviceKey = "device.key"

        var isKey: Bool { rawValue.hasSuffix(".key") }
    }

    public init(root: CertifiedKey, intermediate: CertifiedKey, device: CertifiedKey) throws(CredentialsError) {
        try Self.check(device, issuedBy: intermediate)
        try Self.check(intermediate, issuedBy: root)
        self.root = root
        self.intermediate = intermediate
        self.device = device
    }

    /// A new PKI, valid from an hour before `date`. Three RSA-2048 keys: made concurrently.
    public static func generate(date: Date = Date()) async throws -> DeveloperPKI {
        async let rootKey = Task.detached { try CertificateIssuer.newKey() }.value
        async let intermediateKey = Task.detached { try CertificateIssuer.newKey() }.value
        async let deviceKey = Task.detached { try CertificateIssuer.newKey() }.value
        let notBefore = date.addingTimeInterval(-TLSCertificate.notBeforeMargin)
        // Each PKI's CAs have names of their own, so that two of them never pass for each
        // other in a verifier that builds paths by name, and a person can tell them apart.
        let tag = String(UInt64.random(in: 0x1_0000_0000...0x1_FFFF_FFFF), radix: 16, uppercase: true).dropFirst()
        let root = try CertificateIssuer.root(commonName: "castsim Developer Root CA \(tag)", key: try await rootKey, notBefore: notBefore)
        let intermediate = try CertificateIssuer.intermediate(
            commonName: "castsim Developer Intermediate CA \(tag)", key: try await intermediateKey, issuer: root, notBefore: notBefore)
        let device = try CertificateIssuer.device(
            commonName: "castsim Device", key: try await deviceKey, issuer: intermediate, notBefore: notBefore)
        return try DeveloperPKI(root: root, intermediate: intermediate, device: device)
    }

    /// Reads a directory written by ``write(to:overwrite:)``.
    public static func load(from directory: URL) throws(CredentialsError) -> DeveloperPKI {
        func pair(_ certificate: File, _ key: File) throws(CredentialsError) -> CertifiedKey {
            let certificatePEM = try read(directory, certificate)
            let keyPEM = try read(directory, key)
            do {
                return try CertifiedKey(certificatePEM: certificatePEM, keyPEM: keyPEM)
            } catch {
                throw error.in("\(directory.path)/\(certificate.rawValue)")
            }
        }
        do {
            return try DeveloperPKI(root: try pair(.rootCertificate, .rootKey),
                                    intermediate: try pair(.intermediateCertificate, .intermediateKey),
                                    device: try pair(.deviceCertificate, .deviceKey))
        } catch {
            throw error.in(directory.path)
        }
    }

    /// Writes the six PEM files; the keys readable by their owner only (0600).
    public func write(to directory: URL, overwrite: Bool = false) throws(CredentialsError) {
        let manager = FileManager.default
        do {
            try manager.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .io("cannot create \(directory.path): \(error.localizedDescription)")
        }
        if !overwrite {
            let present = File.allCases.filter { manager.fileExists(atPath: directory.appendingPathComponent($0.rawValue).path) }
            if !present.isEmpty {
                throw .io("\(directory.path) already holds \(present.map(\.rawValue).joined(separator: ", ")); pass --force to replace them")
            }
        }
        for file in File.allCases {
            let text = pem(file)
            let url = directory.appendingPathComponent(file.rawValue)
            // Created with its final mode, so a key is never readable by others, even briefly.
            _ = try? manager.removeItem(at: url)
            let permissions = file.isKey ? 0o600 : 0o644
            guard manager.createFile(atPath: url.path, contents: Data(text.utf8), attributes: [.posixPermissions: permissions]) else {
                throw .io("cannot write \(url.path)")
            }
        }
    }

    func pem(_ file: File) -> String {
        switch file {
        case .rootCertificate: root.certificatePEM
        case .rootKey: root.keyPEM
        case .intermediateCertificate: intermediate.certificatePEM
        case .intermediateKey: intermediate.keyPEM
        case .deviceCertificate: device.certificatePEM
        case .deviceKey: device.keyPEM
        }
    }

    private static func read(_ directory: URL, _ file: File) throws(CredentialsError) -> String {
        let url = directory.appendingPathComponent(file.rawValue)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw .missingFile("\(url.path) is missing or unreadable; expected the files castsim certs generate writes "
                + "(\(File.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw .unreadable("\(url.path) is not PEM text") }
        return text
    }

    /// `child` names `parent` as its issuer and carries its valid signature, and `parent` is a CA.
    static func check(_ child: CertifiedKey, issuedBy parent: CertifiedKey) throws(CredentialsError) {
        let name = "\(child.certificate.subject)"
        guard child.certificate.isIssued(by: parent.certificate) else {
            throw .invalidChain("\(name) is not signed by \(parent.certificate.subject)")
        }
        guard case .certificateAuthority? = parent.certificate.basicConstraints else {
            throw .invalidChain("\(parent.certificate.subject) signs \(name) but is not a CA")
        }
    }
}

extension CredentialsError {
    /// The same problem, said of `place`.
    func `in`(_ place: String) -> CredentialsError {
        switch self {
        case .unreadable(let text) where !text.contains(place): .unreadable("\(place): \(text)")
        case .mismatchedKey(let text) where !text.contains(place): .mismatchedKey("\(place): \(text)")
        case .invalidChain(let text) where !text.contains(place): .invalidChain("\(place): \(text)")
        default: self
        }
    }
}
