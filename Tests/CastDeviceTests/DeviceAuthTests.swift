import CastDevice
import CastWire
import CastSimulatorTesting
import Foundation
import Testing

/// Records what it was asked to sign; "signs" by tagging the data.
struct FakeAuthority: DeviceAuthority {
    var tlsCertificateDER = Data([0x71, 0x50])
    var fails = false

    func deviceCertificateDER(_ chain: DeviceAuthChain) -> Data { chain == .developerRoot ? Data([0xDE, 0xC0]) : Data([0x55]) }
    func intermediateCertificatesDER(_ chain: DeviceAuthChain) -> [Data] { chain == .developerRoot ? [Data([0x1A])] : [] }

    func sign(_ data: Data, hash: HashAlgorithm, chain: DeviceAuthChain) throws -> Data {
        if fails { throw CocoaError(.featureUnsupported) }
        return Data([UInt8(hash.rawValue), chain == .developerRoot ? 0xD0 : 0x55]) + data
    }
}

@Suite("urn:x-cast:com.google.cast.tp.deviceauth")
struct DeviceAuthTests {
    private func challenge(_ build: (inout AuthChallenge) -> Void) -> CastEnvelope {
        var challenge = AuthChallenge()
        build(&challenge)
        return CastEnvelope(sourceId: "sender-vlc", destinationId: "receiver-0", namespace: CastNamespace.deviceAuth,
                            payload: .binary(DeviceAuthMessage(challenge: challenge).serializedData))
    }

    private func response(_ sent: [SentMessage]) throws -> DeviceAuthMessage {
        try #require(sent.count == 1)
        #expect(sent[0].envelope.sourceId == "receiver-0" && sent[0].envelope.destinationId == "sender-vlc")
        #expect(sent[0].envelope.namespace == CastNamespace.deviceAuth)
        guard case .binary(let data) = sent[0].envelope.payload else {
            Issue.record("deviceauth reply must be BINARY")
            return DeviceAuthMessage()
        }
        return try DeviceAuthMessage(serializedBytes: data)
    }

    @Test("A challenge with a nonce: signature over nonce || TLS certificate DER, hash echoed, nonce echoed")
    func signsNonceAndTLSCertificate() throws {
        var harness = CastTestDevice(authority: FakeAuthority())
        let connection = harness.open(1)
        let nonce = Data((0..<16).map { UInt8($0) })
        let reply = try response(harness.sendRaw(connection, challenge {
            $0.senderNonce = nonce
            $0.hashAlgorithm = .sha256
        }))
        let response = try #require(reply.response)
        #expect(reply.error == nil)
        #expect(response.signature == Data([1, 0xD0]) + nonce + Data([0x71, 0x50]))
        #expect(response.clientAuthCertificate == Data([0xDE, 0xC0]))
        #expect(response.intermediateCertificate == [Data([0x1A])])
        #expect(response.hashAlgorithm == .sha256)
        #expect(response.signatureAlgorithm == .rsassaPkcs1V15)
        #expect(response.senderNonce == nonce)
        #expect(response.crl == Data())
    }

    @Test("VLC's empty challenge gets a complete response signed with SHA-1 over the TLS certificate alone")
    func emptyChallenge() throws {
        var harness = CastTestDevice(authority: FakeAuthority())
        let connection = harness.open(1)
        let reply = try response(harness.sendRaw(connection, challenge { _ in }))
        let response = try #require(reply.response)
        #expect(response.signature == Data([0, 0xD0, 0x71, 0x50]))
        #expect(response.senderNonce == nil)
        // On the wire as protobuf runtimes write it: every field set in number order, the
        // defaults too (SHA-1 is 0), the empty CRL (SwiftProtobuf 1.39 wrote these bytes).
        let sent = DeviceAuthMessage(response: response).serializedData
        #expect(Array(sent) == [0x12, 0x13, 0x0A, 0x04, 0x00, 0xD0, 0x71, 0x50, 0x12, 0x02, 0xDE, 0xC0, 0x1A, 0x01, 0x1A,
                                0x20, 0x01, 0x30, 0x00, 0x3A, 0x00])
    }

    @Test("Each connection is answered over the TLS certificate it was presented (a renewed one differs)")
    func perConnectionCertificate() throws {
        var harness = CastTestDevice(authority: FakeAuthority())
        let old = harness.open(1, tlsCertificateDER: Data([0x01, 0x02]))
        let new = harness.open(2, tlsCertificateDER: Data([0x03]))
        let fallback = harness.open(3)
        #expect(try response(harness.sendRaw(old, challenge { _ in })).response?.signature == Data([0, 0xD0, 0x01, 0x02]))
        #expect(try response(harness.sendRaw(new, challenge { _ in })).response?.signature == Data([0, 0xD0, 0x03]))
        #expect(try response(harness.sendRaw(fallback, challenge { _ in })).response?.signature == Data([0, 0xD0, 0x71, 0x50]))
    }

    @Test("Device auth modes: self-signed answers from the lone certificate, error with INTERNAL_ERROR, ignore not at all; a step switches")
    func modes() throws {
        var harness = CastTestDevice(configure: { $0.deviceAuth = .selfSigned }, authority: FakeAuthority())
        let connection = harness.open(1)
        let selfSigned = try #require(try response(harness.sendRaw(connection, challenge { $0.hashAlgorithm = .sha256 })).response)
        #expect(selfSigned.clientAuthCertificate == Data([0x55]) && selfSigned.intermediateCertificate.isEmpty)
        #expect(selfSigned.signature == Data([1, 0x55, 0x71, 0x50]) && selfSigned.hashAlgorithm == .sha256)

        harness.apply(.setDeviceAuth(.error))
        let error = try response(harness.sendRaw(connection, challenge { _ in }))
        #expect(error.error == AuthError(.internalError) && error.response == nil)

        harness.apply(.setDeviceAuth(.ignore))
        #expect(harness.sendRaw(connection, challenge { _ in }).isEmpty)
        #expect(harness.logs.contains { "\($0)".contains("left unanswered") })

        harness.apply(.setDeviceAuth(.devRoot))
        #expect(try response(harness.sendRaw(connection, challenge { _ in })).response?.clientAuthCertificate == Data([0xDE, 0xC0]))
    }

    @Test("RSASSA-PSS → SIGNATURE_ALGORITHM_UNAVAILABLE; no credentials or failed signing → INTERNAL_ERROR")
    func errors() throws {
        var harness = CastTestDevice(authority: FakeAuthority())
        let connection = harness.open(1)
        let pss = try response(harness.sendRaw(connection, challenge { $0.signatureAlgorithm = .rsassaPss }))
        #expect(pss.error == AuthError(.signatureAlgorithmUnavailable) && pss.response == nil)

        var bare = CastTestDevice()
        let other = bare.open(1)
        #expect(try response(bare.sendRaw(other, challenge { _ in })).error == AuthError(.internalError))

        var failing = CastTestDevice(authority: FakeAuthority(fails: true))
        let third = failing.open(1)
        #expect(try response(failing.sendRaw(third, challenge { _ in })).error == AuthError(.internalError))
    }

    @Test("A field the proto does not declare is skipped; an undeclared algorithm is unsupported")
    func undeclaredFields() throws {
        var harness = CastTestDevice(authority: FakeAuthority())
        let connection = harness.open(1)
        // AuthChallenge bytes by hand: field 3 (hash) SHA256, then field 10 (a varint), field 11 (bytes).
        func raw(_ challenge: [UInt8]) -> CastEnvelope {
            CastEnvelope(sourceId: "sender-vlc", destinationId: "receiver-0", namespace: CastNamespace.deviceAuth,
                         payload: .binary(Data([0x0A, UInt8(challenge.count)] + challenge)))
        }
        let newer = try response(harness.sendRaw(connection, raw([0x18, 0x01, 0x50, 0x01, 0x5A, 0x02, 0xAB, 0xCD])))
        #expect(newer.error == nil && newer.response?.hashAlgorithm == .sha256)
        // Hash 7 and signature algorithm 9 are no algorithm the proto has.
        for undeclared: [UInt8] in [[0x18, 0x07], [0x08, 0x09], [0x50, 0x01, 0x18, 0x07]] {
            let reply = try response(harness.sendRaw(connection, raw(undeclared)))
            #expect(reply.error == AuthError(.signatureAlgorithmUnavailable) && reply.response == nil, "\(undeclared)")
        }
    }

    @Test("A response too big for a message (a nonce of 64 KiB echoed) is refused with INTERNAL_ERROR, not dropped")
    func responseTooBig() throws {
        var harness = CastTestDevice(authority: FakeAuthority())
        let connection = harness.open(1)
        let fits = try response(harness.sendRaw(connection, challenge { $0.senderNonce = Data(count: 30_000) }))
        #expect(fits.response != nil)
        let tooBig = try response(harness.sendRaw(connection, challenge { $0.senderNonce = Data(count: 65_000) }))
        #expect(tooBig.error == AuthError(.internalError) && tooBig.response == nil)
    }

    @Test("Non-challenges are ignored: STRING payloads, garbage, a message that carries a response")
    func ignored() {
        var harness = CastTestDevice(authority: FakeAuthority())
        let connection = harness.open(1)
        #expect(harness.sendRaw(connection, CastEnvelope(sourceId: "s", destinationId: "receiver-0",
                                                         namespace: CastNamespace.deviceAuth, payload: .string("{}"))).isEmpty)
        #expect(harness.sendRaw(connection, CastEnvelope(sourceId: "s", destinationId: "receiver-0",
                                                         namespace: CastNamespace.deviceAuth, payload: .binary(Data([0xFF, 0xFF])))).isEmpty)
        let both = DeviceAuthMessage(challenge: AuthChallenge(), error: AuthError(.internalError))
        #expect(harness.sendRaw(connection, CastEnvelope(sourceId: "s", destinationId: "receiver-0", namespace: CastNamespace.deviceAuth,
                                                         payload: .binary(both.serializedData))).isEmpty)
    }
}

@Suite("The advertisement: withdrawn and restored by an operator input, as one typed event")
struct AdvertisementTests {
    @Test("withdraw raises advertisementChanged once; restore brings it back; a restore elsewhere is news even when advertised")
    func changes() {
        var harness = CastTestDevice()
        #expect(harness.snapshot.isAdvertised)
        harness.apply(.advertise(.withdraw))
        harness.apply(.advertise(.withdraw))
        #expect(!harness.snapshot.isAdvertised)
        harness.apply(.advertise(.restore(host: nil, port: nil)))
        harness.apply(.advertise(.restore(host: nil, port: nil)))
        harness.apply(.advertise(.restore(host: "127.0.0.7", port: 8010)))
        let changes = harness.events.compactMap { event -> AdvertisementChange? in
            if case .advertisementChanged(let change) = event.kind { return change }
            return nil
        }
        #expect(changes == [.withdraw, .restore(host: nil, port: nil), .restore(host: "127.0.0.7", port: 8010)])
        #expect(harness.snapshot.isAdvertised)
    }
}
