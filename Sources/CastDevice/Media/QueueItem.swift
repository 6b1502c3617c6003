import CastWire

/// `repeatMode` of a queue.
public enum RepeatMode: String, Sendable, Equatable, CaseIterable {
    case off = "REPEAT_OFF", all = "REPEAT_ALL", single = "REPEAT_SINGLE", allAndShuffle = "REPEAT_ALL_AND_SHUFFLE"

    /// Whether next/previous wrap around the ends of the queue.
    var wraps: Bool { self == .all || self == .allAndShuffle }
}

/// One entry of the media queue (docs/protocol/media.md §4.6).
public struct QueueItem: Sendable, Equatable {
    public var itemId: Int
    public var media: MediaInformation
    public var autoplay: Bool
    /// Where in the media this item starts, in seconds.
    public var startTime: Double
    /// How long of the media this item plays; nil: to the end.
    public var playbackDuration: Double?
    /// How many seconds before the previous item ends this one preloads.
    public var preloadTime: Double?
    public var activeTrackIds: [Int]?
    public var customData: JSONValue?
    /// Other keys as sent.
    public var passthrough: [String: JSONValue] = [:]

    public init(itemId: Int, media: MediaInformation, autoplay: Bool = true, startTime: Double = 0) {
        self.itemId = itemId
        self.media = media
        self.autoplay = autoplay
        self.startTime = startTime
    }

    /// Where this item stops playing: its `playbackDuration` after `startTime`, or the
    /// media's end; nil for live media.
    public var endPosition: Double? {
        guard let duration = media.duration else {
            return playbackDuration.map { startTime + $0 }
        }
        guard let playbackDuration else { return duration }
        return min(duration, startTime + playbackDuration)
    }

    public var json: JSONValue {
        var fields = passthrough
        fields["itemId"] = .number(Double(itemId))
        fields["media"] = media.json
        fields["autoplay"] = .bool(autoplay)
        fields["customData"] = customData ?? [:]
        if startTime != 0 { fields["startTime"] = .number(startTime) }
        if let playbackDuration { fields["playbackDuration"] = .number(playbackDuration) }
        if let preloadTime { fields["preloadTime"] = .number(preloadTime) }
        if let activeTrackIds { fields["activeTrackIds"] = .array(activeTrackIds.map { .number(Double($0)) }) }
        return .object(fields)
    }

    /// Decodes a sender's queue item; the receiver assigns `itemId` afterwards.
    /// `allowItemId: false` refuses a sender-supplied id (QUEUE_INSERT).
    init(_ reader: JSONReader, allowItemId: Bool) throws(JSONReadError) {
        var fields = try reader.object()
        if let id = reader["itemId"], !allowItemId {
            throw id.error("item ids are assigned by the receiver, got \(id.value.jsonText())")
        }
        fields.removeValue(forKey: "itemId")
        let media = try MediaInformation(reader.required("media", "the item's MediaInformation"))
        fields.removeValue(forKey: "media")
        self.init(itemId: 0, media: media)
        autoplay = reader["autoplay"].map { isAutoplay($0.value) } ?? true
        fields.removeValue(forKey: "autoplay")
        startTime = try Self.seconds(reader, "startTime") ?? 0
        playbackDuration = try Self.seconds(reader, "playbackDuration")
        preloadTime = try Self.seconds(reader, "preloadTime")
        for key in ["startTime", "playbackDuration", "preloadTime"] { fields.removeValue(forKey: key) }
        if let ids = reader["activeTrackIds"] {
            let parsed = try ids.intArray()
            try validateActiveTracks(parsed, against: media.tracks, at: ids)
            activeTrackIds = parsed
        }
        fields.removeValue(forKey: "activeTrackIds")
        customData = try reader.optionalObject("customData")?.value
        fields.removeValue(forKey: "customData")
        try JSONType.check(reader, ["orderId": .integer])
        passthrough = fields
    }

    private static func seconds(_ reader: JSONReader, _ key: String) throws(JSONReadError) -> Double? {
        try reader.optional(key) { value throws(JSONReadError) in
            let number = try value.double()
            guard number >= 0 else { throw value.expected("seconds >= 0") }
            return number
        }
    }

    /// Reads an array of queue items.
    static func decodeList(_ reader: JSONReader, allowItemId: Bool) throws(JSONReadError) -> [QueueItem] {
        guard case .array = reader.value else { throw reader.expected("an array of queue items") }
        return try reader.array().map { element throws(JSONReadError) in try QueueItem(element, allowItemId: allowItemId) }
    }
}

/// VLC sends `"autoplay":"false"` as a string and expects playback to start anyway:
/// only the JSON boolean false holds the player.
func isAutoplay(_ value: JSONValue) -> Bool { value != .bool(false) }
