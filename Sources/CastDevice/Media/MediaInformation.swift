import CastWire

/// `media` of a LOAD or queue item (docs/protocol/media.md §4.2).
///
/// The fields the receiver interprets are typed; everything else (metadata, customData,
/// contentUrl, breaks, ...) is kept as sent and echoed back, because senders compare it.
/// Known fields of the wrong type are refused: the receiver would otherwise echo a
/// numeric `contentType` to every sender.
public struct MediaInformation: Sendable, Equatable {
    public enum StreamType: String, Sendable, Equatable, Codable, CaseIterable {
        case buffered = "BUFFERED", live = "LIVE", none = "NONE"
    }

    public var contentId: String
    public var streamType: StreamType
    /// Seconds; nil for live streams and while unknown.
    public var duration: Double?
    public var tracks: [Track]
    /// The style as sent (validated), nil when none.
    public var textTrackStyle: JSONValue?
    /// Every other key, verbatim.
    public var passthrough: [String: JSONValue]

    public init(contentId: String, streamType: StreamType = .buffered, duration: Double? = nil,
                passthrough: [String: JSONValue] = [:]) {
        self.contentId = contentId
        self.streamType = streamType
        self.duration = duration
        self.tracks = []
        self.passthrough = passthrough
    }

    /// CAF MediaInformation fields castsim does not interpret, with the JSON type each must have.
    static let passthroughTypes: [String: JSONType] = [
        "contentUrl": .string, "contentType": .string, "entity": .string, "atvEntity": .string,
        "hlsSegmentFormat": .string, "hlsVideoSegmentFormat": .string, "metadata": .object, "customData": .object,
        "vmapAdsRequest": .object, "breaks": .array, "breakClips": .array, "userActionStates": .array,
        "startAbsoluteTime": .number,
    ]

    /// Decodes `media`, tolerant of sender quirks: lowercase stream types (old receivers
    /// echoed "buffered"), `duration: 0` or null from go-chromecast meaning "unknown",
    /// `contentUrl` without `contentId` (CAF).
    init(_ reader: JSONReader) throws(JSONReadError) {
        var fields = try reader.object()
        if let value = reader["contentId"] {
            contentId = try value.string()
        } else if let url = reader["contentUrl"] {
            // contentUrl alone is enough for CAF; it becomes the id senders see.
            contentId = try url.string()
        } else {
            throw JSONReadError(path: reader.path.appending("contentId"), message: "missing (and no contentUrl)")
        }
        fields.removeValue(forKey: "contentId")
        streamType = .buffered
        if let value = reader["streamType"] {
            let text = try value.string()
            guard let type = StreamType(rawValue: text.uppercased()) else {
                throw value.error("expected BUFFERED, LIVE or NONE, got \(JSONReader.describe(value.value))")
            }
            streamType = type
        }
        fields.removeValue(forKey: "streamType")
        duration = nil
        if let value = reader["duration"] {
            let seconds = try value.double()
            guard seconds >= 0 else { throw value.expected("seconds >= 0") }
            duration = seconds > 0 ? seconds : nil
        }
        fields.removeValue(forKey: "duration")
        tracks = try reader.optional("tracks") { value throws(JSONReadError) in try Track.decodeList(value) } ?? []
        fields.removeValue(forKey: "tracks")
        textTrackStyle = try reader.optional("textTrackStyle") { value throws(JSONReadError) in
            try TextTrackStyle.validate(value)
            return value.value
        }
        fields.removeValue(forKey: "textTrackStyle")
        try JSONType.check(reader, Self.passthroughTypes)
        try AdBreaks.validate(reader)
        if let metadata = reader["metadata"] { _ = try metadata.optionalInt("metadataType") }
        passthrough = fields
    }

    /// Whether the media has tracks senders can switch (EDIT_TRACKS).
    public var hasTracks: Bool { !tracks.isEmpty }

    public var json: JSONValue {
        var fields = passthrough
        fields["contentId"] = .string(contentId)
        fields["streamType"] = .string(streamType.rawValue)
        if let duration { fields["duration"] = .number(duration) }
        if !tracks.isEmpty { fields["tracks"] = .array(tracks.map(\.json)) }
        if let textTrackStyle { fields["textTrackStyle"] = textTrackStyle }
        return .object(fields)
    }
}

/// The JSON type a known field must have.
enum JSONType: String {
    case string = "a string", number = "a number", object = "an object", array = "an array", integer = "an integer"

    /// Refuses any of `expected`'s keys present in `reader` (and not null) with another type.
    static func check(_ reader: JSONReader, _ expected: [String: JSONType]) throws(JSONReadError) {
        guard case .object(let fields) = reader.value else { return }
        for key in fields.keys.sorted() {
            guard let type = expected[key], let value = reader[key] else { continue }
            let matches: Bool = switch (type, value.value) {
            case (.string, .string), (.number, .number), (.object, .object), (.array, .array): true
            case (.integer, _): value.value.intValue != nil
            default: false
            }
            if !matches { throw value.expected(type.rawValue) }
        }
    }
}
