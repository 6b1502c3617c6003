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
        let channels = try await ControlClients.open(
            count, of: "event-stream follower", to: address, group: group,
            silence: "no event-stream hello within 10 s",
            request: { host in "GET /api/v1/events?types=\(types) HTTP/1.1\r\nHost: \(host)\r\nAccept: text/event-stream\r\n\r\n" }
        ) { _, started in
            Reader(received: received, started: started)
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
            // A refusal (a token the control API wants, its limit on streams) says why.
            let text = String(buffer: buffer)
            if text.hasPrefix("HTTP/1.1 "), !text.hasPrefix("HTTP/1.1 200") {
                // "\r\n" is one Character: the head's lines split on it.
                let status = text.split(separator: "\r\n", maxSplits: 1).first ?? ""
                let body = text.firstRange(of: "\r\n\r\n").map { text[$0.upperBound...].prefix(300) } ?? ""
                started.fail(LoadError("GET /api/v1/events answered \(status): \(body)"))
                context.close(promise: nil)
                return
            }
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
