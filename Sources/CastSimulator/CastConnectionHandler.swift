import CastDevice
import CastWire
import Logging
import NIOCore
import NIOSSL

/// The end of a Cast connection's pipeline: hands decoded messages to the device and
/// reports the connection's life. A framing or TLS error closes this connection only.
package final class CastConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = CastEnvelope

    private let runner: DeviceRunner
    private let logger: Logger
    private var id: ConnectionID?

    package init(runner: DeviceRunner, logger: Logger) {
        self.runner = runner
        self.logger = logger
    }

    package func channelActive(context: ChannelHandlerContext) {
        let id = runner.nextConnectionId()
        self.id = id
        runner.connectionOpened(id, channel: context.channel)
        context.fireChannelActive()
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let id else { return }
        runner.receive(unwrapInboundIn(data), from: id)
    }

    package func channelInactive(context: ChannelHandlerContext) {
        if let id { runner.connectionClosed(id) }
        id = nil
        context.fireChannelInactive()
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Most senders close TCP without a TLS close_notify: an ordinary goodbye, not a fault.
        if let tls = error as? NIOSSLError, case .uncleanShutdown = tls {
            logger.debug("sender closed without TLS close_notify", metadata: ["connection": "\(id.map { "\($0)" } ?? "?")"])
            context.close(promise: nil)
            return
        }
        // One line that says why; the other connections carry on.
        let reason: String
        switch error {
        case let wire as CastWireError: reason = wire.description
        case let decoder as ByteToMessageDecoderError:
            if case .dataReceivedInErrorState(let underlying, _) = decoder, let wire = underlying as? CastWireError {
                reason = wire.description
            } else {
                reason = "\(decoder)"
            }
        default: reason = "\(error)"
        }
        logger.warning("closing connection: \(LogText.escape(reason, limit: 300))", metadata: ["connection": "\(id.map { "\($0)" } ?? "?")"])
        context.close(promise: nil)
    }
}
