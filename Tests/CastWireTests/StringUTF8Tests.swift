import CastWire
import Testing

@Suite("Strings from bytes that must be UTF-8")
struct StringUTF8Tests {
    static func validated(_ bytes: [UInt8]) -> String? {
        bytes.withUnsafeBytes { String(validatingUTF8: $0) }
    }

    @Test("The same answer as String(validating:as:): valid text as it is, anything repaired refused")
    func sameAsTheStandardLibrary() {
        let cases: [[UInt8]] = [
            [], Array("GET_STATUS".utf8), Array("é 🎬 \u{FFFD} ✓".utf8),
            [0xEF, 0xBF, 0xBD],               // U+FFFD itself: valid
            [0xF0, 0x9F, 0x98],               // a 4-byte sequence cut short: repaired to 3 bytes, the same length
            [0x41, 0xF0, 0x9F, 0x98, 0x42],
            [0xED, 0xA0, 0x80],               // a surrogate
            [0xC0, 0xAF], [0xE0, 0x80, 0xAF], // overlong
            [0xFF], [0x80], [0xC3], [0xF4, 0x90, 0x80, 0x80], [0xEF, 0xBF], [0xEF, 0xBF, 0x41],
        ]
        for bytes in cases {
            #expect(Self.validated(bytes) == String(validating: bytes, as: UTF8.self), "\(bytes)")
        }
        // And over every 1- and 2-byte sequence, and a sweep of 3-byte ones.
        var checked = 0
        for first in 0...255 {
            let one = [UInt8(first)]
            #expect(Self.validated(one) == String(validating: one, as: UTF8.self))
            for second in 0...255 {
                let two = [UInt8(first), UInt8(second)]
                guard Self.validated(two) == String(validating: two, as: UTF8.self) else {
                    Issue.record("\(two)")
                    continue
                }
                if first >= 0xE0, second.isMultiple(of: 7) {
                    for third in stride(from: 0, through: 255, by: 5) {
                        let three = two + [UInt8(third)]
                        if Self.validated(three) != String(validating: three, as: UTF8.self) { Issue.record("\(three)") }
                        checked += 1
                    }
                }
            }
        }
        #expect(checked > 1000)
    }
}
