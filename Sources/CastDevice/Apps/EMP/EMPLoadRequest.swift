import CastWire

/// What an EMP sender asks for in a media-namespace LOAD (docs/protocol/emp.md §5), in both
/// forms: the current one (iOS ≥ 2.3: asset id as `contentId`, token in `credentials`,
/// `customData{customer, businessUnit, subtitleLanguage, ...}`) and the legacy one (iOS ≤ 2.2,
/// old Android: `customData.ericssonexposure{...}`, `assetId`/`channelId`/`programId`,
/// `playbackProperties`, `textLanguage` ...). Android Enigma sends a mix of both.
struct EMPLoadRequest: Sendable, Equatable {
    /// `playbackProperties.playFrom`.
    enum PlayFrom: String, Sendable, Equatable, CaseIterable {
        case defaultBehaviour, startTime, beginning, bookmark
    }

    /// The id the sender named: `media.contentId`, else `queueData.items[startIndex].media.contentId`.
    var contentId: String?
    /// Legacy ids in customData; a channel id names a channel to play, live.
    var assetId: String?
    var channelId: String?
    var programId: String?
    var sessionToken: String?
    var customer: String?
    var businessUnit: String?
    var playFrom: PlayFrom = .defaultBehaviour
    /// `playbackProperties.startTime`: ms since 1970.
    var startTimeMilliseconds: Double?
    /// `playbackProperties.startOffset`: ms from the start of the stream.
    var startOffsetMilliseconds: Double?
    /// LOAD's own `currentTime` (seconds): without playback properties, where to start.
    var currentTime: Double?
    /// nil: none asked; `.off`: `"None"` (iOS 2.2.2 writes it for "no subtitles").
    var subtitleLanguage: Language?
    var audioLanguage: String?
    var timeShiftDisabled = false
    var autoplay = true
    var maxBitrate: Int?
    /// What the sender told the receiver and the player does not act on, kept for inspection.
    var passedThrough: [String: JSONValue] = [:]

    enum Language: Sendable, Equatable {
        case off
        case language(String)
    }

    /// The id to look up: legacy `channelId` wins (a channel plays live), then `assetId`,
    /// then the LOAD's content id.
    var requestedId: String? { channelId ?? assetId ?? contentId }

    /// Reads the EMP fields of a LOAD. Known fields of the wrong type are refused, naming
    /// their path; unknown keys are ignored, as the receiver does.
    init(_ body: JSONReader) throws(JSONReadError) {
        contentId = try body["media"].map { media throws(JSONReadError) in try media.required("contentId", "the asset id").string() }
        if contentId == nil, let queueData = try body.optionalObject("queueData"), let items = queueData["items"] {
            let list = try items.array()
            let index = try queueData.optionalInt("startIndex") ?? 0
            if list.indices.contains(index), let media = list[index]["media"] {
                contentId = try media.optionalString("contentId")
            }
        }
        currentTime = try body.optionalDouble("currentTime")
        sessionToken = try body.optionalString("credentials")
        if let autoplay = body["autoplay"] { self.autoplay = isAutoplay(autoplay.value) }
        guard let custom = try body.optionalObject("customData") else {
            if let currentTime, currentTime > 0 { startOffsetMilliseconds = currentTime * 1000 }
            return
        }
        try readCurrentForm(custom)
        try readLegacyForm(custom)
    }

    private mutating func readCurrentForm(_ custom: JSONReader) throws(JSONReadError) {
        customer = try custom.optionalString("customer")
        businessUnit = try custom.optionalString("businessUnit")
        // iOS 0.73 wrote `textLanguage`, later ones `subtitleLanguage`.
        var subtitles = try custom.optionalString("subtitleLanguage")
        if subtitles == nil { subtitles = try custom.optionalString("textLanguage") }
        if let subtitles {
            subtitleLanguage = subtitles == "None" ? .off : .language(subtitles)
        }
        audioLanguage = try custom.optionalString("audioLanguage")
        // Told to the player, which shows or sends them on; nothing castsim simulates.
        for (key, type) in [("locale", JSONType.string), ("language", .string), ("adobePrimetimeToken", .string),
                            ("adParameters", .object), ("customImages", .array)] {
            try JSONType.check(custom, [key: type])
            if let value = custom[key] { passedThrough[key] = value.value }
        }
    }

    private mutating func readLegacyForm(_ custom: JSONReader) throws(JSONReadError) {
        if let exposure = try custom.optionalObject("ericssonexposure") {
            // The current form's keys win where a hybrid sender (Android Enigma) sends both.
            if customer == nil { customer = try exposure.optionalString("customer") }
            if businessUnit == nil { businessUnit = try exposure.optionalString("businessUnit") }
            if sessionToken == nil { sessionToken = try exposure.optionalString("sessionToken") }
            if let url = try exposure.optionalString("exposureApiURL") { passedThrough["exposureApiURL"] = .string(url) }
        }
        assetId = try custom.optionalString("assetId")
        channelId = try custom.optionalString("channelId")
        programId = try custom.optionalString("programId")
        timeShiftDisabled = try custom.optionalBool("timeShiftDisabled") ?? false
        if try custom.optionalBool("autoplay") == false { autoplay = false }
        maxBitrate = try custom.optionalInt("maxBitrate")
        // Receiver 2.79 derives playback properties from the deprecated keys when the sender
        // sends none (emp.md §5.5); LOAD's own positive `currentTime` stands for `startTime`.
        var startSeconds = try custom.optionalDouble("startTime")
        if let currentTime, currentTime > 0 { startSeconds = currentTime }
        if let properties = try custom.optionalObject("playbackProperties") {
            playFrom = try properties.optional("playFrom") { value throws(JSONReadError) in try value.oneOf(PlayFrom.self) }
                ?? .defaultBehaviour
            startTimeMilliseconds = try properties.optionalDouble("startTime")
            startOffsetMilliseconds = try properties.optionalDouble("startOffset")
        } else if let absolute = try custom.optionalDouble("absoluteStartTime") {
            playFrom = .startTime
            startTimeMilliseconds = absolute
        } else if try custom.optionalBool("useLastViewedOffset") == true {
            playFrom = .bookmark
        } else if let startSeconds {
            startOffsetMilliseconds = startSeconds * 1000
        }
    }
}
