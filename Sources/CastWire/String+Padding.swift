extension String {
    /// `"7".leftPadded(to: 2)` is `"07"`: hex bytes, ids, escapes.
    public func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
