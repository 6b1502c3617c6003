import CastWire

/// `repeatMode` of a queue.
public enum RepeatMode: String, Sendable, Equatable, CaseIterable {
    case off = "REPEAT_OFF", all = "REPEAT_ALL", single = "REPEAT_SINGLE", allAndShuffle = "REPEAT_ALL_AND_SHUFFLE"

    init(json: JSONValue, path: String) throws(InvalidParams) {
        guard let text = json.stringValue, let mode = RepeatMode(rawValue: text) else {
            throw InvalidParams("\(path): expected one of \(RepeatMode.allCases.map(\.rawValue).joined(separator: ", ")), got \(json.jsonText())")
        }
        self = mode
    }

    /// Whether next/previous wrap around the ends of the queue.
    var wraps: Bool { self == .all || self == .allAndShuffle }
}

/// One entry of the media queue (§6.4 QueueItem).
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
    /// `allowItemId: false` rejects a sender-supplied id (QUEUE_INSERT).
    init(json: JSONValue, path: String, allowItemId: Bool) throws(InvalidParams) {
        guard var fields = json.objectValue else { throw InvalidParams("\(path): expected an object, got \(json.typeName)") }
        if let id = fields.removeValue(forKey: "itemId"), !id.isNull, !allowItemId {
            throw InvalidParams("\(path).itemId: item ids are assigned by the receiver, got \(id.jsonText())")
        }
        guard let mediaJSON = fields.removeValue(forKey: "media"), !mediaJSON.isNull else {
            throw InvalidParams("\(path).media: missing")
        }
        let media = try MediaInformation(json: mediaJSON, path: "\(path).media")
        self.init(itemId: 0, media: media)
        autoplay = fields.removeValue(forKey: "autoplay").map(isAutoplay) ?? true
        startTime = try Self.seconds(fields.removeValue(forKey: "startTime"), "\(path).startTime") ?? 0
        playbackDuration = try Self.seconds(fields.removeValue(forKey: "playbackDuration"), "\(path).playbackDuration")
        preloadTime = try Self.seconds(fields.removeValue(forKey: "preloadTime"), "\(path).preloadTime")
        if let ids = fields.removeValue(forKey: "activeTrackIds"), !ids.isNull {
            let parsed = try intArray(ids, path: "\(path).activeTrackIds")
            try validateActiveTracks(parsed, against: media.tracks, path: "\(path).activeTrackIds")
            activeTrackIds = parsed
        }
        customData = fields.removeValue(forKey: "customData").flatMap { $0.isNull ? nil : $0 }
        passthrough = fields
    }

    private static func seconds(_ value: JSONValue?, _ path: String) throws(InvalidParams) -> Double? {
        guard let value, !value.isNull else { return nil }
        guard let number = value.doubleValue, number.isFinite, number >= 0 else {
            throw InvalidParams("\(path): expected seconds >= 0, got \(value.jsonText())")
        }
        return number
    }
}

/// VLC sends `"autoplay":"false"` as a string and expects playback to start anyway:
/// only the JSON boolean false holds the player.
func isAutoplay(_ value: JSONValue) -> Bool { value != .bool(false) }

func intArray(_ value: JSONValue, path: String) throws(InvalidParams) -> [Int] {
    guard let array = value.arrayValue else { throw InvalidParams("\(path): expected an array of integers, got \(value.typeName)") }
    var result: [Int] = []
    for (index, element) in array.enumerated() {
        guard let number = element.intValue else { throw InvalidParams("\(path)[\(index)]: expected an integer, got \(element.typeName)") }
        result.append(number)
    }
    return result
}
