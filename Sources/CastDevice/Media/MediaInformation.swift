import CastWire

/// `media` of a LOAD or queue item (§6.4 MediaInformation).
///
/// The fields the receiver interprets are typed; everything else (metadata, customData,
/// contentUrl, breaks, ...) is kept as sent and echoed back, because senders compare it.
public struct MediaInformation: Sendable, Equatable {
    public enum StreamType: String, Sendable, Equatable {
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

    /// Decodes `media`, tolerant of sender quirks: lowercase stream types (old receivers
    /// echoed "buffered"), `duration: 0` or null from go-chromecast meaning "unknown".
    init(json: JSONValue, path: String) throws(InvalidParams) {
        guard var fields = json.objectValue else { throw InvalidParams("\(path): expected an object, got \(json.typeName)") }
        let contentId = fields.removeValue(forKey: "contentId")
        let contentUrl = fields["contentUrl"]?.stringValue
        switch contentId {
        case .string(let text)?:
            self.contentId = text
        case nil, .null?:
            // contentUrl alone is enough for CAF; it becomes the id senders see.
            guard let contentUrl else { throw InvalidParams("\(path).contentId: missing (and no contentUrl)") }
            self.contentId = contentUrl
        case let other?:
            throw InvalidParams("\(path).contentId: expected a string, got \(other.typeName)")
        }
        switch fields.removeValue(forKey: "streamType") {
        case nil, .null?:
            streamType = .buffered
        case .string(let text)?:
            guard let type = StreamType(rawValue: text.uppercased()) else {
                throw InvalidParams("\(path).streamType: expected BUFFERED, LIVE or NONE, got \"\(text)\"")
            }
            streamType = type
        case let other?:
            throw InvalidParams("\(path).streamType: expected a string, got \(other.typeName)")
        }
        switch fields.removeValue(forKey: "duration") {
        case nil, .null?:
            duration = nil
        case .number(let seconds)?:
            guard seconds.isFinite, seconds >= 0 else { throw InvalidParams("\(path).duration: expected seconds >= 0, got \(seconds)") }
            duration = seconds > 0 ? seconds : nil
        case let other?:
            throw InvalidParams("\(path).duration: expected a number, got \(other.typeName)")
        }
        tracks = try decodeTracks(fields.removeValue(forKey: "tracks"), path: "\(path).tracks") ?? []
        switch fields.removeValue(forKey: "textTrackStyle") {
        case nil, .null?:
            textTrackStyle = nil
        case let style?:
            try TextTrackStyle.validate(style, path: "\(path).textTrackStyle")
            textTrackStyle = style
        }
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
