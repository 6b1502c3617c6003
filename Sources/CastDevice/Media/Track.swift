import CastWire

/// An entry of `media.tracks` (docs/protocol/media.md §4.4). Kept as sent, with the fields
/// the receiver acts on read out and checked.
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

    init(_ reader: JSONReader) throws(JSONReadError) {
        _ = try reader.object()
        trackId = try reader.required("trackId", "an integer").int()
        let type = try reader.required("type", "TEXT, AUDIO or VIDEO")
        guard let kind = type.value.stringValue.flatMap(Kind.init(rawValue:)) else {
            throw type.expected("TEXT, AUDIO or VIDEO")
        }
        self.kind = kind
        subtype = try reader.optional("subtype") { value throws(JSONReadError) in
            let text = try value.string()
            if kind == .text, !Self.textSubtypes.contains(text) {
                throw value.expected("one of \(Self.textSubtypes.sorted().joined(separator: ", "))")
            }
            return text
        }
        language = try reader.optionalString("language")
        try JSONType.check(reader, ["name": .string, "trackContentId": .string, "trackContentType": .string,
                                    "customData": .object, "roles": .array])
        json = reader.value
    }

    /// Reads `tracks`, refusing duplicate ids.
    static func decodeList(_ reader: JSONReader) throws(JSONReadError) -> [Track] {
        var tracks: [Track] = []
        var seen = Set<Int>()
        for element in try reader.array() {
            let track = try Track(element)
            guard seen.insert(track.trackId).inserted else {
                throw JSONReadError(path: element.path.appending("trackId"), message: "\(track.trackId) is used by another track")
            }
            tracks.append(track)
        }
        return tracks
    }

    /// Whether this track's language matches a requested one: exact, or by primary
    /// subtag ("en" selects "en-US"), case-insensitive as RFC 5646 tags are.
    func matches(language requested: String) -> Bool {
        guard let language = language?.lowercased() else { return false }
        let wanted = requested.lowercased()
        return language == wanted || language.hasPrefix(wanted + "-") || wanted.hasPrefix(language + "-")
    }
}

/// Checks a set of active track ids against the media's tracks.
func validateActiveTracks(_ ids: [Int], against tracks: [Track], at reader: JSONReader) throws(JSONReadError) {
    var audio = 0
    for id in ids {
        guard let track = tracks.first(where: { $0.trackId == id }) else {
            throw reader.error("no track with trackId \(id)")
        }
        if track.kind == .audio { audio += 1 }
    }
    guard audio <= 1 else { throw reader.error("at most one AUDIO track can be active, got \(audio)") }
    guard Set(ids).count == ids.count else { throw reader.error("a track id is listed twice") }
}

extension MediaInformation {
    /// Checks a `tracks` array as a LOAD would (the media catalog's in-band tracks); the
    /// error names the place in `reader`'s document.
    package static func checkTracks(_ reader: JSONReader) throws(JSONReadError) {
        _ = try Track.decodeList(reader)
    }
}
