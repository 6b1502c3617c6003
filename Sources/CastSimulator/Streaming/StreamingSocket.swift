import CastDevice
import CastStreaming
import CastWire
import Logging
import NIOCore

/// One Cast Streaming session's UDP socket: RTP and Sender Reports in from the one sender
/// the session is for, RTCP out to where its RTP comes from, the receiver's timers, and a
/// report of the figures every second. Used on the device's loop only.
final class StreamingSocket {
    struct Events {
        let report: (StreamingReport) -> Void
        let heard: () -> Void
    }

    let plan: StreamingPlan
    /// Only datagrams from this host are taken (the TLS connection's peer); nil: any.
    private let senderHost: SocketAddress?
    private let loop: any EventLoop
    private let logger: Logger
    private let idleTimeout: Double?
    private let events: Events
    private var receiver: StreamingReceiver
    private var channel: (any Channel)?
    /// Where the sender's RTP comes from: RTCP goes there.
    private var sender: SocketAddress?
    private var timer: Scheduled<Void>?
    private var tick: Scheduled<Void>?
    /// Fires when the sender has been silent for the idle timeout.
    private var silence: Scheduled<Void>?
    private var lastDatagram: NIODeadline
    private var refused = 0
    private var closed = false
    /// What the scenario does to the datagrams and the feedback.
    var impairment: StreamingImpairment
    /// Decides which datagrams a packet loss drops: seeded, so a run repeats.
    private var losses: IdentifierGenerator
    private var droppedByScenario = 0
    /// Pictures of the video stream, when there is one.
    let pictures: PictureTaker?

    init(plan: StreamingPlan, senderHost: SocketAddress?, loop: any EventLoop, logger: Logger, idleTimeout: Double?, events: Events) {
        self.plan = plan
        self.senderHost = senderHost
        self.loop = loop
        self.logger = logger
        self.idleTimeout = idleTimeout
        self.events = events
        receiver = StreamingReceiver(streams: plan.streams, now: Self.now())
        lastDatagram = .now()
        impairment = plan.impairment
        losses = IdentifierGenerator(seed: UInt64(truncatingIfNeeded: plan.session.utf8.reduce(5381) { $0 &* 33 &+ Int($1) }))
        pictures = plan.streams.first { $0.kind == .video }.map { PictureTaker(codec: $0.codec, loop: loop) }
    }

    /// The receiver's clock: monotonic nanoseconds.
    static func now() -> UInt64 { NIODeadline.now().uptimeNanoseconds }

    func started(on channel: any Channel) {
        self.channel = channel
        scheduleTick()
        scheduleTimer()
        scheduleSilenceCheck()
    }

    func received(_ envelope: AddressedEnvelope<ByteBuffer>) {
        guard !closed else { return }
        if let senderHost, senderHost.ipAddress != envelope.remoteAddress.ipAddress {
            refused += 1
            if refused == 1 {
                logger.warning("streaming session \(plan.session): a datagram from \(envelope.remoteAddress), not the sender \(senderHost.ipAddress ?? "?"), dropped")
            }
            return
        }
        sender = envelope.remoteAddress
        lastDatagram = .now()
        // The sender is alive while it streams, however long its TLS channel stays silent
        // (a dictionary update). Told after lastDatagram is taken: the silence check below
        // comes due just before the TLS channel's own idle timeout would.
        events.heard()
        if impairment.packetLossPercent > 0, Double(losses.next() % 1_000_000) < impairment.packetLossPercent * 10_000 {
            droppedByScenario += 1
            return
        }
        guard impairment.addedDelay > 0 else {
            take(envelope.data)
            return
        }
        // Held, as a slow network would: every datagram as long, so their order stays.
        loop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(impairment.addedDelay * 1e9))) { [self] in
            guard !closed else { return }
            take(envelope.data)
        }
    }

    private func take(_ datagram: ByteBuffer) {
        carryOut(datagram.withUnsafeReadableBytes { receiver.receive($0, at: Self.now()) })
    }

    private func carryOut(_ outputs: [StreamingReceiver.Output]) {
        guard let channel, let sender else { return }
        var wrote = false
        for output in outputs {
            switch output {
            case .rtcp where !impairment.feedback:
                // The scenario silenced the receiver.
                break
            case .rtcp(let bytes):
                var buffer = channel.allocator.buffer(capacity: bytes.count)
                buffer.writeBytes(bytes)
                channel.write(AddressedEnvelope(remoteAddress: sender, data: buffer), promise: nil)
                wrote = true
            case .frame(let frame) where frame.isVideo && frame.isKeyFrame:
                pictures?.keyFrame(frame.frameId, frame.bytes)
            case .frame:
                // Counting is the receiver's.
                break
            }
        }
        if wrote { channel.flush() }
        scheduleTimer()
    }

    private func scheduleTimer() {
        timer?.cancel()
        timer = nil
        guard !closed, let deadline = receiver.nextDeadline else { return }
        let delay = Int64(deadline) - Int64(Self.now())
        timer = loop.assumeIsolated().scheduleTask(in: .nanoseconds(max(0, delay))) { [self] in
            timer = nil
            carryOut(receiver.advance(to: Self.now()))
        }
    }

    private func scheduleTick() {
        tick = loop.assumeIsolated().scheduleTask(in: .seconds(1)) { [self] in
            tick = nil
            everySecond()
        }
    }

    private func everySecond() {
        guard !closed else { return }
        scheduleTick()
        events.report(.figures(session: plan.session, figures))
        scheduleSilenceCheck()
        if pictures?.wantsKeyFrame == true, let video = plan.streams.first(where: { $0.kind == .video }) {
            receiver.requestKeyFrame(senderSsrc: video.senderSsrc)
        }
    }

    /// Ends the session at the last datagram plus the idle timeout, unless more come. The
    /// sender's TLS connection was last heard at a tick, after that datagram: the session
    /// ends first, and says why.
    private func scheduleSilenceCheck() {
        guard let idleTimeout else { return }
        silence?.cancel()
        let limit = TimeAmount.nanoseconds(Int64(idleTimeout * 1e9))
        silence = loop.assumeIsolated().scheduleTask(deadline: lastDatagram + limit) { [self] in
            silence = nil
            guard !closed, NIODeadline.now() - lastDatagram >= limit else { return }
            events.report(.ended(session: plan.session, reason: "no RTP from the sender for \(DurationText.format(idleTimeout))"))
        }
    }

    /// The figures as the app shows them.
    var figures: StreamingFigures {
        var figures = receiver.figures(at: Self.now())
        figures.senderAddress = sender.map { "\($0.ipAddress ?? "?"):\($0.port ?? 0)" }
        figures.droppedByScenario = droppedByScenario
        if let pictures {
            figures.picture = pictures.latest?.figures
            figures.picturesDecoded = pictures.decoded
            figures.picturesSkipped = pictures.skipped
            figures.picturesUnavailable = pictures.unavailable
        }
        return figures
    }

    func close() {
        guard !closed else { return }
        closed = true
        timer?.cancel()
        tick?.cancel()
        silence?.cancel()
        pictures?.close()
        channel?.close(promise: nil)
        channel = nil
    }
}

/// Hands the socket's datagrams to its session.
final class StreamingDatagramHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    private let socket: StreamingSocket

    init(socket: StreamingSocket) { self.socket = socket }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        socket.received(unwrapInboundIn(data))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // An ICMP error for an RTCP datagram (the sender went away) is no reason to stop
        // listening: the session ends by its own rules.
    }
}
