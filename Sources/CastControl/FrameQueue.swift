import NIOConcurrencyHelpers
import NIOCore

/// The frames waiting for one event stream's writer. The writer takes all of them at once,
/// so a busy device's events go out in one write and flush, not one each; a writer that
/// falls more than `limit` frames behind loses the oldest (the stream never holds the
/// device back).
package final class FrameQueue: Sendable {
    private struct State {
        var frames: [ByteBuffer] = []
        var waiter: CheckedContinuation<[ByteBuffer]?, Never>?
        var finished = false
    }

    private let state = NIOLockedValueBox(State())
    private let limit: Int

    package init(limit: Int) { self.limit = limit }

    /// Adds a frame, or hands it to the writer waiting for one.
    package func yield(_ frame: ByteBuffer) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<[ByteBuffer]?, Never>? in
            guard !state.finished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.frames.append(frame)
            if state.frames.count > limit { state.frames.removeFirst(state.frames.count - limit) }
            return nil
        }
        waiter?.resume(returning: [frame])
    }

    /// No more frames: the writer gets what is left, then nil.
    package func finish() {
        let waiter = state.withLockedValue { state -> CheckedContinuation<[ByteBuffer]?, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Every frame waiting now, waiting for one if there is none; nil once finished (or the
    /// writer's task is cancelled) and nothing is left.
    package func next() async -> [ByteBuffer]? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLockedValue { state -> [ByteBuffer]?? in
                    if !state.frames.isEmpty {
                        defer { state.frames.removeAll(keepingCapacity: true) }
                        return .some(state.frames)
                    }
                    if state.finished || Task.isCancelled { return .some(nil) }
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
