#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension String {
    /// `bytes` as a string if they are valid UTF-8, else nil: what `String(validating:as:)`
    /// answers, without its generic path, which looks up type metadata on every call (1 %
    /// of a GET_STATUS round trip in perf: every id, namespace, key and value of a message
    /// goes through here). Valid bytes decode to themselves; repaired ones do not (a
    /// replacement character is written where an invalid sequence was, which is never the
    /// same bytes).
    package init?(validatingUTF8 bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else {
            self = ""
            return
        }
        let text = String(decoding: UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: bytes.count), as: UTF8.self)
        guard text.utf8.count == bytes.count else { return nil }
        let same = text.utf8.withContiguousStorageIfAvailable { decoded in
            decoded.baseAddress.map { memcmp($0, base, bytes.count) == 0 } ?? false
        } ?? text.utf8.elementsEqual(bytes)
        guard same else { return nil }
        self = text
    }

    package init?(validatingUTF8 bytes: UnsafeBufferPointer<UInt8>) {
        self.init(validatingUTF8: UnsafeRawBufferPointer(bytes))
    }
}

extension String {
    /// Calls `body` with the string's UTF-8 bytes where they lie. `withUTF8` needs a
    /// mutable string, and the copy made for it is a retain and a release of the storage:
    /// on the device's loop a few nanoseconds for every string framed or parsed, and on a
    /// recorder's writer a cache line that the device's core owns. A string whose bytes are
    /// not in one piece (bridged from Objective-C) is made native on the way, as `withUTF8`
    /// does.
    @inlinable package func withUTF8Bytes<Result, Failure: Error>(
        _ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let inPlace = utf8.withContiguousStorageIfAvailable { bytes in
            Swift.Result { () throws(Failure) -> Result in try body(bytes) }
        }
        if let inPlace { return try inPlace.get() }
        var copy = self
        return try copy.withUTF8 { bytes in Swift.Result { () throws(Failure) -> Result in try body(bytes) } }.get()
    }
}
