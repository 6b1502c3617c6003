import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// Bytes written as they are over a fresh connection (TLS if given a context), and
/// everything the server answers until it closes: for a test of what a server makes of
/// a request no client library would send, or of the exact bytes of its answer.
package enum RawExchange {
    package struct Answer: Sendable {
        /// Every byte received, in order.
        package var bytes: ByteBuffer
        /// Over TLS, the certificate the server presented (DER).
        package var peerCertificateDER: [UInt8]?

        package var text: String { String(buffer: bytes) }
    }

    /// Writes `bytes` to `address` and returns what comes back before the server closes
    /// the connection; after `timeout` the connection is closed from this side and what
    /// came so far is returned.
    package static func exchange(_ bytes: ByteBuffer, with address: SocketAddress, tls: NIOSSLContext? = nil,
                                 timeout: TimeAmount = .seconds(10)) async throws -> Answer {
        let received = NIOLockedValueBox(Answer(bytes: ByteBuffer()))
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                if let tls { try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: tls, serverHostname: nil)) }
                try channel.pipeline.syncOperations.addHandler(Collector(received: received))
            }
        }.connect(to: address).get()
        let timer = channel.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
        defer { timer.cancel() }
        try await channel.writeAndFlush(bytes)
        try await channel.closeFuture.get()
        return received.withLockedValue { $0 }
    }

    private final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let received: NIOLockedValueBox<Answer>

        init(received: NIOLockedValueBox<Answer>) { self.received = received }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            // Taken with the first bytes, while the TLS handler is surely still there (the
            // server may close the connection before a separate look could run).
            let certificate = received.withLockedValue { $0.peerCertificateDER } == nil
                ? (try? context.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self).peerCertificate?.toDERBytes()) ?? nil
                : nil
            var buffer = unwrapInboundIn(data)
            received.withLockedValue { answer in
                if let certificate { answer.peerCertificateDER = certificate }
                answer.bytes.writeBuffer(&buffer)
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            // A TLS close without close_notify still ends a `Connection: close` answer.
            context.close(promise: nil)
        }
    }
}
