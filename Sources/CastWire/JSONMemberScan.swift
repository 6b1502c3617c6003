/// One string member of a JSON object read from its text, without parsing the rest: the
/// `type` of a payload castsim encoded itself, for a writer that copies that payload as it
/// is. Made for valid, compact text; anything it does not expect makes it ``Result/unsure``,
/// and the caller parses the text instead.
package enum JSONMemberScan {
    package enum Result: Equatable, Sendable {
        /// The member is there, a string without escapes.
        case string(String)
        /// The object has no such member, or it is no string.
        case absent
        /// Not an object, not valid, or an escape in the way: parse to know.
        case unsure
    }

    /// The top-level member `key` of the object `text` is.
    package static func stringMember(_ key: String, of text: String) -> Result {
        return text.withUTF8Bytes { bytes in
            var scanner = Scanner(bytes: bytes)
            return scanner.stringMember(key)
        }
    }

    /// The top-level member `key` of the object `text` is, when it is an integer; the last
    /// one given, as the parser reads a name given twice. For text the parser refused: it
    /// reads members up to where the text stops making sense, skipping the values of the
    /// others by their brackets at any depth.
    package static func integerMember(_ key: String, of text: String) -> Int? {
        text.withUTF8Bytes { bytes in
            var scanner = Scanner(bytes: bytes)
            return scanner.integerMember(key)
        }
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        private mutating func skipSpace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
        }

        private mutating func skip(_ byte: UInt8) -> Bool {
            guard current == byte else { return false }
            index += 1
            return true
        }

        /// Past the string that starts here: where its text is, and whether it holds an escape.
        private mutating func string() -> (text: Range<Int>, escaped: Bool)? {
            guard skip(UInt8(ascii: "\"")) else { return nil }
            let start = index
            var escaped = false
            while let byte = current {
                if byte == UInt8(ascii: "\\") {
                    escaped = true
                    index += 2
                } else if byte == UInt8(ascii: "\"") {
                    index += 1
                    return (start..<(index - 1), escaped)
                } else {
                    index += 1
                }
            }
            return nil
        }

        /// Past a value of any kind: strings skipped whole, brackets counted.
        private mutating func value() -> Bool {
            switch current {
            case nil: return false
            case UInt8(ascii: "\""): return string() != nil
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while let byte = current {
                    switch byte {
                    case UInt8(ascii: "\""):
                        guard string() != nil else { return false }
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 {
                            index += 1
                            return true
                        }
                    default: break
                    }
                    index += 1
                }
                return false
            default:
                // A number, true, false or null: up to what ends it.
                let start = index
                while let byte = current, byte != UInt8(ascii: ","), byte != UInt8(ascii: "}"), byte != UInt8(ascii: "]"),
                      byte != 0x20, byte != 0x09, byte != 0x0A, byte != 0x0D {
                    index += 1
                }
                return index > start
            }
        }

        mutating func integerMember(_ key: String) -> Int? {
            skipSpace()
            guard skip(UInt8(ascii: "{")) else { return nil }
            var found: Int?
            while true {
                skipSpace()
                guard let name = string() else { return found }
                skipSpace()
                guard skip(UInt8(ascii: ":")) else { return found }
                skipSpace()
                let start = index
                guard value() else { return found }
                if !name.escaped, key.utf8.elementsEqual(UnsafeBufferPointer(rebasing: bytes[name.text])) {
                    // A JSON number's characters only (Double also reads "0x10", "inf" and "nan"), and
                    // an integer as JSONValue.intValue takes one.
                    let token = UnsafeBufferPointer(rebasing: bytes[start..<index])
                    let isNumber = token.allSatisfy { (0x30...0x39).contains($0) || $0 == 0x2D || $0 == 0x2B || $0 == 0x2E || $0 | 0x20 == 0x65 }
                    found = isNumber ? Double(String(decoding: token, as: UTF8.self)).flatMap { JSONValue.number($0).intValue } : nil
                }
                skipSpace()
                guard skip(UInt8(ascii: ",")) else { return found }
            }
        }

        mutating func stringMember(_ key: String) -> Result {
            skipSpace()
            guard skip(UInt8(ascii: "{")) else { return .unsure }
            skipSpace()
            if skip(UInt8(ascii: "}")) { return .absent }
            while true {
                skipSpace()
                // A key written with escapes could still be `key`: only a parse can say.
                guard let name = string(), !name.escaped else { return .unsure }
                skipSpace()
                guard skip(UInt8(ascii: ":")) else { return .unsure }
                skipSpace()
                if key.utf8.elementsEqual(UnsafeBufferPointer(rebasing: bytes[name.text])) {
                    guard current == UInt8(ascii: "\"") else { return value() ? .absent : .unsure }
                    guard let member = string(), !member.escaped else { return .unsure }
                    return .string(String(decoding: UnsafeBufferPointer(rebasing: bytes[member.text]), as: UTF8.self))
                }
                guard value() else { return .unsure }
                skipSpace()
                if skip(UInt8(ascii: ",")) { continue }
                return skip(UInt8(ascii: "}")) ? .absent : .unsure
            }
        }
    }
}
