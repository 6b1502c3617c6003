/// A point on the simulation's time line, in seconds since the simulation started.
///
/// The device core never reads a clock: every input carries `now`, and the core answers
/// with the next deadline at which it wants to be called. Real, scaled and manual clocks
/// all live in the runtime.
public struct SimTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var seconds: Double

    public init(seconds: Double) { self.seconds = seconds }

    public static let zero = SimTime(seconds: 0)

    public static func < (lhs: SimTime, rhs: SimTime) -> Bool { lhs.seconds < rhs.seconds }
    public static func + (lhs: SimTime, rhs: Double) -> SimTime { SimTime(seconds: lhs.seconds + rhs) }
    public static func - (lhs: SimTime, rhs: SimTime) -> Double { lhs.seconds - rhs.seconds }

    public var description: String { "t=\(seconds)s" }
}

/// A transport connection (one TLS socket) to the device.
public struct ConnectionID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var rawValue: UInt64
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    public static func < (lhs: ConnectionID, rhs: ConnectionID) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "conn#\(rawValue)" }
}
