import CastWire

/// The EMP `texttrackstyle` command's settings (docs/protocol/emp.md §3.5: the player's
/// caption settings, `{backgroundColor, backgroundOpacity, color, edgeStyle, fontFamily,
/// fontPercent, textOpacity, windowColor, windowOpacity}`) as a Cast `textTrackStyle`, so
/// MEDIA_STATUS shows what the EMP sender chose. Values the mapping does not know are left out.
enum EMPTextTrackStyle {
    static func castStyle(_ settings: JSONValue) -> JSONValue? {
        guard case .object(let fields) = settings else { return nil }
        var style: [String: JSONValue] = [:]
        func color(_ colorKey: String, _ opacityKey: String, into castKey: String) {
            guard let rgb = fields[colorKey]?.stringValue.flatMap(hexColor) else { return }
            let opacity = fields[opacityKey].flatMap(number) ?? 1
            let alpha = Int((opacity.clamped(to: 0...1) * 255).rounded())
            style[castKey] = .string(rgb + hex(alpha))
        }
        color("color", "textOpacity", into: "foregroundColor")
        color("backgroundColor", "backgroundOpacity", into: "backgroundColor")
        color("windowColor", "windowOpacity", into: "windowColor")
        let edges = ["none": "NONE", "raised": "RAISED", "depressed": "DEPRESSED", "uniform": "OUTLINE", "dropshadow": "DROP_SHADOW"]
        if let edge = fields["edgeStyle"]?.stringValue.flatMap({ edges[$0.lowercased()] }) { style["edgeType"] = .string(edge) }
        if let scale = fields["fontPercent"].flatMap(number), scale > 0 {
            style["fontScale"] = .number(scale)
        }
        let families = [
            "proportionalsansserif": "SANS_SERIF", "monospacesansserif": "MONOSPACED_SANS_SERIF", "proportionalserif": "SERIF",
            "monospaceserif": "MONOSPACED_SERIF", "casual": "CASUAL", "script": "CURSIVE", "small-caps": "SMALL_CAPITALS",
        ]
        if let family = fields["fontFamily"]?.stringValue {
            if let generic = families[family.lowercased()] {
                style["fontGenericFamily"] = .string(generic)
            } else if !family.isEmpty {
                style["fontFamily"] = .string(family)
            }
        }
        return style.isEmpty ? nil : .object(style)
    }

    /// A number, or a string of one (the player's settings are strings); never NaN or
    /// infinite, which `Double("nan")` would give.
    private static func number(_ value: JSONValue) -> Double? {
        guard let number = value.doubleValue ?? value.stringValue.flatMap(Double.init), number.isFinite else { return nil }
        return number
    }

    /// `#RGB` or `#RRGGBB` as `#RRGGBB`, upper case.
    private static func hexColor(_ text: String) -> String? {
        guard text.first == "#" else { return nil }
        let digits = Array(text.dropFirst().uppercased())
        guard digits.allSatisfy(\.isASCIIHexDigit) else { return nil }
        switch digits.count {
        case 3: return "#" + String(digits.flatMap { [$0, $0] })
        case 6: return "#" + String(digits)
        default: return nil
        }
    }

    private static func hex(_ value: Int) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[value / 16], digits[value % 16]])
    }
}
