import CastWire
import Foundation

// urn:x-cast:com.google.cast.tp.deviceauth (§4): answer a challenge with an AuthResponse
// whose signature covers `sender_nonce || TLS certificate DER`.

/// The device's credentials. The signing itself (RSA) lives in the runtime; the core
/// decides what is signed and how the reply is shaped.
public protocol DeviceAuthority: Sendable {
    /// The device certificate (DER), sent as `client_auth_certificate`.
    var deviceCertificateDER: Data { get }
    /// The chain up to but excluding the root (DER), sent as `intermediate_certificate`.
    var intermediateCertificatesDER: [Data] { get }
    /// The certificate the TLS server presents; its DER is part of the signed data.
    var tlsCertificateDER: Data { get }
    /// RSASSA-PKCS1-v1_5 over `data` with the device key and the given digest.
    func sign(_ data: Data, hash: Cast_Channel_HashAlgorithm) throws -> Data
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
        // An unknown enum value lands in unknownFields (proto2): treat it as unsupported.
        let algorithmSupported = challenge.unknownFields.data.isEmpty
            && [.unspecified, .rsassaPkcs1V15].contains(challenge.signatureAlgorithm)
        if !algorithmSupported {
            reply.error.errorType = .signatureAlgorithmUnavailable
            log(.info, connection, "deviceauth: unsupported signature or hash algorithm")
        } else if let authority {
            let signedData = challenge.senderNonce + authority.tlsCertificateDER
            do {
                var response = Cast_Channel_AuthResponse()
                response.signature = try authority.sign(signedData, hash: challenge.hashAlgorithm)
                response.clientAuthCertificate = authority.deviceCertificateDER
                response.intermediateCertificate = authority.intermediateCertificatesDER
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
        guard let data = try? reply.serializedData() else { return }
        pending.append(.send(envelope.reply(.binary(data)), to: [connection]))
    }
}
