/// The simulated playhead: a position anchored at a time, moving at `rate` while running.
///
/// position(now) = position + rate × (now − anchor), the same extrapolation senders do.
public struct PlayerClock: Sendable, Equatable {
    public private(set) var anchorPosition: Double
    public private(set) var anchorTime: SimTime
    public private(set) var rate: Double
    public private(set) var isRunning: Bool

    public init(position: Double = 0, at time: SimTime, rate: Double = 1, running: Bool = false) {
        anchorPosition = position
        anchorTime = time
        self.rate = rate
        isRunning = running
    }

    public func position(at now: SimTime, limit: Double? = nil) -> Double {
        let raw = isRunning ? anchorPosition + rate * max(0, now - anchorTime) : anchorPosition
        if let limit { return min(raw, limit) }
        return raw
    }

    /// When the playhead reaches `position`, if it is running towards it.
    public func time(reaching position: Double) -> SimTime? {
        guard isRunning, rate > 0 else { return nil }
        return anchorTime + max(0, position - anchorPosition) / rate
    }

    mutating func reanchor(at now: SimTime, limit: Double?) {
        anchorPosition = position(at: now, limit: limit)
        anchorTime = now
    }

    mutating func seek(to position: Double, at now: SimTime) {
        anchorPosition = position
        anchorTime = now
    }

    mutating func setRunning(_ running: Bool, at now: SimTime, limit: Double?) {
        reanchor(at: now, limit: limit)
        isRunning = running
    }

    mutating func setRate(_ newRate: Double, at now: SimTime, limit: Double?) {
        reanchor(at: now, limit: limit)
        rate = newRate
    }
}
