import NIOConcurrencyHelpers

/// Items handed from one thread to a task that takes all of them at once: a device's news
/// to an event stream's writer. The writer wakes once for whatever piled up while it was
/// busy, not once an item (a wake is a thread switch, and costs more than most items do).
/// A writer that falls more than `limit` items behind loses the oldest: the queue never
/// holds the one who yields back.
package final class BatchQueue<Element: Sendable>: Sendable {
    private struct State {
        var items: [Element] = []
        var waiter: CheckedContinuation<[Element]?, Never>?
        /// ``nudge()`` was called with no writer waiting: the next ``next()`` returns at once.
        var nudged = false
        var finished = false
        var onFinish: (@Sendable () -> Void)?
    }

    private let state = NIOLockedValueBox(State())
    private let limit: Int

    package init(limit: Int) { self.limit = limit }

    /// Adds an item, or hands it to the writer waiting for one.
    package func yield(_ item: Element) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<[Element]?, Never>? in
            guard !state.finished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.items.append(item)
            if state.items.count > limit { state.items.removeFirst(state.items.count - limit) }
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

    /// Every item waiting now, waiting for one if there is none; empty after a ``nudge()``;
    /// nil once finished (or the writer's task is cancelled) and nothing is left.
    package func next() async -> [Element]? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLockedValue { state -> [Element]?? in
                    if !state.items.isEmpty {
                        defer { state.items.removeAll(keepingCapacity: true) }
                        return .some(state.items)
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
