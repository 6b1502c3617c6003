import Foundation

// The messages of urn:x-cast:com.google.cast.tp.deviceauth (proto/cast_channel.proto;
// docs/protocol/castv2.md §4), read and written by hand as ``CastMessageCodec`` does
// CastMessage: three small messages a connection, for which a protobuf runtime was the
// largest module of the build. proto2's rules: a field set is written even when it holds
// its default, a message field seen twice is merged, an enum value the proto lacks leaves
// the field unset (kept as an unknown field, whose number is noted here), and a message
// that lacks a required field is refused.

public enum SignatureAlgorithm: UInt64, Sendable, CaseIterable {
    case unspecified = 0
    case rsassaPkcs1V15 = 1
    case rsassaPss = 2
}

public enum HashAlgorithm: UInt64, Sendable, CaseIterable {
    case sha1 = 0
    case sha256 = 1
}

/// A sender's challenge. Absent fields are nil; the proto's defaults are RSASSA-PKCS1-v1_5
/// and SHA-1.
public struct AuthChallenge: Sendable, Equatable {
    public var signatureAlgorithm: SignatureAlgorithm?
    public var senderNonce: Data?
    public var hashAlgorithm: HashAlgorithm?
    /// The numbers of the fields read that the proto does not declare, or whose value is
    /// none of their enum's (proto2 keeps those as unknown fields).
    public var unknownFieldNumbers: Set<UInt64> = []

    public init(signatureAlgorithm: SignatureAlgorithm? = nil, senderNonce: Data? = nil, hashAlgorithm: HashAlgorithm? = nil) {
        self.signatureAlgorithm = signatureAlgorithm
        self.senderNonce = senderNonce
        self.hashAlgorithm = hashAlgorithm
    }
}

/// The device's answer: a signature over the sender's nonce and the TLS certificate.
public struct AuthResponse: Sendable, Equatable {
    /// Required.
    public var signature = Data()
    /// Required.
    public var clientAuthCertificate = Data()
    public var intermediateCertificate: [Data] = []
    public var signatureAlgorithm: SignatureAlgorithm?
    public var senderNonce: Data?
    public var hashAlgorithm: HashAlgorithm?
    public var crl: Data?

    public init() {}
}

public struct AuthError: Sendable, Equatable {
    public enum ErrorType: UInt64, Sendable, CaseIterable {
        case internalError = 0
        case noTLS = 1
        case signatureAlgorithmUnavailable = 2
    }

    /// Required.
    public var errorType: ErrorType

    public init(_ errorType: ErrorType) { self.errorType = errorType }
}

/// What goes either way on the device-auth namespace, as a BINARY payload: a sender's
/// challenge, the device's response or its error.
public struct DeviceAuthMessage: Sendable, Equatable {
    public var challenge: AuthChallenge?
    public var response: AuthResponse?
    public var error: AuthError?

    public init(challenge: AuthChallenge? = nil, response: AuthResponse? = nil, error: AuthError? = nil) {
        self.challenge = challenge
        self.response = response
        self.error = error
    }

    /// Reads a payload; refuses bytes that are no protobuf message, and a response or error
    /// without its required fields.
    public init(serializedBytes data: Data) throws(CastWireError) {
        let read = data.withUnsafeBytes { bytes in
            Result { () throws(CastWireError) -> DeviceAuthMessage in
                var message = DeviceAuthMessage()
                var fields = ProtobufReader(bytes: bytes)
                try message.merge(&fields, bytes)
                return message
            }
        }
        self = try read.get()
    }

    /// The message's bytes, fields in number order.
    public var serializedData: Data {
        var writer = ProtobufWriter()
        if let challenge { writer.bytesField(1, challenge.encoded) }
        if let response { writer.bytesField(2, response.encoded) }
        if let error { writer.bytesField(3, error.encoded) }
        return Data(writer.bytes)
    }

    private mutating func merge(_ fields: inout ProtobufReader, _ bytes: UnsafeRawBufferPointer) throws(CastWireError) {
        var responseFields: (signature: Bool, certificate: Bool) = (false, false)
        var hasErrorType = false
        while !fields.isAtEnd {
            let (field, wireType) = try fields.tag()
            guard wireType == ProtobufReader.lengthDelimited, (1...3).contains(field) else {
                try fields.skip(field, wireType)
                continue
            }
            var inner = ProtobufReader(bytes: UnsafeRawBufferPointer(rebasing: bytes[try fields.lengthDelimited()]))
            switch field {
            case 1:
                var challenge = self.challenge ?? AuthChallenge()
                try challenge.merge(&inner)
                self.challenge = challenge
            case 2:
                var response = self.response ?? AuthResponse()
                let read = try response.merge(&inner)
                responseFields = (responseFields.signature || read.signature, responseFields.certificate || read.certificate)
                self.response = response
            default:
                var error = self.error ?? AuthError(.internalError)
                hasErrorType = try error.merge(&inner) || hasErrorType
                self.error = error
            }
        }
        if response != nil, !responseFields.signature { throw .invalidMessage("AuthResponse without signature (field 1, required)") }
        if response != nil, !responseFields.certificate {
            throw .invalidMessage("AuthResponse without client_auth_certificate (field 2, required)")
        }
        if error != nil, !hasErrorType { throw .invalidMessage("AuthError without error_type (field 1, required)") }
    }
}

extension ProtobufReader {
    /// A bytes field's value, its tag read.
    fileprivate mutating func data() throws(CastWireError) -> Data {
        Data(UnsafeRawBufferPointer(rebasing: bytes[try lengthDelimited()]))
    }

    /// An enum field's value, its tag read, if the enum has it.
    fileprivate mutating func enumCase<Case: RawRepresentable<UInt64> & CaseIterable>(_: Case.Type) throws(CastWireError) -> Case? {
        let value = try varint()
        return ProtobufReader.enumValue(value, known: 0...Int32(Case.allCases.count - 1)).flatMap(Case.init(rawValue:))
    }
}

extension AuthChallenge {
    fileprivate mutating func merge(_ fields: inout ProtobufReader) throws(CastWireError) {
        while !fields.isAtEnd {
            let (field, wireType) = try fields.tag()
            switch (field, wireType) {
            case (1, ProtobufReader.varint):
                if let value = try fields.enumCase(SignatureAlgorithm.self) { signatureAlgorithm = value } else { unknownFieldNumbers.insert(1) }
            case (2, ProtobufReader.lengthDelimited): senderNonce = try fields.data()
            case (3, ProtobufReader.varint):
                if let value = try fields.enumCase(HashAlgorithm.self) { hashAlgorithm = value } else { unknownFieldNumbers.insert(3) }
            default:
                try fields.skip(field, wireType)
                unknownFieldNumbers.insert(field)
            }
        }
    }

    fileprivate var encoded: [UInt8] {
        var writer = ProtobufWriter()
        if let signatureAlgorithm { writer.varintField(1, signatureAlgorithm.rawValue) }
        if let senderNonce { writer.bytesField(2, senderNonce) }
        if let hashAlgorithm { writer.varintField(3, hashAlgorithm.rawValue) }
        return writer.bytes
    }
}

extension AuthResponse {
    /// Which of the required fields were read.
    fileprivate mutating func merge(_ fields: inout ProtobufReader) throws(CastWireError) -> (signature: Bool, certificate: Bool) {
        var read = (signature: false, certificate: false)
        while !fields.isAtEnd {
            let (field, wireType) = try fields.tag()
            switch (field, wireType) {
            case (1, ProtobufReader.lengthDelimited):
                signature = try fields.data()
                read.signature = true
            case (2, ProtobufReader.lengthDelimited):
                clientAuthCertificate = try fields.data()
                read.certificate = true
            case (3, ProtobufReader.lengthDelimited): intermediateCertificate.append(try fields.data())
            case (4, ProtobufReader.varint): if let value = try fields.enumCase(SignatureAlgorithm.self) { signatureAlgorithm = value }
            case (5, ProtobufReader.lengthDelimited): senderNonce = try fields.data()
            case (6, ProtobufReader.varint): if let value = try fields.enumCase(HashAlgorithm.self) { hashAlgorithm = value }
            case (7, ProtobufReader.lengthDelimited): crl = try fields.data()
            default: try fields.skip(field, wireType)
            }
        }
        return read
    }

    fileprivate var encoded: [UInt8] {
        var writer = ProtobufWriter()
        writer.bytesField(1, signature)
        writer.bytesField(2, clientAuthCertificate)
        for certificate in intermediateCertificate { writer.bytesField(3, certificate) }
        if let signatureAlgorithm { writer.varintField(4, signatureAlgorithm.rawValue) }
        if let senderNonce { writer.bytesField(5, senderNonce) }
        if let hashAlgorithm { writer.varintField(6, hashAlgorithm.rawValue) }
        if let crl { writer.bytesField(7, crl) }
        return writer.bytes
    }
}

extension AuthError {
    /// Whether the error type was read.
    fileprivate mutating func merge(_ fields: inout ProtobufReader) throws(CastWireError) -> Bool {
        var read = false
        while !fields.isAtEnd {
            let (field, wireType) = try fields.tag()
            switch (field, wireType) {
            case (1, ProtobufReader.varint):
                // A value the enum lacks leaves the type unread: the message is refused.
                if let value = try fields.enumCase(ErrorType.self) {
                    errorType = value
                    read = true
                }
            default: try fields.skip(field, wireType)
            }
        }
        return read
    }

    fileprivate var encoded: [UInt8] {
        var writer = ProtobufWriter()
        writer.varintField(1, errorType.rawValue)
        return writer.bytes
    }
}
