import NIOCore
import NIOSSL

extension Channel {
    /// Closes the connection at once, without the TLS close_notify exchange, as a device
    /// drops a sender it has given up on (silent past the idle timeout, not reading, sending
    /// garbage, or the device stopping).
    ///
    /// A TLS close waits up to five seconds for the peer's close_notify, on a timer; a peer
    /// that is gone never sends it, and thousands of such timers (an idle timeout reached by
    /// many senders at once, a shutdown with ten thousand connected) make every timer
    /// operation of the event loop slow for everyone. Closing from the TLS handler's own
    /// context skips it. Replies flushed before this leave first when the socket has room
    /// for them (a sender that reads); a sender that stopped reading loses what its socket
    /// could not take, as it would from a real device.
    func drop() {
        if let tls = try? pipeline.syncOperations.context(handlerType: NIOSSLServerHandler.self) {
            tls.close(mode: .all, promise: nil)
        } else {
            close(mode: .all, promise: nil)
        }
    }
}
