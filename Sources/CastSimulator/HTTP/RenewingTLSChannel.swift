import HummingbirdCore
import Logging
import NIOCore
import NIOSSL

/// HTTP over TLS with the certificate that is current when a connection is accepted. The
/// device renews its TLS certificate while it runs (``TLSPresentation``); HummingbirdTLS's
/// channel would keep the one it started with for the server's whole life.
struct RenewingTLSChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let tls: TLSPresentation

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls.current.context))
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
