import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// Clients following castsim's event stream (`GET /api/v1/events`) for as long as a run
/// lasts, reading everything it sends, as a dashboard or a test's watcher does.
final class EventFollowers: Sendable {
    private let channels: [any Channel]
    private let received: NIOLockedValueBox<Int>

    private init(channels: [any Channel], received: NIOLockedValueBox<Int>) {
        self.channels = channels
        self.received = received
    }

    /// Opens `count` streams of `types` on the control API at `address`; returns once each
    /// has its first event (`hello`), so the device is feeding every one of them.
    static func open(_ count: Int, to address: SocketAddress, types: String, group: any EventLoopGroup) async throws -> EventFollowers {
        let received = NIOLockedValueBox(0)
        var channels: [any Channel] = []
        do {
            for _ in 0..<count {
                let started = group.next().makePromise(of: Void.self)
                let channel = try await ClientBootstrap(group: group)
                    .connectTimeout(.seconds(10))
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(Reader(received: received, started: started))
                        }
                    }
                    .connect(to: address).get()
                channels.append(channel)
                let host = "\(address.ipAddress ?? "localhost"):\(address.port ?? 80)"
                let request = "GET /api/v1/events?types=\(types) HTTP/1.1\r\nHost: \(host)\r\nAccept: text/event-stream\r\n\r\n"
                try await channel.writeAndFlush(ByteBuffer(string: request)).get()
                // A refusal (429: the control API's limit on streams) comes as an answer, not a close.
                let deadline = channel.eventLoop.scheduleTask(in: .seconds(10)) {
                    started.fail(LoadError("no event-stream hello within 10 s (refused? the control API serves at most 64 streams)"))
                }
                defer { deadline.cancel() }
                try await started.futureResult.get()
            }
        } catch {
            for channel in channels { try? await channel.close() }
            throw LoadError("event-stream follower at \(address): \(error)")
        }
        return EventFollowers(channels: channels, received: received)
    }

    /// Bytes of events received so far, over every follower.
    var bytes: Int { received.withLockedValue { $0 } }

    func close() async {
        for channel in channels { try? await channel.close() }
    }

    /// Counts what comes in; `event: hello` says the stream is on.
    private final class Reader: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let received: NIOLockedValueBox<Int>
        let started: EventLoopPromise<Void>

        init(received: NIOLockedValueBox<Int>, started: EventLoopPromise<Void>) {
            self.received = received
            self.started = started
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            received.withLockedValue { $0 += buffer.readableBytes }
            // Subscribed by the time `hello` is written (the response head can come first).
            if buffer.readableBytesView.containsHello { started.succeed() }
        }

        func channelInactive(context: ChannelHandlerContext) {
            started.fail(LoadError("the event stream closed before it said hello"))
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            started.fail(error)
            context.close(promise: nil)
        }
    }
}

extension ByteBufferView {
    fileprivate var containsHello: Bool {
        let marker = Array("event: hello".utf8)
        guard count >= marker.count else { return false }
        return indices.dropLast(marker.count - 1).contains { self[$0..<$0 + marker.count].elementsEqual(marker) }
    }
}
