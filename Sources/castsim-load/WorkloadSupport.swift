import CastWire
import NIOConcurrencyHelpers
import NIOCore

/// Replies (or rounds, or connections) done so far across every loop, so a server that
/// stops answering is noticed instead of waited for forever.
final class LoadProgress: Sendable {
    private let done = NIOLockedValueBox(0)

    func advance() { done.withLockedValue { $0 += 1 } }

    var value: Int { done.withLockedValue { $0 } }

    /// Waits for every future of a phase. When nothing advances for `stallTimeout`,
    /// closes `connections` (which fails the futures) and throws naming the phase.
    func awaitPhase<T: Sendable>(_ phase: String, of target: LoadTarget, _ futures: [EventLoopFuture<T>],
                                 closingOnStall connections: [LoadConnection],
                                 stallTimeout: TimeAmount = .seconds(10)) async throws -> [T] {
        guard let loop = futures.first?.eventLoop else { return [] }
        let stalled = NIOLockedValueBox(false)
        let watch = NIOLockedValueBox((last: value, quietSeconds: 0))
        let watchdog = loop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { task in
            let now = self.value
            let quiet = watch.withLockedValue { state -> Int in
                state.quietSeconds = now == state.last ? state.quietSeconds + 1 : 0
                state.last = now
                return state.quietSeconds
            }
            if TimeAmount.seconds(Int64(quiet)) >= stallTimeout {
                stalled.withLockedValue { $0 = true }
                task.cancel()
                for connection in connections { connection.channel.close(promise: nil) }
            }
        }
        defer { watchdog.cancel() }
        do {
            return try await EventLoopFuture.whenAllSucceed(futures, on: loop).get()
        } catch {
            if stalled.withLockedValue({ $0 }) {
                throw LoadError("\(target.name) stopped answering during \(phase): nothing for \(stallTimeout.nanoseconds / 1_000_000_000) s (\(value) done)")
            }
            throw LoadError("\(phase) against \(target.name) failed: \(error)")
        }
    }
}

/// One sender asking GET_STATUS again and again, each request after the answer to the
/// last, on its channel's loop: a closed loop, so the latency is the server's answer time
/// plus the network, never a queue the generator built. Paced, a request also waits for
/// its turn (`start + k × interval`), so the server is measured below its limit; an answer
/// that comes after the next turn is due is followed by the next request at once.
final class RequestLoop {
    private let connection: LoadConnection
    private let sender: LoadSenderHandler
    private let progress: LoadProgress
    private let record: Bool
    private let promise: EventLoopPromise<[UInt64]>
    private var nextId: Int
    private var remaining: Int
    private var sentAt: UInt64 = 0
    private var samples: [UInt64] = []
    /// Paced: the time between a sender's turns, and when its next one is.
    private let pace: Pace?
    private var nextTurn = NIODeadline.now()

    /// A paced sender's turns: every `interval`, the first one `offset` after the start
    /// (senders' turns spread evenly over an interval, not all at once).
    struct Pace {
        var interval: TimeAmount
        var offset: TimeAmount

        /// The pace of sender `index` of `senders` sharing `rate` requests a second.
        init(rate: Double, sender index: Int, of senders: Int) {
            let interval = Double(senders) / rate
            self.interval = .nanoseconds(Int64(interval * 1e9))
            offset = .nanoseconds(Int64(interval * 1e9 * Double(index) / Double(senders)))
        }
    }

    private init(connection: LoadConnection, firstId: Int, count: Int, record: Bool, progress: LoadProgress, pace: Pace?) {
        self.connection = connection
        self.pace = pace
        sender = connection.sender
        nextId = firstId
        remaining = count
        self.record = record
        self.progress = progress
        promise = connection.eventLoop.makePromise()
        if record { samples.reserveCapacity(count) }
    }

    /// Sends `count` requests with ids from `firstId`; the future has their latencies in
    /// nanoseconds when `record`, else nothing.
    static func run(_ connection: LoadConnection, firstId: Int, count: Int, record: Bool, progress: LoadProgress, pace: Pace? = nil)
        -> EventLoopFuture<[UInt64]>
    {
        connection.eventLoop.flatSubmit {
            guard count > 0 else { return connection.eventLoop.makeSucceededFuture([]) }
            let loop = RequestLoop(connection: connection, firstId: firstId, count: count, record: record, progress: progress,
                                   pace: pace)
            loop.start()
            return loop.promise.futureResult
        }
    }

    private func start() {
        // The closures hold the loop until it ends; each end clears them.
        sender.onReply = { [self] id, _ in answered(id) }
        sender.onClose = { [self] reason in
            sender.onReply = nil
            promise.fail(LoadError("a sender's connection was lost after \(nextId - 1) requests: \(reason)"))
        }
        nextTurn = .now() + (pace?.offset ?? .zero)
        sendOnTurn()
    }

    /// Sends the next request at its turn, or at once if the turn has passed (or the loop
    /// is not paced).
    private func sendOnTurn() {
        guard let pace else { return sendNext() }
        let turn = nextTurn
        nextTurn = turn + pace.interval
        guard turn > .now() else { return sendNext() }
        connection.eventLoop.assumeIsolated().scheduleTask(deadline: turn) { [self] in sendNext() }
    }

    private func sendNext() {
        let frame = CastLoadMessages.getStatus.frame(requestId: nextId, allocator: connection.channel.allocator)
        sentAt = LoadClock.now()
        connection.channel.writeAndFlush(frame, promise: nil)
    }

    private func answered(_ id: Int) {
        guard id == nextId else { return }
        if record { samples.append(LoadClock.now() &- sentAt) }
        progress.advance()
        remaining -= 1
        nextId += 1
        if remaining == 0 {
            sender.onReply = nil
            sender.onClose = nil
            promise.succeed(samples)
        } else {
            sendOnTurn()
        }
    }
}

/// The start of a measured phase: the clock, the server's figures, the generator's CPU.
struct MeasuredWindow: Sendable {
    let startedAt: UInt64
    let serverBefore: ServerSample?
    let ownCPUBefore: Double

    init(_ target: LoadTarget) throws {
        serverBefore = try target.pid.map(ProcessFigures.sample(pid:))
        ownCPUBefore = ProcessFigures.ownCPUSeconds()
        startedAt = LoadClock.now()
    }

    /// Ends the phase: its length and what it cost.
    func end(_ target: LoadTarget) throws -> Figures {
        let seconds = Double(LoadClock.now() - startedAt) / 1e9
        let ownCPU = ProcessFigures.ownCPUSeconds() - ownCPUBefore
        let serverAfter = try target.pid.map(ProcessFigures.sample(pid:))
        var serverCPU: Double?
        if let serverBefore, let serverAfter {
            serverCPU = Double(serverAfter.cpuTicks - serverBefore.cpuTicks) / ProcessFigures.ticksPerSecond
        }
        return Figures(seconds: seconds, serverCPUSeconds: serverCPU, ownCPUSeconds: ownCPU,
                       serverBefore: serverBefore, serverAfter: serverAfter)
    }

    struct Figures: Sendable {
        var seconds: Double
        var serverCPUSeconds: Double?
        var ownCPUSeconds: Double
        var serverBefore: ServerSample?
        var serverAfter: ServerSample?

        /// Server CPU per unit of work, in µs.
        func serverMicros(per count: Int) -> Double? { serverCPUSeconds.map { $0 * 1e6 / Double(count) } }
        func ownMicros(per count: Int) -> Double { ownCPUSeconds * 1e6 / Double(count) }
    }
}

extension LoadTarget {
    /// Opens `count` senders, at most `concurrency` handshakes at a time, each CONNECTed
    /// to receiver-0 and confirmed by a GET_STATUS answer (id from `requestId`), so the
    /// server has registered every one before the workload starts. Returns them with
    /// the body size of the first answer.
    func openSenders(_ count: Int, concurrency: Int, requestId: @escaping @Sendable (Int) -> Int,
                     progress: LoadProgress) async throws -> (connections: [LoadConnection], replyBytes: Int?) {
        let opened = NIOLockedValueBox<[LoadConnection]>([])
        let next = NIOLockedValueBox(0)
        let target = self
        do {
            let sizes = try await withThrowingTaskGroup(of: Int?.self) { group in
                for _ in 0..<min(concurrency, count) {
                    group.addTask {
                        var size: Int?
                        while case let index = next.withLockedValue({ value -> Int in defer { value += 1 }; return value }),
                              index < count {
                            let connection = try await LoadConnection.open(target).get()
                            opened.withLockedValue { $0.append(connection) }
                            let bytes = try await connection.connectToReceiver(requestId: requestId(index)).get()
                            if size == nil { size = bytes }
                            progress.advance()
                        }
                        return size
                    }
                }
                var sizes: [Int?] = []
                for try await size in group { sizes.append(size) }
                return sizes
            }
            return (opened.withLockedValue { $0 }, sizes.compactMap { $0 }.first)
        } catch {
            await Self.close(opened.withLockedValue { $0 })
            throw error
        }
    }

    /// Closes every connection and waits until they are closed.
    static func close(_ connections: [LoadConnection]) async {
        let closing = connections.map { $0.close() }
        for future in closing { try? await future.get() }
    }
}
