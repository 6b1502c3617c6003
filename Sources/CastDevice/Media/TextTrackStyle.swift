import CastWire

/// Validates a `textTrackStyle` (§6.4). The style is kept as sent; this only says whether
/// every field the receiver knows has a value a real receiver would accept.
enum TextTrackStyle {
    static let colorFields = ["foregroundColor", "backgroundColor", "edgeColor", "windowColor"]
    static let enumFields: [String: Set<String>] = [
        "edgeType": ["NONE", "OUTLINE", "DROP_SHADOW", "RAISED", "DEPRESSED"],
        "fontGenericFamily": ["SANS_SERIF", "MONOSPACED_SANS_SERIF", "SERIF", "MONOSPACED_SERIF", "CASUAL", "CURSIVE", "SMALL_CAPITALS"],
        "fontStyle": ["NORMAL", "BOLD", "BOLD_ITALIC", "ITALIC"],
        "windowType": ["NONE", "NORMAL", "ROUNDED_CORNERS"],
    ]

    static func validate(_ value: JSONValue, path: String) throws(InvalidParams) {
        guard let fields = value.objectValue else { throw InvalidParams("\(path): expected an object, got \(value.typeName)") }
        for key in fields.keys.sorted() {
            guard let field = fields[key], !field.isNull else { continue }
            let fieldPath = "\(path).\(key)"
            if colorFields.contains(key) {
                guard let text = field.stringValue, isColor(text) else {
                    throw InvalidParams("\(fieldPath): expected a color \"#RRGGBB\" or \"#RRGGBBAA\", got \(field.jsonText())")
                }
            } else if let allowed = enumFields[key] {
                guard let text = field.stringValue, allowed.contains(text) else {
                    throw InvalidParams("\(fieldPath): expected one of \(allowed.sorted().joined(separator: ", ")), got \(field.jsonText())")
                }
            } else if key == "fontScale" {
                guard let number = field.doubleValue, number > 0, number.isFinite else {
                    throw InvalidParams("\(fieldPath): expected a number > 0, got \(field.jsonText())")
                }
            } else if key == "windowRoundedCornerRadius" {
                guard let number = field.doubleValue, number >= 0, number.isFinite else {
                    throw InvalidParams("\(fieldPath): expected a number >= 0, got \(field.jsonText())")
                }
            } else if key == "fontFamily" {
                guard field.stringValue != nil else { throw InvalidParams("\(fieldPath): expected a string, got \(field.typeName)") }
            }
        }
    }

    static func isColor(_ text: String) -> Bool {
        guard text.first == "#" else { return false }
        let digits = text.dropFirst()
        return (digits.count == 6 || digits.count == 8) && digits.allSatisfy(\.isHexDigit)
    }
}
