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
    func sign(_ data: Data, hash: Cast_Channel_HashAlgorithm, chain: DeviceAuthChain) throws -> Data
}

extension SimulatedDevice {
    mutating func handleDeviceAuth(_ envelope: CastEnvelope, on connection: ConnectionID) {
        guard case .binary(let bytes) = envelope.payload else {
            log(.info, connection, "deviceauth: STRING payload ignored (challenges are BINARY)")
            return
        }
        guard let message = try? Cast_Channel_DeviceAuthMessage(serializedBytes: bytes) else {
            log(.info, connection, "deviceauth: payload is not a DeviceAuthMessage, ignored")
            return
        }
        guard message.hasChallenge, !message.hasResponse, !message.hasError else {
            log(.info, connection, "deviceauth: message is not a lone challenge, ignored")
            return
        }
        let challenge = message.challenge
        var reply = Cast_Channel_DeviceAuthMessage()
        let chain: DeviceAuthChain
        switch deviceAuthMode {
        case .ignore:
            log(.info, connection, "deviceauth: challenge left unanswered (device auth mode ignore)")
            return
        case .error:
            reply.error.errorType = .internalError
            log(.info, connection, "deviceauth: answered with INTERNAL_ERROR (device auth mode error)")
            send(reply, answering: envelope, on: connection)
            return
        case .devRoot: chain = .developerRoot
        case .selfSigned: chain = .selfSigned
        }
        // An unknown enum value lands in unknownFields (proto2): treat it as unsupported.
        let algorithmSupported = challenge.unknownFields.data.isEmpty
            && [.unspecified, .rsassaPkcs1V15].contains(challenge.signatureAlgorithm)
        if !algorithmSupported {
            reply.error.errorType = .signatureAlgorithmUnavailable
            log(.info, connection, "deviceauth: unsupported signature or hash algorithm")
        } else if let authority {
            // The certificate this very connection's TLS session presented.
            let signedData = challenge.senderNonce + (tlsCertificates[connection] ?? authority.tlsCertificateDER)
            do {
                var response = Cast_Channel_AuthResponse()
                response.signature = try authority.sign(signedData, hash: challenge.hashAlgorithm, chain: chain)
                response.clientAuthCertificate = authority.deviceCertificateDER(chain)
                response.intermediateCertificate = authority.intermediateCertificatesDER(chain)
                response.signatureAlgorithm = .rsassaPkcs1V15
                response.hashAlgorithm = challenge.hashAlgorithm
                if challenge.hasSenderNonce { response.senderNonce = challenge.senderNonce }
                response.crl = Data()
                reply.response = response
            } catch {
                reply.error.errorType = .internalError
                log(.warning, connection, "deviceauth: signing failed: \(error)")
            }
        } else {
            reply.error.errorType = .internalError
            log(.warning, connection, "deviceauth: no device credentials configured")
        }
        send(reply, answering: envelope, on: connection)
    }

    private mutating func send(_ reply: Cast_Channel_DeviceAuthMessage, answering envelope: CastEnvelope, on connection: ConnectionID) {
        guard let data = try? reply.serializedData() else { return }
        outbox.append(.send(envelope.reply(.binary(data)), to: [connection]))
    }
}
