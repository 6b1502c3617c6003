import CastCredentials
import Crypto
import Foundation
import Testing
import X509
import _CryptoExtras

@Suite("The developer PKI: root → intermediate → device, as strict Cast verifiers demand")
struct DeveloperPKITests {
    /// One PKI for the whole test run: three RSA keys take a while.
    static func pki() async throws -> DeveloperPKI { try await SharedKeys.shared.developerPKI() }

    @Test("Each certificate's constraints, key usage, key size and signature algorithm")
    func shape() async throws {
        let pki = try await Self.pki()
        for certified in [pki.root, pki.intermediate, pki.device] {
            let certificate = certified.certificate
            #expect(certificate.signatureAlgorithm == .sha256WithRSAEncryption)
            let key = try #require(_RSA.Signing.PublicKey(certificate.publicKey))
            #expect(key.keySizeInBits == 2048)
        }
        let root = pki.root.certificate
        #expect(root.issuer == root.subject)
        #expect(try root.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: nil))
        #expect(try root.extensions.keyUsage?.keyCertSign == true)
        let intermediate = pki.intermediate.certificate
        #expect(intermediate.issuer == root.subject)
        #expect(try intermediate.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: 0))
        #expect(try intermediate.extensions.keyUsage?.keyCertSign == true)
        let device = pki.device.certificate
        #expect(device.issuer == intermediate.subject)
        #expect(try device.extensions.basicConstraints == .notCertificateAuthority)
        #expect(try device.extensions.keyUsage?.digitalSignature == true)
        #expect(try device.extensions.keyUsage?.keyCertSign == false)
        // Valid now, and for years: the set in certs/ is committed.
        #expect(device.notValidBefore < Date() && device.notValidAfter > Date().addingTimeInterval(10 * 365 * 24 * 3600))
    }

    @Test("swift-certificates' RFC 5280 verifier builds the path from the device certificate to the root")
    func verifies() async throws {
        let pki = try await Self.pki()
        var verifier = Verifier(rootCertificates: CertificateStore([pki.root.certificate])) { RFC5280Policy() }
        let result = await verifier.validate(leaf: pki.device.certificate, intermediates: CertificateStore([pki.intermediate.certificate]))
        guard case .validCertificate(let chain) = result else {
            Issue.record("not valid: \(result)")
            return
        }
        #expect(chain.count == 3)
        // Another PKI's root does not accept it.
        let other = try await DeveloperPKI.generate()
        var stranger = Verifier(rootCertificates: CertificateStore([other.root.certificate])) { RFC5280Policy() }
        let refused = await stranger.validate(leaf: pki.device.certificate, intermediates: CertificateStore([pki.intermediate.certificate]))
        guard case .couldNotValidate = refused else {
            Issue.record("a foreign root accepted the chain")
            return
        }
    }

    @Test("Written as six PEM files, keys 0600; read back the same; existing files are not overwritten unasked")
    func roundTrip() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("castsim-pki-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let pki = try await Self.pki()
        try pki.write(to: directory)
        for file in DeveloperPKI.File.allCases {
            let attributes = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(file.rawValue).path)
            let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue
            #expect(mode == (file.rawValue.hasSuffix(".key") ? 0o600 : 0o644), "\(file.rawValue)")
        }
        let text = try String(contentsOf: directory.appendingPathComponent("root.crt"), encoding: .utf8)
        #expect(text.hasPrefix("-----BEGIN CERTIFICATE-----"))
        let key = try String(contentsOf: directory.appendingPathComponent("device.key"), encoding: .utf8)
        #expect(key.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let loaded = try DeveloperPKI.load(from: directory)
        #expect(loaded.root.der == pki.root.der && loaded.intermediate.der == pki.intermediate.der && loaded.device.der == pki.device.der)
        #expect(loaded.device.key.derRepresentation == pki.device.key.derRepresentation)

        #expect(throws: CredentialsError.self) { try pki.write(to: directory) }
        try pki.write(to: directory, overwrite: true)
    }

    @Test("Bad directories are refused with what is wrong: a missing file, a key of another certificate, a broken chain")
    func refusals() async throws {
        let manager = FileManager.default
        let directory = manager.temporaryDirectory.appendingPathComponent("castsim-pki-\(UUID().uuidString)")
        defer { try? manager.removeItem(at: directory) }
        let pki = try await Self.pki()
        try pki.write(to: directory)

        try manager.removeItem(at: directory.appendingPathComponent("intermediate.key"))
        var error = #expect(throws: CredentialsError.self) { try DeveloperPKI.load(from: directory) }
        #expect(error?.description.contains("intermediate.key is missing") == true)
        #expect(error?.description.contains("root.crt, root.key, intermediate.crt") == true)

        try pki.write(to: directory, overwrite: true)
        try manager.removeItem(at: directory.appendingPathComponent("device.key"))
        try manager.copyItem(at: directory.appendingPathComponent("root.key"), to: directory.appendingPathComponent("device.key"))
        error = #expect(throws: CredentialsError.self) { try DeveloperPKI.load(from: directory) }
        #expect(error?.description.contains("device.crt") == true && error?.description.contains("does not belong") == true)

        // A device certificate and key of another PKI: the chain is broken.
        let other = try await DeveloperPKI.generate()
        try other.write(to: directory.appendingPathComponent("other"))
        for name in ["device.crt", "device.key"] {
            try manager.removeItem(at: directory.appendingPathComponent(name))
            try manager.copyItem(at: directory.appendingPathComponent("other/\(name)"), to: directory.appendingPathComponent(name))
        }
        error = #expect(throws: CredentialsError.self) { try DeveloperPKI.load(from: directory) }
        #expect(error?.description.contains("is not signed by") == true)

        try "not PEM".write(to: directory.appendingPathComponent("root.crt"), atomically: true, encoding: .utf8)
        error = #expect(throws: CredentialsError.self) { try DeveloperPKI.load(from: directory) }
        #expect(error?.description.contains("root.crt") == true && error?.description.contains("not a PEM certificate") == true)
    }
}
