import CastDevice
import CastStreaming
import Logging
import NIOCore
import NIOPosix

/// The media plane of a device's Cast Streaming sessions: the mirroring app negotiates
/// (``StreamingEvent``), this opens a UDP socket for each session on the device's own
/// address, and tells the app its port, its figures and its end (``StreamingReport``).
/// Used on the device's loop only; the sockets run on the same loop.
final class StreamingMedia {
    private let loop: any EventLoop
    /// The device's address: the sender takes RTCP only from there (docs/protocol/streaming.md §3).
    private let host: String
    private let logger: Logger
    private var sessions: [String: StreamingSocket] = [:]

    /// What the device's runner does for the media plane.
    struct Runner {
        /// Tells the mirroring app.
        let report: (StreamingReport) -> Void
        /// RTP from the sender on this connection: it is alive, whatever its TLS channel says.
        let heard: (ConnectionID) -> Void
        /// The sender's address as its TLS connection has it.
        let peer: (ConnectionID) -> SocketAddress?
        /// How long a session may go without RTP (the device's idle timeout).
        let idleTimeout: () -> Double?
    }

    private let runner: Runner
    /// The UDP socket's receive buffer asked for: a 4K key frame's worth.
    static let receiveBuffer = 4 << 20

    init(loop: any EventLoop, host: String, logger: Logger, runner: Runner) {
        self.loop = loop
        self.host = host
        self.logger = logger
        self.runner = runner
    }

    var openSessions: Int { sessions.count }

    /// The newest picture of a session running now, else of the last one that ran.
    var picture: PictureTaker.Taken? {
        sessions.values.compactMap { $0.pictures?.latest }.first ?? lastPicture
    }
    private var lastPicture: PictureTaker.Taken?

    func handle(_ event: StreamingEvent) {
        switch event {
        case .negotiating(let plan): open(plan)
        case .ended(let session, _, _): close(session)
        case .impaired(let session, let impairment): sessions[session]?.impairment = impairment
        case .started, .refused, .measured: break
        }
    }

    private func open(_ plan: StreamingPlan) {
        guard let bootstrap = DatagramBootstrap(validatingGroup: loop) else {
            // An in-process device (an embedded loop) has no sockets.
            runner.report(.failed(session: plan.session, reason: "this device has no UDP sockets (an in-process device)"))
            return
        }
        let socket = StreamingSocket(plan: plan, senderHost: runner.peer(plan.connection), loop: loop, logger: logger,
                                     idleTimeout: runner.idleTimeout(), events: StreamingSocket.Events(
                                         report: runner.report, heard: { [runner] in runner.heard(plan.connection) }))
        sessions[plan.session] = socket
        let handler = NIOLoopBound(socket, eventLoop: loop)
        bootstrap
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            // A key frame arrives as a burst of up to a few hundred datagrams: room for them
            // (the kernel caps it at net.core.rmem_max), and more of them taken per wake-up.
            .channelOption(.socketOption(.so_rcvbuf), value: StreamingMedia.receiveBuffer)
            .channelOption(.maxMessagesPerRead, value: 64)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(StreamingDatagramHandler(socket: handler.value)) }
            }
            .bind(host: host, port: plan.udpPort)
            .assumeIsolated()
            .whenComplete { [self] result in
                switch result {
                case .success(let channel):
                    guard sessions[plan.session] === socket else {
                        // Ended while the socket was being opened.
                        channel.close(promise: nil)
                        return
                    }
                    socket.started(on: channel)
                    let port = channel.localAddress?.port ?? plan.udpPort
                    logger.info("streaming session \(plan.session): receiving on UDP \(host):\(port)")
                    runner.report(.opened(session: plan.session, udpPort: port))
                case .failure(let error):
                    sessions[plan.session] = nil
                    runner.report(.failed(session: plan.session, reason: "cannot listen on UDP \(host):\(plan.udpPort): \(error)"))
                }
            }
    }

    private func close(_ session: String) {
        guard let socket = sessions.removeValue(forKey: session) else { return }
        lastPicture = socket.pictures?.latest ?? lastPicture
        socket.close()
    }

    /// Every socket closes (the device stops).
    func closeAll() {
        for socket in sessions.values { socket.close() }
        sessions.removeAll()
    }
}
