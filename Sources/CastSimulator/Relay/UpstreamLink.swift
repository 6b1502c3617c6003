import CastDevice
import CastWire
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS

/// A relay's TLS connection to the upstream device for one sender connection, on the
/// runner's event loop: frames written to it go upstream, what the upstream sends, its
/// TLS link coming up and its end go to the runner.
///
/// Until the TLS handshake is done the sender's frames wait in order in ``pending``; the
/// runner then writes them, and later ones, through ``sink`` as it writes to senders
/// (the same queue limit and flushing).
final class UpstreamLink {
    enum State {
        /// TCP connect or TLS handshake under way.
        case connecting
        /// TLS is up: frames go out through the sink.
        case open(ConnectionSink)
        /// Ended; nothing more is written or reported.
        case closed
    }

    let connection: ConnectionID
    let configuration: RelayConfiguration
    private(set) var state: State = .connecting
    /// Frames the sender sent before the link was up, oldest first, and their bytes.
    private(set) var pending: [ByteBuffer] = []
    private(set) var pendingBytes = 0
    private var channel: (any Channel)?
    /// This side's address of the TCP connection, once connected: a relay whose upstream is
    /// itself sees it come in as a sender's peer.
    private(set) var localAddress: SocketAddress?
    private var handshakeTimeout: Scheduled<Void>?

    /// Called on the loop: TLS is up; messages from the upstream (one read's worth); the
    /// link ended by the upstream's doing, with the reason and how loudly to log it.
    struct Callbacks {
        var connected: (UpstreamLink) -> Void
        var received: (UpstreamLink, [CastEnvelope]) -> Void
        var ended: (UpstreamLink, String, Logger.Level) -> Void
    }
    private let callbacks: Callbacks

    init(connection: ConnectionID, configuration: RelayConfiguration, callbacks: Callbacks) {
        self.connection = connection
        self.configuration = configuration
        self.callbacks = callbacks
    }

    /// Holds a frame until the link is up.
    func hold(_ frame: ByteBuffer) {
        pending.append(frame)
        pendingBytes += frame.readableBytes
    }

    /// The client TLS context: no certificate check, as Cast devices present self-signed
    /// certificates (senders check device auth instead).
    static func makeTLSContext() throws -> NIOSSLContext {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .none
        return try NIOSSLContext(configuration: tls)
    }

    /// Connects on `loop` (the runner's: the link's channel lives beside the sender's).
    func start(on loop: any EventLoop, tls: NIOSSLContext) {
        loop.preconditionInEventLoop()
        let bound = NIOLoopBound(self, eventLoop: loop)
        let timeout = TimeAmount(configuration.connectTimeout)
        ClientBootstrap(group: loop)
            .connectTimeout(timeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelOption(.writeBufferWaterMark, value: CastConnectionHandler.writeBufferWaterMark)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(try NIOSSLClientHandler(context: tls, serverHostname: nil))
                    try sync.addHandler(ByteToMessageHandler(CastFrameDecoder()))
                    try sync.addHandler(UpstreamHandler(link: bound.value))
                }
            }
            .connect(host: configuration.host, port: configuration.port)
            .assumeIsolated()
            .whenComplete { [self] result in
                switch result {
                case .success(let channel):
                    guard case .connecting = state else {
                        // The sender went while the link was coming up.
                        channel.close(promise: nil)
                        return
                    }
                    self.channel = channel
                    localAddress = channel.localAddress
                    handshakeTimeout = loop.assumeIsolated().scheduleTask(in: timeout) { [self] in
                        guard case .connecting = state else { return }
                        end("upstream \(configuration.hostAndPort) did not complete the TLS handshake within \(Self.seconds(timeout))",
                            level: .warning)
                        channel.close(promise: nil)
                    }
                case .failure(let error):
                    end(Self.reason(for: error, upstream: configuration.hostAndPort, handshakeDone: false), level: .warning)
                }
            }
    }

    /// Closes the link from this side (the sender went, the device resets or stops);
    /// nothing is reported.
    func close() {
        handshakeTimeout?.cancel()
        handshakeTimeout = nil
        if case .open(let sink) = state { sink.flush() }
        state = .closed
        pending.removeAll()
        pendingBytes = 0
        channel?.close(promise: nil)
    }

    // MARK: From the channel

    fileprivate func handshakeCompleted(_ channel: any Channel) {
        guard case .connecting = state else { return }
        handshakeTimeout?.cancel()
        handshakeTimeout = nil
        self.channel = channel
        state = .open(ConnectionSink(channel: channel))
        callbacks.connected(self)
    }

    /// Hands the frames held until now to whoever writes them.
    func takePending() -> [ByteBuffer] {
        defer {
            pending.removeAll()
            pendingBytes = 0
        }
        return pending
    }

    fileprivate func received(_ envelopes: [CastEnvelope]) {
        guard case .open = state else { return }
        callbacks.received(self, envelopes)
    }

    /// The link turned out to lead back to this relay.
    func endAsLoop() {
        end("upstream \(configuration.hostAndPort) is this relay itself: its connection came back in as a sender's; give a device other than the relay",
            level: .error)
        channel?.close(promise: nil)
    }

    fileprivate func failed(_ error: any Error) {
        let handshakeDone = if case .open = state { true } else { false }
        end(Self.reason(for: error, upstream: configuration.hostAndPort, handshakeDone: handshakeDone),
            level: Self.isOrdinaryClose(error) ? .notice : .warning)
    }

    fileprivate func inactive() {
        end("upstream \(configuration.hostAndPort) closed the connection", level: .notice)
    }

    /// The link ended by the upstream's doing (or failing to come up): reported once.
    private func end(_ reason: String, level: Logger.Level) {
        if case .closed = state { return }
        handshakeTimeout?.cancel()
        handshakeTimeout = nil
        state = .closed
        pending.removeAll()
        pendingBytes = 0
        callbacks.ended(self, reason, level)
    }

    // MARK: Reasons

    /// One line that says why the link failed, in the words a person looking at a Cast
    /// device understands.
    static func reason(for error: any Error, upstream: String, handshakeDone: Bool) -> String {
        switch error {
        case let error as NIOConnectionError:
            if let failure = error.connectionErrors.first {
                return reason(for: failure.error, upstream: upstream, handshakeDone: handshakeDone)
            }
            if let dns = error.dnsAError ?? error.dnsAAAAError {
                return "cannot resolve upstream \(upstream): \(dns)"
            }
            return "cannot connect to upstream \(upstream)"
        case ChannelError.connectTimeout(let timeout):
            return "upstream \(upstream) did not answer within \(seconds(timeout))"
        case let error as IOError where error.errnoCode == ECONNREFUSED:
            return "upstream \(upstream) refused the connection"
        case let error as IOError where error.errnoCode == ECONNRESET || error.errnoCode == EPIPE:
            return handshakeDone ? "upstream \(upstream) reset the connection"
                : "TLS handshake with upstream \(upstream) failed: the upstream reset the connection"
        case let error as IOError where [EHOSTUNREACH, ENETUNREACH, ETIMEDOUT].contains(error.errnoCode):
            return "upstream \(upstream) is unreachable: \(error)"
        case NIOSSLError.uncleanShutdown:
            return handshakeDone ? "upstream \(upstream) closed the connection"
                : "TLS handshake with upstream \(upstream) failed: the upstream closed the connection"
        case let error as NIOSSLError:
            return handshakeDone ? "TLS error with upstream \(upstream): \(error)" : "TLS handshake with upstream \(upstream) failed: \(error)"
        case let error as BoringSSLError:
            return handshakeDone ? "TLS error with upstream \(upstream): \(error)" : "TLS handshake with upstream \(upstream) failed: \(error)"
        case let error as CastWireError:
            return "upstream \(upstream) sent a bad frame: \(error.description)"
        case let error as ByteToMessageDecoderError:
            if case .dataReceivedInErrorState(let underlying, _) = error, let wire = underlying as? CastWireError {
                return "upstream \(upstream) sent a bad frame: \(wire.description)"
            }
            return "upstream \(upstream) sent a bad frame: \(error)"
        default:
            return "upstream \(upstream) failed: \(error)"
        }
    }

    /// A goodbye without TLS close_notify is how most devices close: not a warning.
    static func isOrdinaryClose(_ error: any Error) -> Bool {
        if case NIOSSLError.uncleanShutdown = error { return true }
        return false
    }

    static func seconds(_ time: TimeAmount) -> String {
        DurationText.format(Double(time.nanoseconds) / 1e9)
    }
}

/// The end of an upstream link's pipeline: TLS events, messages and the end go to the link.
private final class UpstreamHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = CastEnvelope

    private let link: UpstreamLink
    private var read: [CastEnvelope] = []

    init(link: UpstreamLink) { self.link = link }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event { link.handshakeCompleted(context.channel) }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Handed over at read-complete, all the frames of one read together.
        read.append(unwrapInboundIn(data))
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        handOver()
        context.fireChannelReadComplete()
    }

    private func handOver() {
        guard !read.isEmpty else { return }
        let envelopes = read
        read.removeAll(keepingCapacity: true)
        link.received(envelopes)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Frames decoded before the error still reach the sender, then the reason.
        handOver()
        link.failed(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        handOver()
        link.inactive()
        context.fireChannelInactive()
    }
}
