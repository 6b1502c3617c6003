import NIOConcurrencyHelpers
import NIOCore

/// Items handed from one thread to a task that takes all of them at once: a device's news
/// to an event stream's writer. The writer wakes once for whatever piled up while it was
/// busy, not once an item (a wake is a thread switch, and costs more than most items do).
/// A writer that falls more than `limit` items (or `byteLimit` bytes, as `size` counts them)
/// behind loses the oldest, and learns how many from ``takeDropped()``: the queue never holds
/// the one who yields back, nor more memory than it was given.
package final class BatchQueue<Element: Sendable>: Sendable {
    private struct State {
        /// A ring: a writer that does not read makes every yield drop the oldest, and that
        /// is on the device's loop, so it must not move the rest.
        var items = CircularBuffer<Element>()
        var bytes = 0
        var dropped = 0
        var waiter: CheckedContinuation<[Element]?, Never>?
        /// ``nudge()`` was called with no writer waiting: the next ``next()`` returns at once.
        var nudged = false
        var finished = false
        var onFinish: (@Sendable () -> Void)?
    }

    private let state = NIOLockedValueBox(State())
    private let limit: Int
    private let byteLimit: Int
    private let size: @Sendable (Element) -> Int

    package init(limit: Int, byteLimit: Int = .max, size: @escaping @Sendable (Element) -> Int = { _ in 0 }) {
        self.limit = limit
        self.byteLimit = byteLimit
        self.size = size
    }

    /// Adds an item, or hands it to the writer waiting for one.
    package func yield(_ item: Element) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<[Element]?, Never>? in
            guard !state.finished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.items.append(item)
            state.bytes += size(item)
            // The newest stays, however big.
            while state.items.count > 1, state.items.count > limit || state.bytes > byteLimit {
                state.bytes -= size(state.items.removeFirst())
                state.dropped += 1
            }
            return nil
        }
        waiter?.resume(returning: [item])
    }

    /// Wakes the writer with nothing (an empty batch): its turn to do something of its own,
    /// such as a keep-alive.
    package func nudge() {
        let waiter = state.withLockedValue { state -> CheckedContinuation<[Element]?, Never>? in
            guard !state.finished else { return nil }
            guard let waiter = state.waiter else {
                state.nudged = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: [])
    }

    /// No more items: the writer gets what is left, then nil. Runs the ``onFinish(_:)``
    /// action, once.
    package func finish() {
        let (waiter, onFinish) = state.withLockedValue { state -> (CheckedContinuation<[Element]?, Never>?, (@Sendable () -> Void)?) in
            guard !state.finished else { return (nil, nil) }
            state.finished = true
            defer {
                state.waiter = nil
                state.onFinish = nil
            }
            return (state.waiter, state.onFinish)
        }
        waiter?.resume(returning: nil)
        onFinish?()
    }

    /// What to do once the queue is finished, by either side (a subscription to end); at
    /// once if it is already.
    package func onFinish(_ action: @escaping @Sendable () -> Void) {
        let now = state.withLockedValue { state -> Bool in
            if state.finished { return true }
            state.onFinish = action
            return false
        }
        if now { action() }
    }

    /// How many items were dropped since the last call.
    package func takeDropped() -> Int {
        state.withLockedValue { state in
            defer { state.dropped = 0 }
            return state.dropped
        }
    }

    /// Every item waiting now, waiting for one if there is none; empty after a ``nudge()``;
    /// nil once finished (or the writer's task is cancelled) and nothing is left.
    package func next() async -> [Element]? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLockedValue { state -> [Element]?? in
                    if !state.items.isEmpty {
                        defer {
                            state.items.removeAll(keepingCapacity: true)
                            state.bytes = 0
                        }
                        return .some(Array(state.items))
                    }
                    if state.finished || Task.isCancelled { return .some(nil) }
                    if state.nudged {
                        state.nudged = false
                        return .some([])
                    }
                    state.waiter = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            finish()
        }
    }
}
