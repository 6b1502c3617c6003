/// Finds the bytes a JSON string has to escape (the control characters, `"` and `\`) eight
/// at a time: a recording's writer and the event streams pass every id, namespace and
/// payload through here, and nearly none of them has one.
package enum JSONEscapeScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// Whether any byte of `word` is below `limit` (at most 0x80): a byte's subtraction
    /// borrows into its high bit only if it was below, and bytes of 0x80 and above are
    /// masked out by `~word`. A borrow can carry a false mark into a higher byte, but only
    /// after a true one, so the answer is exact.
    @inline(__always)
    private static func hasByte(below limit: UInt64, in word: UInt64) -> Bool {
        (word &- ones &* limit) & ~word & highs != 0
    }

    /// Whether any byte of `word` is to be escaped in a JSON string.
    @inline(__always)
    private static func mayEscape(_ word: UInt64) -> Bool {
        hasByte(below: 0x20, in: word) || hasByte(below: 1, in: word ^ (ones &* 0x22)) || hasByte(below: 1, in: word ^ (ones &* 0x5C))
    }

    @inline(__always)
    private static func escapes(_ byte: UInt8) -> Bool { byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") }

    /// The index of the first byte from `start` on that a JSON string escapes, or the end.
    package static func firstEscaped(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        if let base = bytes.baseAddress {
            while index + 8 <= bytes.count, !mayEscape(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)) { index += 8 }
        }
        while index < bytes.count, !escapes(bytes[index]) { index += 1 }
        return index
    }

    /// Whether any byte is a control character (JSON text with none is on one line).
    package static func hasControlByte(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        if let base = bytes.baseAddress {
            while index + 8 <= bytes.count {
                if hasByte(below: 0x20, in: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)) { return true }
                index += 8
            }
        }
        while index < bytes.count {
            if bytes[index] < 0x20 { return true }
            index += 1
        }
        return false
    }
}
