import CastCredentials
import CastScenario
import CastSimulator
import CastSimulatorTesting
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

extension CastTestSender {
    /// The DER of the certificate the server presented in this TLS session.
    func peerCertificateDER() async throws -> [UInt8] {
        let channel = self.channel
        return try await channel.eventLoop.submit {
            let handler = try channel.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self)
            guard let certificate = handler.peerCertificate else { throw TestError("no peer certificate") }
            return try certificate.toDERBytes()
        }.get()
    }
}

struct TestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What tests check of a certificate.
struct CertificateFacts {
    let notBefore: Date
    let notAfter: Date
    let isRSA: Bool
    let certificate: Certificate

    init(der: [UInt8]) throws {
        certificate = try Certificate(derEncoded: der)
        notBefore = certificate.notValidBefore
        notAfter = certificate.notValidAfter
        isRSA = certificate.rsaKeyBits != nil
    }
}

/// Starts a household of `configurations` and `groups`, runs `body`, and always stops it.
func withFleet<T>(_ configurations: [SimulatorConfiguration], groups: [GroupDeclaration] = [],
                  _ body: (CastFleet) async throws -> T) async throws -> T {
    try await stopping(try await CastFleet.start(configurations, groups: groups), by: { await $0.stop() }, body)
}

/// A one-shot HTTP/1.1 GET over a fresh connection, with TLS (no verification) if asked;
/// the body of a 200, else it throws.
func httpGet(address: SocketAddress, secure: Bool, path: String, host: String = "castsim") async throws -> String {
    let reply = try await httpRequest(address: address, secure: secure, path: path, host: host)
    guard reply.status == 200 else { throw TestError("status \(reply.status): \(reply.head)") }
    return reply.body
}

/// What a server answered: the status, the head's text, the body, and over TLS the
/// certificate it presented.
struct HTTPReply {
    var status: Int
    var head: String
    var body: String
    var peerCertificateDER: [UInt8]?
}

/// One request over a fresh connection (`Connection: close`), with TLS (no verification)
/// if asked, and `host` as the `Host` header.
func httpRequest(address: SocketAddress, secure: Bool, method: String = "GET", path: String, host: String = "castsim") async throws
    -> HTTPReply
{
    let tls: NIOSSLContext? = secure ? try {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        return try NIOSSLContext(configuration: configuration)
    }() : nil
    let request = "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    let answer = try await RawExchange.exchange(ByteBuffer(string: request), with: address, tls: tls)
    let text = answer.text
    guard let split = text.range(of: "\r\n\r\n") else { throw TestError("no HTTP header end in \(text)") }
    let head = String(text[..<split.lowerBound])
    guard head.hasPrefix("HTTP/1.1 "), let status = Int(head.dropFirst(9).prefix(3)) else { throw TestError("status line: \(text.prefix(40))") }
    return HTTPReply(status: status, head: head, body: String(text[split.upperBound...]),
                     peerCertificateDER: answer.peerCertificateDER)
}

