extension [UInt8] {
    /// Appends a literal's bytes in one copy: `append(contentsOf: "…".utf8)` walks them
    /// through String's generic path, a tenth of the cost of a recording's line.
    @inlinable package mutating func append(literal: StaticString) {
        literal.withUTF8Buffer { append(contentsOf: $0) }
    }

    /// Appends a string's UTF-8 bytes, read where they lie (``Swift/String/withUTF8Bytes(_:)``):
    /// `append(contentsOf: text.utf8)` takes the view at +1, a retain and a release.
    @inlinable package mutating func append(utf8Of text: String) {
        text.withUTF8Bytes { append(contentsOf: $0) }
    }
}

/// Bytes a `TextOutputStreamable` (a Double) writes itself into. A Double hands its digits
/// to `_writeASCII` from a buffer on the stack; without it (the standard library's default)
/// each would become a String first.
struct ByteSink: TextOutputStream {
    var bytes: [UInt8] = []

    mutating func write(_ string: String) { bytes.append(contentsOf: string.utf8) }

    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) { bytes.append(contentsOf: buffer) }
}
