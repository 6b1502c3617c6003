import CastWire
import Foundation

// urn:x-cast:com.google.cast.tp.deviceauth (docs/protocol/castv2.md §4): answer a challenge
// with an AuthResponse whose signature covers `sender_nonce || TLS certificate DER`.

/// How the device answers a challenge: as a device of castsim's developer PKI, or in one
/// of the ways a sender's error paths need testing.
public enum DeviceAuthMode: String, Sendable, Equatable, Codable, CaseIterable {
    /// The device certificate chains to castsim's developer root: a sender that trusts the
    /// root accepts the device.
    case devRoot = "dev-root"
    /// A well-formed, correctly signed reply from a device certificate that chains to no
    /// root: a strict sender refuses it (not signed by a trusted CA).
    case selfSigned = "self-signed"
    /// `AuthError` INTERNAL_ERROR instead of a response (VLC stays "Authenticating").
    case error
    /// No reply at all: the sender's own timeout decides.
    case ignore
}

/// Which device certificate answers: the developer PKI's, or one that chains to nothing.
public enum DeviceAuthChain: Sendable, Equatable {
    case developerRoot, selfSigned
}

/// The device's credentials. The signing itself (RSA) lives in the runtime; the core
/// decides what is signed and how the reply is shaped.
public protocol DeviceAuthority: Sendable {
    /// The certificate the TLS server presents; its DER is part of the signed data. A
    /// connection opened with its own (``SimulatedDevice/connectionOpened(_:now:tlsCertificateDER:)``)
    /// is answered over that one instead.
    var tlsCertificateDER: Data { get }
    /// The device certificate (DER), sent as `client_auth_certificate`.
    func deviceCertificateDER(_ chain: DeviceAuthChain) -> Data
    /// The chain up to but excluding the root (DER), sent as `intermediate_certificate`.
    func intermediateCertificatesDER(_ chain: DeviceAuthChain) -> [Data]
    /// RSASSA-PKCS1-v1_5 over `data` with the chain's device key and the given digest.
    func sign(_ data: Data, hash: HashAlgorithm, chain: DeviceAuthChain) throws -> Data
}

extension SimulatedDevice {
    mutating func handleDeviceAuth(_ envelope: CastEnvelope, on connection: ConnectionID) {
        guard case .binary(let bytes) = envelope.payload else {
            log(.info, connection, "deviceauth: STRING payload ignored (challenges are BINARY)")
            return
        }
        guard let message = try? DeviceAuthMessage(serializedBytes: bytes) else {
            log(.info, connection, "deviceauth: payload is not a DeviceAuthMessage, ignored")
            return
        }
        guard let challenge = message.challenge, message.response == nil, message.error == nil else {
            log(.info, connection, "deviceauth: message is not a lone challenge, ignored")
            return
        }
        var reply = DeviceAuthMessage()
        let chain: DeviceAuthChain
        switch deviceAuthMode {
        case .ignore:
            log(.info, connection, "deviceauth: challenge left unanswered (device auth mode ignore)")
            return
        case .error:
            reply.error = AuthError(.internalError)
            log(.info, connection, "deviceauth: answered with INTERNAL_ERROR (device auth mode error)")
            send(reply, answering: envelope, on: connection)
            return
        case .devRoot: chain = .developerRoot
        case .selfSigned: chain = .selfSigned
        }
        // An undeclared algorithm is kept as an unknown field (proto2), by its number:
        // refused as unsupported. Any other field the proto does not declare is skipped, as
        // a newer sender's addition must be.
        let algorithmSupported = challenge.unknownFieldNumbers.isDisjoint(with: [Self.signatureAlgorithmField, Self.hashAlgorithmField])
            && [.unspecified, .rsassaPkcs1V15].contains(challenge.signatureAlgorithm ?? .rsassaPkcs1V15)
        let hash = challenge.hashAlgorithm ?? .sha1
        if !algorithmSupported {
            reply.error = AuthError(.signatureAlgorithmUnavailable)
            log(.info, connection, "deviceauth: unsupported signature or hash algorithm")
        } else if let authority {
            // The certificate this very connection's TLS session presented.
            let signedData = (challenge.senderNonce ?? Data()) + (tlsCertificates[connection] ?? authority.tlsCertificateDER)
            do {
                var response = AuthResponse()
                response.signature = try authority.sign(signedData, hash: hash, chain: chain)
                response.clientAuthCertificate = authority.deviceCertificateDER(chain)
                response.intermediateCertificate = authority.intermediateCertificatesDER(chain)
                response.signatureAlgorithm = .rsassaPkcs1V15
                response.hashAlgorithm = hash
                response.senderNonce = challenge.senderNonce
                response.crl = Data()
                reply.response = response
            } catch {
                reply.error = AuthError(.internalError)
                log(.warning, connection, "deviceauth: signing failed: \(error)")
            }
        } else {
            reply.error = AuthError(.internalError)
            log(.warning, connection, "deviceauth: no device credentials configured")
        }
        send(reply, answering: envelope, on: connection)
    }

    private mutating func send(_ reply: DeviceAuthMessage, answering envelope: CastEnvelope, on connection: ConnectionID) {
        let data = reply.serializedData
        var answer = envelope.reply(.binary(data))
        if CastMessageCodec.bodySize(answer) > CastFraming.maxBodySize {
            // The response echoes the nonce: a nonce of some 64 KiB makes it too big for a
            // frame. Refused in one that fits, rather than dropped without a word.
            log(.warning, connection, "deviceauth: the response (\(data.count) bytes, the nonce echoed) does not fit a message; answered with INTERNAL_ERROR")
            answer = envelope.reply(.binary(DeviceAuthMessage(error: AuthError(.internalError)).serializedData))
        }
        outbox.append(.send(answer, to: [connection]))
    }

    /// The AuthChallenge fields whose undeclared values are refused as unsupported.
    static let signatureAlgorithmField: UInt64 = 1
    static let hashAlgorithmField: UInt64 = 3
}
