/// Bytes from hex written as in docs/protocol/streaming.md (spaces anywhere).
func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.filter { !$0.isWhitespace }.utf8)
    precondition(digits.count % 2 == 0, "an odd number of hex digits")
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16)! }
}

extension Array where Element == UInt8 {
    func withBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T { try withUnsafeBytes(body) }
}
