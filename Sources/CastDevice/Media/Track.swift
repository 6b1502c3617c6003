import CastWire

/// An entry of `media.tracks` (§6.4 Track). Kept as sent, with the fields the receiver
/// acts on read out and checked.
public struct Track: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        case text = "TEXT", audio = "AUDIO", video = "VIDEO"
    }

    /// TEXT track subtypes.
    public static let textSubtypes: Set<String> = ["SUBTITLES", "CAPTIONS", "DESCRIPTIONS", "CHAPTERS", "METADATA"]

    public var trackId: Int
    public var kind: Kind
    public var subtype: String?
    public var language: String?
    /// Every key as sent, echoed back.
    public var json: JSONValue

    init(json: JSONValue, path: String) throws(InvalidParams) {
        guard let fields = json.objectValue else { throw InvalidParams("\(path): expected an object, got \(json.typeName)") }
        guard let id = fields["trackId"], let trackId = id.intValue else {
            throw InvalidParams("\(path).trackId: expected an integer, got \(fields["trackId"]?.typeName ?? "nothing")")
        }
        guard let typeValue = fields["type"], let type = typeValue.stringValue, let kind = Kind(rawValue: type) else {
            throw InvalidParams("\(path).type: expected TEXT, AUDIO or VIDEO, got \(fields["type"]?.jsonText() ?? "nothing")")
        }
        var subtype: String?
        if let value = fields["subtype"], !value.isNull {
            guard let text = value.stringValue else { throw InvalidParams("\(path).subtype: expected a string, got \(value.typeName)") }
            if kind == .text, !Self.textSubtypes.contains(text) {
                throw InvalidParams("\(path).subtype: expected one of \(Self.textSubtypes.sorted().joined(separator: ", ")), got \"\(text)\"")
            }
            subtype = text
        }
        var language: String?
        if let value = fields["language"], !value.isNull {
            guard let text = value.stringValue else { throw InvalidParams("\(path).language: expected a string, got \(value.typeName)") }
            language = text
        }
        self.trackId = trackId
        self.kind = kind
        self.subtype = subtype
        self.language = language
        self.json = json
    }

    /// Whether this track's language matches a requested one: exact, or by primary
    /// subtag ("en" selects "en-US"), case-insensitive as RFC 5646 tags are.
    func matches(language requested: String) -> Bool {
        guard let language = language?.lowercased() else { return false }
        let wanted = requested.lowercased()
        return language == wanted || language.hasPrefix(wanted + "-") || wanted.hasPrefix(language + "-")
    }
}

/// Reads `media.tracks`, rejecting duplicate ids.
func decodeTracks(_ value: JSONValue?, path: String) throws(InvalidParams) -> [Track]? {
    guard let value, !value.isNull else { return nil }
    guard let array = value.arrayValue else { throw InvalidParams("\(path): expected an array, got \(value.typeName)") }
    var tracks: [Track] = []
    var seen = Set<Int>()
    for (index, element) in array.enumerated() {
        let track = try Track(json: element, path: "\(path)[\(index)]")
        guard seen.insert(track.trackId).inserted else {
            throw InvalidParams("\(path)[\(index)].trackId: \(track.trackId) is used by another track")
        }
        tracks.append(track)
    }
    return tracks
}

/// Checks a set of active track ids against the media's tracks.
func validateActiveTracks(_ ids: [Int], against tracks: [Track], path: String) throws(InvalidParams) {
    var audio = 0
    for id in ids {
        guard let track = tracks.first(where: { $0.trackId == id }) else {
            throw InvalidParams("\(path): no track with trackId \(id)")
        }
        if track.kind == .audio { audio += 1 }
    }
    guard audio <= 1 else { throw InvalidParams("\(path): at most one AUDIO track can be active, got \(audio)") }
    guard Set(ids).count == ids.count else { throw InvalidParams("\(path): a track id is listed twice") }
}

extension MediaInformation {
    /// What is wrong with a `tracks` array found at `path`, or nil when a LOAD would accept it.
    public static func problem(inTracks value: JSONValue, path: String) -> (path: String, message: String)? {
        do {
            _ = try decodeTracks(value, path: path)
            return nil
        } catch {
            return (error.path, error.message)
        }
    }
}
