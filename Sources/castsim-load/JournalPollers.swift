import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// Clients following castsim's journal for as long as a run lasts by polling it with a
/// cursor (`GET /api/v1/journal?after=SEQ&limit=10000`, once an answer is in and `interval`
/// has passed), as a test harness without an event stream does. Each keeps one HTTP/1.1
/// connection open.
final class JournalPollers: Sendable {
    private let channels: [any Channel]
    private let tally: NIOLockedValueBox<Tally>

    struct Tally {
        var polls = 0
        var messages = 0
    }

    private init(channels: [any Channel], tally: NIOLockedValueBox<Tally>) {
        self.channels = channels
        self.tally = tally
    }

    /// Starts `count` pollers on the control API at `address`, each from the journal's end
    /// as it is now; returns once each has had its first answer.
    static func start(_ count: Int, to address: SocketAddress, every interval: TimeAmount, group: any EventLoopGroup)
        async throws -> JournalPollers
    {
        let tally = NIOLockedValueBox(Tally())
        let channels = try await ControlClients.open(count, of: "journal poller", to: address, group: group,
                                                     silence: "no answer to GET /api/v1/journal within 10 s") { host, answered in
            Poller(host: host, interval: interval, tally: tally, answered: answered)
        }
        return JournalPollers(channels: channels, tally: tally)
    }

    /// Answers and messages received so far, over every poller.
    var figures: Tally { tally.withLockedValue { $0 } }

    /// Returns once every poller has had the answer to a poll sent after this call (at once,
    /// not after its interval), so the figures count every message journaled before it. The
    /// pollers stop polling then.
    func catchUp() async throws {
        for channel in channels {
            let caughtUp = channel.eventLoop.makePromise(of: Void.self)
            try await channel.pipeline.handler(type: Poller.self).map { $0.catchUp(channel, caughtUp) }.get()
            try await caughtUp.futureResult.get()
        }
    }

    func close() async {
        for channel in channels { try? await channel.close() }
    }

    /// One poller: asks, reads the whole answer (its `Content-Length`), takes the newest
    /// `"seq"` in it as the next cursor, waits out the interval, asks again.
    private final class Poller: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let host: String
        let interval: TimeAmount
        let tally: NIOLockedValueBox<Tally>
        let answered: EventLoopPromise<Void>
        /// Read and written on the channel's loop only.
        private let state = NIOLockedValueBox(State())

        struct State {
            var cursor: Int?
            var answer = ByteBuffer()
            var next: Scheduled<Void>?
            /// Polls sent, and answered.
            var asked = 0
            var done = 0
            /// Set by ``catchUp(_:_:)``: completed by the answer to a poll sent after it.
            var catchingUp: (after: Int, promise: EventLoopPromise<Void>)?
        }

        init(host: String, interval: TimeAmount, tally: NIOLockedValueBox<Tally>, answered: EventLoopPromise<Void>) {
            self.host = host
            self.interval = interval
            self.tally = tally
            self.answered = answered
        }

        func channelActive(context: ChannelHandlerContext) {
            ask(context.channel)
            context.fireChannelActive()
        }

        /// On the channel's loop: the next poll now, unless one is on its way (its answer asks
        /// again at once); `caughtUp` completes with the answer to a poll sent from now on.
        func catchUp(_ channel: any Channel, _ caughtUp: EventLoopPromise<Void>) {
            let idle = state.withLockedValue { state -> Bool in
                state.catchingUp = (state.asked, caughtUp)
                state.next?.cancel()
                state.next = nil
                return state.asked == state.done
            }
            if idle { ask(channel) }
        }

        private func ask(_ channel: any Channel) {
            // The first asks for the newest message alone: the cursor starts at the end.
            let query = state.withLockedValue { state in
                state.asked += 1
                return state.cursor
            }.map { "after=\($0)&limit=10000" } ?? "limit=1"
            channel.writeAndFlush(ByteBuffer(string: "GET /api/v1/journal?\(query) HTTP/1.1\r\nHost: \(host)\r\n\r\n"), promise: nil)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            enum Then { case wait, askLater, askNow, stop(EventLoopPromise<Void>), refused(String) }
            let then = state.withLockedValue { state -> Then in
                state.answer.writeBuffer(&buffer)
                guard let (status, body) = Self.answer(in: state.answer) else { return .wait }
                // A refusal (a token the control API wants, say) ends the run with its reason.
                guard status.hasPrefix("HTTP/1.1 200") else {
                    return .refused("\(status): \(String(buffer: body).prefix(300))")
                }
                let (messages, newest) = Self.sequences(in: body)
                state.answer.clear()
                state.cursor = newest ?? state.cursor ?? 0
                state.done += 1
                tally.withLockedValue {
                    $0.polls += 1
                    $0.messages += messages
                }
                guard let catchingUp = state.catchingUp else { return .askLater }
                guard state.done > catchingUp.after else { return .askNow }
                state.catchingUp = nil
                return .stop(catchingUp.promise)
            }
            let channel = context.channel
            switch then {
            case .wait: return
            case .refused(let reason):
                answered.fail(LoadError("GET /api/v1/journal answered \(reason)"))
                context.close(promise: nil)
                return
            case .askNow: ask(channel)
            case .stop(let caughtUp): caughtUp.succeed()
            case .askLater:
                let next = context.eventLoop.scheduleTask(in: interval) { [self] in ask(channel) }
                state.withLockedValue { $0.next = next }
            }
            answered.succeed()
        }

        func channelInactive(context: ChannelHandlerContext) {
            let caughtUp = state.withLockedValue { state in
                state.next?.cancel()
                defer { state.catchingUp = nil }
                return state.catchingUp?.promise
            }
            caughtUp?.fail(LoadError("the control API closed the connection"))
            answered.fail(LoadError("the control API closed the connection"))
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            answered.fail(error)
            context.close(promise: nil)
        }

        /// The status line and the body of a whole answer, once all of it is in (its headers
        /// and `Content-Length` bytes after them); nil while more is to come.
        static func answer(in bytes: ByteBuffer) -> (status: String, body: ByteBuffer)? {
            bytes.withUnsafeReadableBytes { raw -> (status: String, start: Int, length: Int)? in
                guard let headEnd = find(Array("\r\n\r\n".utf8), in: raw, from: 0) else { return nil }
                let lines = String(decoding: raw[..<headEnd], as: UTF8.self).split(separator: "\r\n")
                guard let line = lines.first(where: { $0.lowercased().hasPrefix("content-length:") }),
                      let length = Int(String(line.dropFirst("content-length:".count).drop { $0 == " " }))
                else { return nil }
                let start = headEnd + 4
                return raw.count - start >= length ? (String(lines.first ?? ""), start, length) : nil
            }.flatMap { found in
                bytes.getSlice(at: bytes.readerIndex + found.start, length: found.length).map { (found.status, $0) }
            }
        }

        /// How many messages an answer has, and the newest one's number: each message has one
        /// `"seq":N,"sourceId":` (its keys are sorted; a payload's own `seq` is not followed by
        /// the message's `sourceId`), the newest last.
        static func sequences(in body: ByteBuffer) -> (count: Int, newest: Int?) {
            body.withUnsafeReadableBytes { bytes in
                let marker = Array(#""seq":"#.utf8)
                var count = 0
                var newest: Int?
                var index = 0
                let next = Array(#","sourceId":"#.utf8)
                while let found = find(marker, in: bytes, from: index) {
                    index = found + marker.count
                    var value = 0
                    while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                        value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                        index += 1
                    }
                    guard matches(next, in: bytes, at: index) else { continue }
                    count += 1
                    newest = value
                }
                return (count, newest)
            }
        }

        /// Where `marker` first is in `bytes` from `start` on.
        static func find(_ marker: [UInt8], in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
            var index = start
            while index <= bytes.count - marker.count {
                if bytes[index] == marker[0], matches(marker, in: bytes, at: index) { return index }
                index += 1
            }
            return nil
        }

        /// Whether `bytes` has `marker` at `index`.
        static func matches(_ marker: [UInt8], in bytes: UnsafeRawBufferPointer, at index: Int) -> Bool {
            index >= 0 && index + marker.count <= bytes.count && marker.indices.allSatisfy { bytes[index + $0] == marker[$0] }
        }
    }
}
