import CastWire
import Foundation
import Testing

/// The device-auth messages, read and written by hand. The bytes and decisions below are
/// SwiftProtobuf 1.39's, recorded when castsim's codec was checked against it on 20,000
/// mangled messages (they agreed on every one) before castsim stopped building it.
@Suite("DeviceAuthMessage codec")
struct DeviceAuthMessageTests {
    static func read(_ bytes: [UInt8]) -> DeviceAuthMessage? { try? DeviceAuthMessage(serializedBytes: Data(bytes)) }

    @Test("Written as the protobuf runtimes write it: fields in number order, a set field even at its default, and read back as itself")
    func writes() throws {
        var response = AuthResponse()
        response.signature = Data([1, 2, 3])
        response.clientAuthCertificate = Data([4, 5])
        response.intermediateCertificate = [Data([6]), Data()]
        response.signatureAlgorithm = .rsassaPkcs1V15
        response.senderNonce = Data([7, 8])
        response.hashAlgorithm = .sha1
        response.crl = Data()
        let messages: [(DeviceAuthMessage, [UInt8])] = [
            (DeviceAuthMessage(response: response),
             [18, 24, 10, 3, 1, 2, 3, 18, 2, 4, 5, 26, 1, 6, 26, 0, 32, 1, 42, 2, 7, 8, 48, 0, 58, 0]),
            (DeviceAuthMessage(error: AuthError(.internalError)), [26, 2, 8, 0]),
            (DeviceAuthMessage(error: AuthError(.noTLS)), [26, 2, 8, 1]),
            (DeviceAuthMessage(error: AuthError(.signatureAlgorithmUnavailable)), [26, 2, 8, 2]),
            (DeviceAuthMessage(challenge: AuthChallenge(signatureAlgorithm: .rsassaPss, senderNonce: Data([9]), hashAlgorithm: .sha256)),
             [10, 7, 8, 2, 18, 1, 9, 24, 1]),
            (DeviceAuthMessage(challenge: AuthChallenge()), [10, 0]),
        ]
        for (message, bytes) in messages {
            #expect(Array(message.serializedData) == bytes, "\(message)")
            #expect(Self.read(bytes) == message, "\(bytes)")
        }
    }

    @Test("Read as proto2 reads it: merged, unknown enum values and fields noted, required fields enforced, malformed bytes refused")
    func reads() throws {
        // A group in the challenge's field 1 and bytes in its field 3 are unknown fields of
        // those numbers (the device refuses them as unsupported algorithms).
        let odd = try #require(Self.read([26, 2, 8, 1, 10, 4, 11, 12, 26, 0]))
        #expect(odd.error == AuthError(.noTLS) && odd.challenge?.unknownFieldNumbers == [1, 3])
        #expect(odd.challenge?.signatureAlgorithm == nil && odd.challenge?.hashAlgorithm == nil)
        // Hash algorithm 9 is none of the enum's: unset, and noted.
        let hash = try #require(Self.read([10, 2, 24, 9]).flatMap(\.challenge))
        #expect(hash.hashAlgorithm == nil && hash.unknownFieldNumbers == [3])
        // A field the proto lacks (10, a varint) is noted and skipped.
        #expect(Self.read([10, 4, 80, 1, 24, 1])?.challenge == {
            var challenge = AuthChallenge(hashAlgorithm: .sha256)
            challenge.unknownFieldNumbers = [10]
            return challenge
        }())
        // The challenge twice: merged, the later value of a field kept.
        #expect(Self.read([10, 2, 8, 2, 10, 5, 18, 1, 9, 8, 1])?.challenge
            == AuthChallenge(signatureAlgorithm: .rsassaPkcs1V15, senderNonce: Data([9])))
        // Required fields: an error without its type (or with one the enum lacks), a
        // response without its certificate.
        #expect(Self.read([26, 0]) == nil)
        #expect(Self.read([26, 2, 8, 5]) == nil)
        #expect(Self.read([18, 2, 10, 0]) == nil)
        #expect(Self.read([18, 4, 10, 0, 18, 0])?.response?.clientAuthCertificate == Data())
        // Malformed: a length past the end, a truncated varint, an unended group, field 0.
        for bytes: [UInt8] in [[10, 5, 18], [10, 1, 8], [10, 2, 8, 0x80], [10, 1, 11], [0, 0]] {
            #expect(Self.read(bytes) == nil, "\(bytes)")
        }
        #expect(Self.read([])?.challenge == nil)
    }
}
