import CastWire

/// Validates a `textTrackStyle` (docs/protocol/media.md §4.5). The style is kept as sent;
/// this only says whether every field the receiver knows has a value a real receiver would accept.
enum TextTrackStyle {
    static let colorFields: Set<String> = ["foregroundColor", "backgroundColor", "edgeColor", "windowColor"]
    static let enumFields: [String: [String]] = [
        "edgeType": ["NONE", "OUTLINE", "DROP_SHADOW", "RAISED", "DEPRESSED"],
        "fontGenericFamily": ["SANS_SERIF", "MONOSPACED_SANS_SERIF", "SERIF", "MONOSPACED_SERIF", "CASUAL", "CURSIVE", "SMALL_CAPITALS"],
        "fontStyle": ["NORMAL", "BOLD", "BOLD_ITALIC", "ITALIC"],
        "windowType": ["NONE", "NORMAL", "ROUNDED_CORNERS"],
    ]

    static func validate(_ reader: JSONReader) throws(JSONReadError) {
        let fields = try reader.object()
        for key in fields.keys.sorted() {
            guard let field = reader[key] else { continue }
            if colorFields.contains(key) {
                guard let text = field.value.stringValue, isColor(text) else {
                    throw field.expected("a color \"#RRGGBB\" or \"#RRGGBBAA\"")
                }
            } else if let allowed = enumFields[key] {
                guard let text = field.value.stringValue, allowed.contains(text) else {
                    throw field.expected("one of \(allowed.sorted().joined(separator: ", "))")
                }
            } else if key == "fontScale" {
                guard try field.double() > 0 else { throw field.expected("a number > 0") }
            } else if key == "windowRoundedCornerRadius" {
                guard try field.double() >= 0 else { throw field.expected("a number >= 0") }
            } else if key == "fontFamily" {
                _ = try field.string()
            }
        }
    }

    static func isColor(_ text: String) -> Bool {
        guard text.first == "#" else { return false }
        let digits = text.dropFirst()
        return (digits.count == 6 || digits.count == 8) && digits.allSatisfy(\.isASCIIHexDigit)
    }
}
