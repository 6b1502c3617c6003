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
        // An undeclared algorithm lands in unknownFields (proto2), as its field: refused as
        // unsupported. Any other field the proto does not declare is skipped, as a newer
        // sender's addition must be.
        let undeclared = Self.fieldNumbers(in: challenge.unknownFields.data)
        let algorithmSupported = !undeclared.contains(Self.signatureAlgorithmField) && !undeclared.contains(Self.hashAlgorithmField)
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
        var answer = envelope.reply(.binary(data))
        if CastMessageCodec.bodySize(answer) > CastFraming.maxBodySize {
            // The response echoes the nonce: a nonce of some 64 KiB makes it too big for a
            // frame. Refused in one that fits, rather than dropped without a word.
            log(.warning, connection, "deviceauth: the response (\(data.count) bytes, the nonce echoed) does not fit a message; answered with INTERNAL_ERROR")
            var refusal = Cast_Channel_DeviceAuthMessage()
            refusal.error.errorType = .internalError
            guard let refused = try? refusal.serializedData() else { return }
            answer = envelope.reply(.binary(refused))
        }
        outbox.append(.send(answer, to: [connection]))
    }

    /// The AuthChallenge fields whose undeclared values are refused as unsupported.
    static let signatureAlgorithmField = 1
    static let hashAlgorithmField = 3

    /// The field numbers of protobuf fields as they lie in `data` (a message's unknown
    /// fields); as far as they can be read.
    static func fieldNumbers(in data: Data) -> Set<Int> {
        var numbers: Set<Int> = []
        var index = data.startIndex
        func varint() -> UInt64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while index < data.endIndex, shift < 64 {
                let byte = data[index]
                index += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
            return nil
        }
        while index < data.endIndex, let tag = varint() {
            numbers.insert(Int(truncatingIfNeeded: tag >> 3))
            switch tag & 7 {
            case 0: guard varint() != nil else { return numbers }
            case 1: index += 8
            case 2:
                guard let length = varint(), length <= UInt64(data.endIndex - index) else { return numbers }
                index += Int(length)
            case 5: index += 4
            default: return numbers  // groups: none of the algorithm fields is one
            }
        }
        return numbers
    }
}
