import CastSimulatorTesting
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import SwiftASN1
import X509
import _CryptoExtras

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
        isRSA = _RSA.Signing.PublicKey(certificate.publicKey) != nil
    }
}

/// A one-shot HTTP/1.1 GET over a fresh connection, with TLS (no verification) if asked.
func httpGet(address: SocketAddress, secure: Bool, path: String) async throws -> String {
    let group = MultiThreadedEventLoopGroup.singleton
    let received = NIOLockedValueBox(ByteBuffer())
    let done = group.next().makePromise(of: Void.self)
    let tls: NIOSSLContext? = secure ? try {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        return try NIOSSLContext(configuration: configuration)
    }() : nil
    let channel = try await ClientBootstrap(group: group).channelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
            if let tls { try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: tls, serverHostname: nil)) }
            try channel.pipeline.syncOperations.addHandler(ResponseCollector(received: received, done: done))
        }
    }.connect(to: address).get()
    try await channel.writeAndFlush(ByteBuffer(string: "GET \(path) HTTP/1.1\r\nHost: castsim\r\nConnection: close\r\n\r\n"))
    try await done.futureResult.get()
    let text = received.withLockedValue { String(buffer: $0) }
    guard let split = text.range(of: "\r\n\r\n") else { throw TestError("no HTTP header end in \(text)") }
    guard text.hasPrefix("HTTP/1.1 200") else { throw TestError("status: \(text.prefix(40))") }
    return String(text[split.upperBound...])
}

private final class ResponseCollector: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let received: NIOLockedValueBox<ByteBuffer>
    let done: EventLoopPromise<Void>

    init(received: NIOLockedValueBox<ByteBuffer>, done: EventLoopPromise<Void>) {
        self.received = received
        self.done = done
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        _ = received.withLockedValue { $0.writeBuffer(&buffer) }
    }

    func channelInactive(context: ChannelHandlerContext) { done.succeed() }
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A TLS close without close_notify still ends a Connection: close response.
        context.close(promise: nil)
    }
}
