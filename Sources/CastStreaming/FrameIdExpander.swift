/// Makes truncated counters whole again: the value with these low bits nearest the highest
/// one seen, as Open Screen expands frame ids (8 bits) and RTP timestamps (32 bits)
/// (docs/protocol/streaming.md §3.2).
public struct FrameIdExpander: Sendable, Equatable {
    /// The highest whole value seen; -1 before the first (frame ids start at 0).
    public private(set) var highest: Int64

    public init(highest: Int64 = -1) { self.highest = highest }

    /// The whole value of `low` (its 8 low bits), moving ``highest`` up when it is newer.
    public mutating func expand(_ low: UInt8) -> Int64 {
        let value = Self.expand(low, near: highest)
        highest = max(highest, value)
        return value
    }

    /// The value ending in `low` within 128 below to 127 above `reference`.
    public static func expand(_ low: UInt8, near reference: Int64) -> Int64 {
        let base = reference + 127
        let candidate = (base & ~0xFF) | Int64(low)
        return candidate > base ? candidate - 256 : candidate
    }
}
