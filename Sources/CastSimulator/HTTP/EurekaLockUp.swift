import NIOConcurrencyHelpers

/// A device that locks up after too many eureka_info polls (JBL Link, Harman Kardon:
/// `quirks.eureka.crashAfterPolls`): it counts the polls of both ports, and once past the
/// limit holds every request unanswered until the device stops.
final class EurekaLockUp: Sendable {
    enum Poll {
        case answer
        /// This poll locks the device up: the caller tells the device, then waits.
        case lockingUp
        case lockedUp
    }

    private enum State {
        case counting(Int)
        case locked([CheckedContinuation<Void, Never>])
        case released
    }

    let limit: Int?
    private let state = NIOLockedValueBox(State.counting(0))

    init(limit: Int?) { self.limit = limit }

    func poll() -> Poll {
        guard let limit else { return .answer }
        return state.withLockedValue { state in
            switch state {
            case .counting(let count) where count < limit:
                state = .counting(count + 1)
                return .answer
            case .counting:
                state = .locked([])
                return .lockingUp
            case .locked, .released:
                return .lockedUp
            }
        }
    }

    /// Returns when the device stops (at once if it has).
    func hold() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLockedValue { state in
                guard case .locked(var waiting) = state else { return true }
                waiting.append(continuation)
                state = .locked(waiting)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// The device stops: the held requests end.
    func release() {
        let waiting = state.withLockedValue { state in
            defer { state = .released }
            if case .locked(let waiting) = state { return waiting }
            return []
        }
        for continuation in waiting { continuation.resume() }
    }
}
