import CastCredentials
import Foundation
import Testing

@Suite("The developer PKI: root → intermediate → device, as strict Cast verifiers demand")
struct DeveloperPKITests {
    /// One PKI for the whole test run: three RSA keys take a while.
    static func pki() async throws -> DeveloperPKI { try await SharedKeys.shared.developerPKI() }

    @Test("Each certificate's constraints, key usage, key size and signature algorithm")
    func shape() async throws {
        let pki = try await Self.pki()
        for certified in [pki.root, pki.intermediate, pki.device] {
            let certificate = certified.certificate
            #expect(certificate.signatureAlgorithm == "sha256WithRSAEncryption")
            #expect(certificate.rsaKeyBits == 2048)
            #expect(certified.key.bits == 2048 && certified.key.publicKeyDER == certificate.publicKeyDER)
        }
        let root = pki.root.certificate
        #expect(root.issuer == root.subject)
        #expect(root.basicConstraints == .certificateAuthority(maxPathLength: nil))
        #expect(root.keyUsage == [.keyCertSign, .cRLSign])
        let intermediate = pki.intermediate.certificate
        #expect(intermediate.issuer == root.subject && intermediate.issuer != intermediate.subject)
        #expect(intermediate.basicConstraints == .certificateAuthority(maxPathLength: 0))
        #expect(intermediate.keyUsage == [.keyCertSign, .cRLSign])
        let device = pki.device.certificate
        #expect(device.issuer == intermediate.subject)
        #expect(device.subject.description == "CN=castsim Device,O=castsim")
        #expect(device.basicConstraints == .notCertificateAuthority)
        #expect(device.keyUsage == [.digitalSignature])
        #expect(device.isIssued(by: intermediate) && intermediate.isIssued(by: root) && !device.isIssued(by: root))
        // Valid now, and for years: the set in certs/ is committed.
        #expect(device.notValidBefore < Date() && device.notValidAfter > Date().addingTimeInterval(10 * 365 * 24 * 3600))
    }

    @Test("BoringSSL's verifier, reading the DER, builds the path from the device certificate to the root; not to another root, not in 25 years")
    func verifies() async throws {
        let pki = try await Self.pki()
        let path = ChainVerifier.verify(leaf: pki.device.der, intermediates: [pki.intermediate.der], roots: [pki.root.der])
        #expect(path == .success(3))
        let other = try await DeveloperPKI.generate()
        let stranger = ChainVerifier.verify(leaf: pki.device.der, intermediates: [pki.intermediate.der], roots: [other.root.der])
        #expect(stranger == .failure(.init(reason: "unable to get local issuer certificate")))
        let late = ChainVerifier.verify(leaf: pki.device.der, intermediates: [pki.intermediate.der], roots: [pki.root.der],
                                        at: Date().addingTimeInterval(25 * 365 * 24 * 3600))
        #expect(late == .failure(.init(reason: "certificate has expired")))
        // The self-signed device certificate chains to nothing.
        let tls = try DeviceCredentials(pki: pki, tlsKey: try await SharedKeys.shared.tls(), deviceId: "0123")
        #expect(ChainVerifier.verify(leaf: tls.selfSignedDevice.der, intermediates: [pki.intermediate.der], roots: [pki.root.der])
            == .failure(.init(reason: "unable to get local issuer certificate")))
    }

    @Test("Keys: PKCS#1 and PKCS#8 PEM read as the same key; an EC key, and text that is no key, are refused with why")
    func keys() async throws {
        let pki = try await Self.pki()
        let pkcs1 = try #require(TestKeys.pkcs1PEM(of: pki.device.keyPEM))
        #expect(pkcs1.hasPrefix("-----BEGIN RSA PRIVATE KEY-----"))
        #expect(try RSAPrivateKey(pemRepresentation: pkcs1).derRepresentation == pki.device.key.derRepresentation)
        #expect(try CertifiedKey(certificatePEM: pki.device.certificatePEM, keyPEM: pkcs1).der == pki.device.der)
        let ec = try #require(TestKeys.ecPEM())
        var error = #expect(throws: CredentialsError.self) { try RSAPrivateKey(pemRepresentation: ec) }
        #expect(error?.description.contains("not an RSA key") == true)
        error = #expect(throws: CredentialsError.self) { try RSAPrivateKey(pemRepresentation: "-----BEGIN PRIVATE KEY-----\nAAAA\n") }
        #expect(error?.description.hasPrefix("not a PEM RSA private key") == true)
        error = #expect(throws: CredentialsError.self) { try Certificate(derEncoded: Array(pki.device.der.dropLast())) }
        #expect(error?.description.hasPrefix("not a DER certificate") == true)
        error = #expect(throws: CredentialsError.self) { try Certificate(derEncoded: Array(pki.device.der) + [0]) }
        #expect(error?.description == "not a DER certificate: 1 byte after it")
        #expect(try Certificate(derEncoded: Array(pki.device.der)).der == pki.device.der)
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
