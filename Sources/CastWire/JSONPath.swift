/// Where a value sits inside a JSON document: `media.tracks[2].trackId`,
/// `media["http://a.test/x.mp4"].duration`.
///
/// Kept as components and written out only when a message needs it, so a key that
/// contains ": " or "." can never be mistaken for a separator.
package struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    package enum Component: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    package private(set) var components: [Component]

    package init(_ components: [Component] = []) { self.components = components }

    /// The document itself.
    package static let root = JSONPath()

    package var isRoot: Bool { components.isEmpty }

    package func appending(_ key: String) -> JSONPath {
        var path = self
        path.components.append(.key(key))
        return path
    }

    package func appending(_ index: Int) -> JSONPath {
        var path = self
        path.components.append(.index(index))
        return path
    }

    /// Dotted keys where a key is a plain identifier, `["..."]` (JSON-escaped) where it is
    /// not, `[n]` for array elements; the root is the empty string.
    package var description: String {
        var text = ""
        for component in components {
            switch component {
            case .key(let key) where Self.isPlain(key):
                if !text.isEmpty { text += "." }
                text += key
            case .key(let key):
                text += "[" + JSONValue.string(key).jsonText() + "]"
            case .index(let index):
                text += "[\(index)]"
            }
        }
        return text
    }

    /// Letters, digits, `_` and `$`, not starting with a digit.
    private static func isPlain(_ key: String) -> Bool {
        guard let first = key.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
        return key.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
        }
    }
}
