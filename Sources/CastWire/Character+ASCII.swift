extension Character {
    /// 0-9, a-f, A-F only: `isHexDigit` also takes the fullwidth forms (U+FF10…), which
    /// would pass into a UUID, a MAC address or a colour as text no device writes.
    package var isASCIIHexDigit: Bool { isASCII && isHexDigit }
}
