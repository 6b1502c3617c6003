import CastWire
import Foundation

/// An EMP sender whose decoding of the receiver's custom-namespace messages castsim must satisfy.
///
/// The old Android `AndroidClientCast` is deliberately not a case: docs/protocol/emp.md gives
/// only fragments of its parser (`track.getInt("id")` §4.1, `getInt("volume")` §4.3, `getInt` for
/// `durationchange` §4.0, `program.asset` must be an object §4.5), not enough for a rule set that
/// would say "accepted" with any confidence. The raw value starts each problem: "iOS: …", "Enigma: …".
package enum EMPSender: String, CaseIterable, Sendable {
    /// `iOSClientCast` v4.1.0: Swift `Decodable` (emp.md §4.0 table, §4.1–§4.10, §6).
    case iOS
    /// `EnigmaRiverAndroidCast` r3.8.2: `org.json` getters (emp.md §4.0 table, §4.1, §4.9).
    case androidEnigma = "Enigma"
}

/// The decoding rules of the EMP senders, applied to what castsim sends on
/// `urn:x-cast:com.ericsson.cast.receiver`, so a test fails on any message a real sender rejects.
///
/// Each problem names the sender and the JSON path: `iOS: data.tracksInfo.tracks[0].id: missing`.
///
/// **iOS** (Swift `Decodable`, emp.md §4, §6):
/// - The payload is a JSON object whose `type` is exactly one of the eleven types of
///   `MessageType.swift` (emp.md §4.0); any other, including the real receiver's `assetchanged` and
///   `liveDelay`, and `timeshiftenabled`, is `unsupportedMessage` (emp.md §6.2).
/// - Required keys must be present and not null; optional ones (`program.startTime`/`endTime`,
///   the entitlement's bitrates and `maxResHeight`, the error's `code` and `message`) may be
///   missing or null, as synthesized `decodeIfPresent` allows, but must have the right type otherwise.
/// - `Int`/`Int64` need an integral number within Int64 (`segmentmissing` 12.5 is rejected,
///   emp.md §4.7); `1.0` cannot be told from `1` once parsed and passes. `Float` needs a number
///   within Float range.
/// - castsim policy, not a decoding rule: `volumechange` `volume` must lie in 0...1, because
///   iOS computes the deprecated `Int(volume * 100)` and the app traps far outside it (emp.md §6.2).
///
/// **Android Enigma** (`org.json` on Android; emp.md names the getters, §4.0, §4.1, §4.9):
/// - A missing key, a null, or a value the getter cannot convert is a `JSONException`, i.e. rejected.
/// - `getInt`/`getLong`/`getDouble` take numbers and numeric strings; `getBoolean` takes booleans and
///   the strings "true"/"false" in any case; `getJSONObject` takes only an object.
/// - A number `getInt`/`getLong` would change (a fraction truncated, a value out of range) is
///   reported too: the doc asks for integers there (emp.md §4.4, §4.7, §8 item 6), and a
///   silently altered `segmentmissing` or `trackId` is as wrong for the app as a refused one.
/// - Only what the doc says Enigma reads is checked: `tracksupdated` `data.tracksInfo.tracks[].trackId`,
///   the bare booleans, `volumechange` `volume`/`muted`, `startTimeLive`/`segmentmissing` (getLong),
///   `programchanged` `data.program` (getJSONObject), `entitlementchange` `data` (a raw JSONObject),
///   `liveDelay` (getDouble), `error` `data` (getJSONObject, then `optString` only).
///   `assetchanged` is handled and reads `data.asset` as it comes. Other types are not handled
///   by Enigma and, with no documented failure, count as ignored rather than rejected.
package struct EMPSenderRules {
    /// The namespace whose messages these rules apply to (emp.md §2.1).
    package static let namespace = "urn:x-cast:com.ericsson.cast.receiver"

    /// Problems the sender would have decoding this payload text (empty: accepted), each naming
    /// the JSON path, e.g. "iOS: data.tracksInfo.tracks[0].id: missing".
    package static func problems(_ text: String, for sender: EMPSender) -> [String] {
        guard let payload = try? JSONValue.parse(text) else { return ["\(sender.rawValue): payload: not JSON"] }
        return problems(payload, for: sender)
    }

    package static func problems(_ payload: JSONValue, for sender: EMPSender) -> [String] {
        var reader = Reader(sender: sender)
        let root = Node(value: payload, path: "")
        switch sender {
        case .iOS: reader.iOS(root)
        case .androidEnigma: reader.enigma(root)
        }
        return reader.problems
    }

    /// Problems of both senders, iOS first.
    package static func problems(_ text: String) -> [String] {
        EMPSender.allCases.flatMap { problems(text, for: $0) }
    }
}

extension Array where Element == SentMessage {
    /// Problems of both senders with every message among these on the EMP namespace, each
    /// prefixed with the message's index here and its type: `#3 tracksupdated: iOS: …`.
    package var empSenderProblems: [String] {
        enumerated().flatMap { index, message -> [String] in
            guard message.envelope.namespace == EMPSenderRules.namespace else { return [] }
            let prefix = "#\(index) \(message.type ?? "?")"
            // Both senders read text messages only (emp.md §2.2: sendTextMessage /
            // didReceiveTextMessage).
            guard let text = message.envelope.utf8 else { return ["\(prefix): binary payload"] }
            return EMPSenderRules.problems(text).map { "\(prefix): \($0)" }
        }
    }
}

/// A value and its path from the payload root ("" for the root itself).
private struct Node {
    let value: JSONValue
    let path: String
}

/// Why a value fails a type rule, or nil when it passes.
private typealias Rule = @Sendable (JSONValue) -> String?

private struct Reader {
    let sender: EMPSender
    var problems: [String] = []

    mutating func fail(_ path: String, _ why: String) {
        problems.append("\(sender.rawValue): \(path.isEmpty ? "payload" : path): \(why)")
    }

    /// The node if it passes `rule`; otherwise a problem, and nil so nothing below it is checked.
    mutating func check(_ node: Node, _ rule: Rule) -> Node? {
        guard let why = rule(node.value) else { return node }
        fail(node.path, why)
        return nil
    }

    /// `parent[key]` checked by `rule`. Missing is a problem unless `optional`, which also
    /// lets null through (Swift `decodeIfPresent`). Nothing is checked under a failed parent.
    @discardableResult
    mutating func field(_ key: String, of parent: Node?, _ rule: Rule, optional: Bool = false) -> Node? {
        guard let parent else { return nil }
        let path = parent.path.isEmpty ? key : "\(parent.path).\(key)"
        guard let value = parent.value[key], !(optional && value == .null) else {
            if !optional { fail(path, "missing") }
            return nil
        }
        return check(Node(value: value, path: path), rule)
    }

    /// The elements of an array node that pass `rule`, each failure a problem.
    @discardableResult
    mutating func elements(of array: Node?, _ rule: Rule) -> [Node] {
        guard let array, let items = array.value.arrayValue else { return [] }
        var passed: [Node] = []
        for (index, item) in items.enumerated() {
            if let node = check(Node(value: item, path: "\(array.path)[\(index)]"), rule) { passed.append(node) }
        }
        return passed
    }

    // MARK: iOS (emp.md §4.0 "iOS decoding", §4.1–§4.8, §6)

    /// The types of iOS `MessageType.swift` v4.1.0, case-sensitive (emp.md §4.0).
    static let iOSTypes: Set<String> = [
        "tracksupdated", "timeShiftEnabled", "volumechange", "durationchange", "startTimeLive",
        "programchanged", "segmentmissing", "autoplay", "isLive", "error", "entitlementchange",
    ]

    mutating func iOS(_ root: Node) {
        guard let envelope = check(root, SwiftJSON.object), let type = field("type", of: envelope, SwiftJSON.string) else { return }
        let name = type.value.stringValue ?? ""
        guard Self.iOSTypes.contains(name) else {
            return fail("type", "\"\(name)\" is not a type iOS decodes (unsupportedMessage)")
        }
        switch name {
        case "tracksupdated":  // emp.md §4.1: RawTrack { label, type, id: Int, language }; kind ignored
            let info = field("tracksInfo", of: field("data", of: envelope, SwiftJSON.object), SwiftJSON.object)
            elements(of: field("activeTrackIds", of: info, SwiftJSON.array), SwiftJSON.integer)
            for track in elements(of: field("tracks", of: info, SwiftJSON.array), SwiftJSON.object) {
                field("label", of: track, SwiftJSON.string)
                field("type", of: track, SwiftJSON.string)
                field("id", of: track, SwiftJSON.integer)
                field("language", of: track, SwiftJSON.string)
            }
        case "timeShiftEnabled", "autoplay", "isLive":  // emp.md §4.2: RawSingleValueEvent<Bool>
            field("data", of: envelope, SwiftJSON.bool)
        case "volumechange":  // emp.md §4.3: volume Float, muted Bool; 0...1 is castsim policy (§6.2)
            let data = field("data", of: envelope, SwiftJSON.object)
            if let volume = field("volume", of: data, SwiftJSON.float), let level = volume.value.doubleValue,
                !(0...1).contains(level)
            {
                fail(volume.path, "\(NumberText.format(level)) is outside 0...1 (iOS apps trap on Int(volume * 100))")
            }
            field("muted", of: data, SwiftJSON.bool)
        case "durationchange":  // emp.md §4.0, §4.9: Float
            field("data", of: envelope, SwiftJSON.float)
        case "startTimeLive", "segmentmissing":  // emp.md §4.4, §4.7: Int64
            field("data", of: envelope, SwiftJSON.integer)
        case "programchanged":  // emp.md §4.5: decoded as ProgramChanged and as ProgramUpdated; both must pass
            let program = field("program", of: field("data", of: envelope, SwiftJSON.object), SwiftJSON.object)
            for key in ["programId", "assetId", "channelId"] { field(key, of: program, SwiftJSON.string) }
            for key in ["startTime", "endTime"] { field(key, of: program, SwiftJSON.string, optional: true) }
        case "entitlementchange":  // emp.md §4.6: five Bools required, Int64?/Int? limits
            let entitlement = field("entitlement", of: field("data", of: envelope, SwiftJSON.object), SwiftJSON.object)
            for key in ["live", "ffEnabled", "timeshiftEnabled", "rwEnabled", "airplayBlocked"] {
                field(key, of: entitlement, SwiftJSON.bool)
            }
            for key in ["minBitrate", "maxBitrate", "maxResHeight"] {
                field(key, of: entitlement, SwiftJSON.integer, optional: true)
            }
        case "error":  // emp.md §4.8, §6.2: data absent or not an object gives -1 / UNKNOWN_ERROR
            guard let data = envelope.value["data"], data.objectValue != nil else { return }
            let node = Node(value: data, path: "data")
            field("code", of: node, SwiftJSON.integer, optional: true)
            field("message", of: node, SwiftJSON.string, optional: true)
        default:
            break
        }
    }

    // MARK: Android Enigma (emp.md §4.0 "Android Enigma", §4.1, §4.8, §4.9)

    mutating func enigma(_ root: Node) {
        // emp.md §2.2: every sender reads the `{"type", "data"}` envelope.
        guard let envelope = check(root, SwiftJSON.object), let type = field("type", of: envelope, SwiftJSON.string) else { return }
        switch type.value.stringValue {
        case "tracksupdated":  // emp.md §4.1: track.getInt("trackId")
            let info = field("tracksInfo", of: field("data", of: envelope, OrgJSON.object), OrgJSON.object)
            for track in elements(of: field("tracks", of: info, OrgJSON.array), OrgJSON.object) {
                field("trackId", of: track, OrgJSON.integer("getInt", bits: 32))
            }
        case "timeShiftEnabled", "autoplay", "isLive":  // emp.md §4.0: bool
            field("data", of: envelope, OrgJSON.boolean)
        case "volumechange":  // emp.md §4.0: getDouble / getBoolean
            let data = field("data", of: envelope, OrgJSON.object)
            field("volume", of: data, OrgJSON.double)
            field("muted", of: data, OrgJSON.boolean)
        case "startTimeLive", "segmentmissing":  // emp.md §4.0: getLong
            field("data", of: envelope, OrgJSON.integer("getLong", bits: 64))
        case "programchanged":  // emp.md §4.0: getJSONObject("program")
            field("program", of: field("data", of: envelope, OrgJSON.object), OrgJSON.object)
        case "entitlementchange":  // emp.md §4.0: raw JSONObject
            field("data", of: envelope, OrgJSON.object)
        case "liveDelay":  // emp.md §4.9: getDouble
            field("data", of: envelope, OrgJSON.double)
        case "error":  // emp.md §4.8, §6.3: getJSONObject("data"), then optString only
            field("data", of: envelope, OrgJSON.object)
        default:  // assetchanged: reads data.asset as it comes (emp.md §4.9); others: not handled
            break
        }
    }
}

/// Type rules of Swift `JSONDecoder` (iOS).
private enum SwiftJSON {
    static let object: Rule = { $0.objectValue == nil ? expected("an object", $0) : nil }
    static let array: Rule = { $0.arrayValue == nil ? expected("an array", $0) : nil }
    static let string: Rule = { $0.stringValue == nil ? expected("a string", $0) : nil }
    static let bool: Rule = { $0.boolValue == nil ? expected("a boolean", $0) : nil }
    /// `Int` and `Int64` (64-bit on iOS): an integral number in range.
    static let integer: Rule = { value in
        guard let number = value.doubleValue else { return expected("an integer", value) }
        return number.rounded() == number && number >= -0x1p63 && number < 0x1p63
            ? nil : "expected an integer, got \(NumberText.format(number))"
    }
    /// `Float`: a number JSONDecoder can narrow ("does not fit in Float" otherwise).
    static let float: Rule = { value in
        guard let number = value.doubleValue else { return expected("a number", value) }
        return abs(number) <= Double(Float.greatestFiniteMagnitude) ? nil : "\(NumberText.format(number)) does not fit in Float"
    }
}

/// Type rules of Android's `org.json` getters (Enigma).
private enum OrgJSON {
    static let object: Rule = { $0.objectValue == nil ? expected("an object (getJSONObject)", $0) : nil }
    static let array: Rule = { $0.arrayValue == nil ? expected("an array (getJSONArray)", $0) : nil }
    static let boolean: Rule = { value in
        if value.boolValue != nil || ["true", "false"].contains(value.stringValue?.lowercased()) { return nil }
        return expected("a boolean (getBoolean)", value)
    }
    static let double: Rule = { number($0) == nil ? expected("a number (getDouble)", $0) : nil }
    /// `getInt`/`getLong`: a number or numeric string, reported if the cast to int/long would change it.
    static func integer(_ getter: String, bits: Int) -> Rule {
        { value in
            guard let number = number(value) else { return expected("a number (\(getter))", value) }
            let limit = bits == 32 ? 0x1p31 : 0x1p63
            guard number >= -limit, number < limit else { return "\(getter) cannot hold \(value.jsonText())" }
            return number.rounded(.towardZero) == number ? nil : "\(getter) truncates \(value.jsonText())"
        }
    }
    /// A number, or a string `Double.parseDouble` reads (approximated by Swift's parser after trimming).
    static func number(_ value: JSONValue) -> Double? {
        value.doubleValue ?? value.stringValue.flatMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }
}

private func expected(_ what: String, _ value: JSONValue) -> String {
    "expected \(what), got \(value.typeName)"
}
