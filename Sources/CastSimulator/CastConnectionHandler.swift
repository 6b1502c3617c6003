import Foundation
import CastDevice
import CastScenario
import CastWire
import Logging
import NIOCore
import NIOPosix
import NIOSSL

/// The end of a Cast connection's pipeline: hands decoded messages to the device, reports
/// the connection's life, and keeps one sender from holding the others back.
///
/// It splits the CASTV2 frames itself and parses each one straight from the bytes read: a
/// frame splitter in front of it (NIO's `ByteToMessageHandler`) copied each body into an
/// array, and its pass cost some 3 % of a busy device's loop.
///
/// Fairness, because every connection of a device shares one event loop:
/// - A sender's frames are parsed and handled for at most ``timePerTurn`` at a time; the
///   rest wait, unparsed, and no more is read from that sender until they are handled.
///   A burst of 50,000 PINGs in one write is so handled a slice at a time,
///   interleaved with the other connections, instead of to the end first. A slice is
///   measured in time, not messages: a debug build is ten times slower than a release one.
/// - Reading stops too while the channel is not writable, that is while the sender leaves
///   its replies unread (NIO's write-buffer water marks decide): TCP then pushes back on
///   the sender.
/// - A sender that stays unwritable for the stalled-reader timeout is disconnected with a
///   logged reason; the runner's byte limit on queued replies catches the one fed faster
///   by broadcasts that other senders cause.
///
/// A framing or TLS error closes this connection only: a declared length over 64 KiB at
/// once, before its body is waited for; a connection that ends inside a frame as it goes.
package final class CastConnectionHandler: ChannelDuplexHandler, RemovableChannelHandler {
    /// Bytes of the connection, as TLS decrypted them.
    package typealias InboundIn = ByteBuffer
    package typealias OutboundIn = ByteBuffer
    package typealias OutboundOut = ByteBuffer

    /// How long one sender's backlog may hold the loop before the others get a turn.
    package static let timePerTurn = TimeAmount.milliseconds(2)
    /// The pause before the next slice of a backlog. It must be in the future: NIO runs
    /// the tasks that tasks queue, and the ones already due, in the same turn, before it
    /// looks at the sockets again; a task due shortly lets the loop serve them first.
    package static let pauseBetweenSlices = TimeAmount.microseconds(100)
    /// Bytes read from a sender at a time: at most one full TLS record, and as little
    /// as a Cast message needs while the sender is quiet. The read buffer stays with the
    /// connection between reads, so a fixed 16 KiB one would cost every idle sender that.
    package static let readSize = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 1024, maximum: 16_384)
    /// Two of the largest frames may wait unsent before the sender counts as not reading;
    /// the kernel's socket buffer comes on top of this.
    package static let writeBufferWaterMark = ChannelOptions.Types.WriteBufferWaterMark(
        low: CastFraming.maxBodySize, high: 2 * CastFraming.maxBodySize)

    /// Sets the child-channel options this handler's fairness relies on, and TCP_NODELAY:
    /// a reply is one small write that must leave at once, not wait for the sender's ACK.
    package static func configure(_ bootstrap: ServerBootstrap) -> ServerBootstrap {
        bootstrap
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.recvAllocator, value: readSize)
            .childChannelOption(.maxMessagesPerRead, value: 1)
            .childChannelOption(.writeBufferWaterMark, value: writeBufferWaterMark)
    }

    private let runner: DeviceRunner
    private let logger: Logger
    private let stalledReaderTimeout: TimeAmount?
    private var id: ConnectionID?
    /// The connection's id in log lines, kept after it closed (a TLS error can come after).
    private var logName = "?"

    /// Bytes read but not handled yet: frames past this turn's budget, or read while the
    /// sender was not reading its replies, and the start of a frame still arriving. nil
    /// when there are none, so that an idle sender keeps no buffer, and NIO reuses its
    /// read buffer (it allocates a new one while this holds it).
    private var received: ByteBuffer?
    /// True while frames of `received` are handed to the device.
    private var handling = false
    /// When this sender's turn is over; nil between turns (the next message starts one).
    private var turnEnds: NIODeadline?
    private var nextSlice: Scheduled<Void>?
    /// A `read` held back until the inbox is empty and the sender reads again.
    private var readHeldBack = false
    private var stallCheck: Scheduled<Void>?
    /// How the connection is ending, as far as this side knows: an error is a reset, the
    /// stalled-reader limit is the device's doing.
    private var ending = ConnectionEnding.clean

    /// The certificate this connection's TLS session presents (device auth signs over it).
    private let tlsCertificateDER: Data?

    package init(runner: DeviceRunner, logger: Logger, stalledReaderTimeout: TimeAmount? = nil, tlsCertificateDER: Data? = nil) {
        self.runner = runner
        self.logger = logger
        self.stalledReaderTimeout = stalledReaderTimeout
        self.tlsCertificateDER = tlsCertificateDER
    }

    package func channelActive(context: ChannelHandlerContext) {
        let id = runner.nextConnectionId()
        self.id = id
        logName = "\(id)"
        runner.connectionOpened(id, channel: context.channel, tlsCertificateDER: tlsCertificateDER)
        context.fireChannelActive()
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard id != nil else { return }
        // Handled at read-complete, all the frames of one read together, so their replies
        // go out in one flush.
        let bytes = unwrapInboundIn(data)
        if received == nil {
            received = bytes
        } else {
            received!.writeImmutableBuffer(bytes)
        }
    }

    /// Whether a whole frame waits to be handled (else at most the start of one does).
    private var frameWaits: Bool { received.map(CastFraming.startsWithWholeFrame) ?? false }

    package func channelReadComplete(context: ChannelHandlerContext) {
        handleReceived(context: context)
        context.fireChannelReadComplete()
    }

    package func read(context: ChannelHandlerContext) {
        if !frameWaits, context.channel.isWritable {
            context.read()
        } else {
            readHeldBack = true
        }
    }

    package func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            stallCheck?.cancel()
            stallCheck = nil
            handleReceived(context: context)
        } else if let stalledReaderTimeout, stallCheck == nil {
            stallCheck = context.eventLoop.assumeIsolated().scheduleTask(in: stalledReaderTimeout) { [self] in
                stallCheck = nil
                guard !context.channel.isWritable else { return }
                let limit = DurationText.format(Double(stalledReaderTimeout.nanoseconds) / 1e9)
                logger.warning("sender has not read its replies for \(limit); disconnecting",
                               metadata: ["connection": "\(logName)"])
                ending = .device
                context.channel.drop()
            }
        }
        context.fireChannelWritabilityChanged()
    }

    package func channelInactive(context: ChannelHandlerContext) {
        stallCheck?.cancel()
        stallCheck = nil
        nextSlice?.cancel()
        nextSlice = nil
        if id != nil, !frameWaits, var rest = received, let truncation = CastFraming.truncation(of: &rest) {
            // The sender went in the middle of a frame: an error of its own, as any. (Whole
            // frames still waiting their turn go unhandled, as the sender has gone.)
            ending = .reset
            logger.warning("closing connection: \(truncation.description)", metadata: ["connection": "\(logName)"])
        }
        received = nil
        if let id { runner.connectionClosed(id, how: ending) }
        id = nil
        context.fireChannelInactive()
    }

    /// Hands the device what this turn allows while the sender takes its replies, leaves
    /// the rest for a later turn, and reads again once everything has been handled.
    private func handleReceived(context: ChannelHandlerContext) {
        // A reply's write can call back in (a writability change): this call goes on.
        guard !handling else { return }
        // Replies to a sender that is not reading would only pile up: its messages wait.
        let turnEnds = self.turnEnds ?? .now() + Self.timePerTurn
        self.turnEnds = turnEnds
        var failure: CastWireError?
        if var bytes = received {
            received = nil
            handling = true
            runner.batch {
                do throws(CastWireError) {
                    while context.channel.isWritable, let id, NIODeadline.now() < turnEnds,
                          let body = try CastFraming.nextBody(from: &bytes) {
                        runner.receive(try CastFraming.parse(body: body), from: id)
                    }
                } catch {
                    failure = error
                }
            }
            handling = false
            if let more = received { bytes.writeImmutableBuffer(more) }
            received = bytes.readableBytes > 0 ? bytes : nil
        }
        // A turn ends when its backlog does: the next read starts a new one. Left set, a
        // deadline from a writability change would hold the next read's frames back a slice.
        if !frameWaits { self.turnEnds = nil }
        if let failure {
            received = nil
            errorCaught(context: context, error: failure)
            return
        }
        if frameWaits, context.channel.isWritable, nextSlice == nil {
            nextSlice = context.eventLoop.assumeIsolated().scheduleTask(in: Self.pauseBetweenSlices) { [self] in
                nextSlice = nil
                self.turnEnds = nil
                handleReceived(context: context)
            }
        }
        if readHeldBack, !frameWaits, context.channel.isWritable {
            readHeldBack = false
            context.read()
        }
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Most senders close TCP without a TLS close_notify: an ordinary goodbye, not a fault.
        if let tls = error as? NIOSSLError, case .uncleanShutdown = tls {
            logger.debug("sender closed without TLS close_notify", metadata: ["connection": "\(logName)"])
            context.close(promise: nil)
            return
        }
        // One line that says why; the other connections carry on.
        ending = .reset
        let reason: String
        switch error {
        case let wire as CastWireError: reason = wire.description
        default: reason = "\(error)"
        }
        logger.warning("closing connection: \(LogText.escape(reason, limit: 300))", metadata: ["connection": "\(logName)"])
        context.channel.drop()
    }
}
