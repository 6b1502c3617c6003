import CastWire
import NIOConcurrencyHelpers
import NIOCore

/// `fanout`: L listeners CONNECTed to receiver-0 only read; one driver sends SET_VOLUME,
/// alternating two levels, and the server broadcasts the new RECEIVER_STATUS to every
/// listener. A round's latency runs until the last listener has its copy; the next round
/// starts then.
struct FanoutWorkload: LoadWorkload {
    let listeners: Int
    /// Measured rounds.
    let requests: Int
    let warmup: Int

    /// The listeners' confirming GET_STATUS ids, far from the rounds' (1, 2, 3...): the
    /// echo server broadcasts those answers too, and a late one must not count as a round's.
    static let listenerIdBase = 1_000_000_000

    var mode: String { "fanout" }
    var echoBroadcasts: Bool { true }
    var summary: String {
        "fanout: SET_VOLUME broadcast to \(listeners) listener\(listeners == 1 ? "" : "s"), \(requests) rounds measured after \(warmup) warm-up"
    }
    var parameters: [String: JSONValue] {
        ["listeners": .number(Double(listeners)), "requests": .number(Double(requests)), "warmup": .number(Double(warmup))]
    }

    func run(against target: LoadTarget) async throws -> WorkloadResult {
        let progress = LoadProgress()
        let (listenerConnections, _) = try await target.openSenders(
            listeners, concurrency: 16, requestId: { Self.listenerIdBase + $0 }, progress: progress)
        var connections = listenerConnections
        do {
            let (drivers, _) = try await target.openSenders(
                1, concurrency: 1, requestId: { _ in Self.listenerIdBase - 1 }, progress: progress)
            connections += drivers
            let rounds = FanoutRounds(driver: drivers[0], listeners: listenerConnections.count, progress: progress)
            try await rounds.attach(listenerConnections)

            _ = try await progress.awaitPhase("the warm-up rounds", of: target, [rounds.run(firstId: 1, count: warmup, record: false)],
                                              closingOnStall: connections)
            let window = try MeasuredWindow(target)
            _ = try await progress.awaitPhase("the measured rounds", of: target,
                                              [rounds.run(firstId: 1 + warmup, count: requests, record: true)],
                                              closingOnStall: connections)
            let figures = try window.end(target)
            await LoadTarget.close(connections)

            let (latencies, delivered, replyBytes) = rounds.results
            let latency = latencies.summary()
            return WorkloadResult(metrics: [
                Metric("rounds", "rounds", Double(requests), .count, compared: false),
                Metric("rounds_per_second", "rounds/s", Double(requests) / figures.seconds, .rate),
                Metric("messages_per_second", "msgs/s", Double(delivered) / figures.seconds, .rate),
            ] + Metric.latencies(latency) + [
                Metric("server_cpu_us_per_round", "srv CPU µs/round", figures.serverMicros(per: requests), .micros),
                Metric("load_cpu_us_per_round", "load CPU µs/round", figures.ownMicros(per: requests), .micros),
                Metric("server_rss_mib", "srv RSS MiB", figures.serverAfter.map { Double($0.rssKiB) / 1024 }, .mebibytes),
                Metric("reply_bytes", "reply B", replyBytes.map(Double.init), .count),
            ], referenceReplyBytes: replyBytes)
        } catch {
            await LoadTarget.close(connections)
            throw error
        }
    }
}

/// The rounds of a fan-out. Listeners may live on several loops, so the round's state is
/// behind a lock; with one client thread it is never contended.
final class FanoutRounds: Sendable {
    private struct State {
        var currentId = 0
        var waitingFor = 0
        var sentAt: UInt64 = 0
        var remainingRounds = 0
        var record = false
        var latencies = LatencyHistogram()
        var delivered = 0
        var referenceReplyBytes: Int?
        var promise: EventLoopPromise<Void>?
    }

    private let driver: LoadConnection
    private let listeners: Int
    private let progress: LoadProgress
    private let state = NIOLockedValueBox(State())
    /// Two levels of the same text length, so every status has the same size.
    private static let levels = [CastLoadMessages.setVolume(level: 0.25), CastLoadMessages.setVolume(level: 0.75)]

    init(driver: LoadConnection, listeners: Int, progress: LoadProgress) {
        self.driver = driver
        self.listeners = listeners
        self.progress = progress
    }

    /// Makes every listener report its broadcasts here.
    func attach(_ connections: [LoadConnection]) async throws {
        for connection in connections {
            try await connection.eventLoop.submit {
                let sender = connection.sender
                sender.onReply = { [self] id, bytes in received(id, bytes: bytes) }
                sender.onClose = { [self] reason in fail("a listener's connection was lost: \(reason)") }
            }.get()
        }
        try await driver.eventLoop.submit { [self] in
            driver.sender.onClose = { [self] reason in fail("the driver's connection was lost: \(reason)") }
        }.get()
    }

    /// Plays `count` rounds with requestIds from `firstId`.
    func run(firstId: Int, count: Int, record: Bool) -> EventLoopFuture<Void> {
        let promise = driver.eventLoop.makePromise(of: Void.self)
        guard count > 0 else {
            promise.succeed()
            return promise.futureResult
        }
        state.withLockedValue {
            $0.currentId = firstId - 1
            $0.remainingRounds = count
            $0.record = record
            $0.promise = promise
        }
        sendRound()
        return promise.futureResult
    }

    var results: (latencies: LatencyHistogram, delivered: Int, referenceReplyBytes: Int?) {
        state.withLockedValue { ($0.latencies, $0.delivered, $0.referenceReplyBytes) }
    }

    private func sendRound() {
        let id = state.withLockedValue { state -> Int in
            state.currentId += 1
            state.waitingFor = listeners
            state.sentAt = LoadClock.now()
            return state.currentId
        }
        let frame = Self.levels[id % 2].frame(requestId: id, allocator: driver.channel.allocator)
        driver.channel.writeAndFlush(frame, promise: nil)
    }

    /// A listener got a frame with a requestId (called on that listener's loop).
    private func received(_ id: Int, bytes: Int) {
        let finished = state.withLockedValue { state -> EventLoopPromise<Void>?? in
            guard id == state.currentId, state.waitingFor > 0 else { return nil }
            if id == 1, state.referenceReplyBytes == nil { state.referenceReplyBytes = bytes }
            if state.record { state.delivered += 1 }
            state.waitingFor -= 1
            guard state.waitingFor == 0 else { return nil }
            if state.record { state.latencies.record(LoadClock.now() &- state.sentAt) }
            state.remainingRounds -= 1
            guard state.remainingRounds == 0 else { return .some(nil) }
            defer { state.promise = nil }
            return .some(state.promise)
        }
        guard let finished else { return }
        progress.advance()
        if let promise = finished {
            promise.succeed()
        } else {
            sendRound()
        }
    }

    private func fail(_ reason: String) {
        let promise = state.withLockedValue { state -> EventLoopPromise<Void>? in
            defer { state.promise = nil }
            return state.promise
        }
        promise?.fail(LoadError(reason))
    }
}
