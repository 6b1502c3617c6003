/// Deterministic identifiers (session ids, transport ids) from a seed, so that a
/// replayed session produces the same ids every time.
package struct IdentifierGenerator: Sendable, RandomNumberGenerator {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    /// SplitMix64: small, fast, and good enough for unique-looking ids.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A version-4 style UUID string, lowercase with dashes, as modern devices use
    /// for `sessionId` and `transportId`.
    package mutating func uuidString() -> String {
        var bytes = [UInt8]()
        for word in [next(), next()] {
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
        return DeviceIdentity.dashed(hex)
    }
}
