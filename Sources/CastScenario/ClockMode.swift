/// How simulation time relates to wall time. Media and scenario time follow it; a
/// sender's liveness (heartbeats, the idle timeout) is real time whatever it is.
public enum ClockMode: Sendable, Equatable {
    /// Simulation time is wall time since start.
    case real
    /// Simulation time runs `factor` times faster than wall time (`--speed 10`).
    case scaled(Double)
    /// Simulation time moves only when told to (tests, scenario steps, the control surface).
    case manual

    /// real, scaled or manual.
    public var name: String {
        switch self {
        case .real: "real"
        case .scaled: "scaled"
        case .manual: "manual"
        }
    }
}
