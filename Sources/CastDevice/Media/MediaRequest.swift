import CastWire

/// A request on urn:x-cast:com.google.cast.media (docs/protocol/media.md §2.1), decoded before
/// any handler runs.
///
/// Decoding keeps the tolerances real senders need (media.md §1): unknown keys are ignored, a
/// JSON null reads as absent, VLC's string `"autoplay":"false"` plays, go-chromecast's
/// `"resumeState":""` keeps the state, the Android SDK's `currentTime: 4294967296` seeks
/// to the live edge. A known field of the wrong type is refused: INVALID_PARAMS.
package struct MediaCommand: Sendable {
    package let type: String
    package let requestId: Int
    /// The session the command names; nil: the current one.
    package let mediaSessionId: Int?
    /// The request, or why it was refused. Kept as a result: a command on a session that
    /// is not there is answered for that (INVALID_PLAYER_STATE, INVALID_MEDIA_SESSION_ID)
    /// before its fields are, as real receivers do.
    package let request: Result<MediaRequest, RequestRejection>

    package init(_ header: RequestHeader) throws(RequestRejection) {
        type = header.type
        requestId = header.answerId
        mediaSessionId = try params { () throws(JSONReadError) in try header.body.optionalInt("mediaSessionId") }
        do {
            request = .success(try MediaRequest(header))
        } catch {
            request = .failure(error)
        }
    }

    /// What a command needs of the current session before anything else is looked at.
    package enum SessionNeed {
        /// LOAD and QUEUE_LOAD make their own; unknown types are refused whatever the session.
        case none
        /// GET_STATUS answers `status: []` without one, but must name the one there is.
        case addressedIfAny
        /// The session it names must exist.
        case addressed
        /// PLAY, PAUSE, SEEK: the session must exist and not be loading its item.
        case controllable
    }

    package var sessionNeed: SessionNeed {
        switch type {
        case "LOAD", "QUEUE_LOAD": .none
        case "GET_STATUS": .addressedIfAny
        case "PLAY", "PAUSE", "SEEK": .controllable
        case "USER_ACTION", "STORE_SESSION", "PRELOAD", "SKIP_AD": .addressed
        case "DISPLAY_STATUS", "SET_CREDENTIALS": .addressedIfAny
        case "STOP", "SET_VOLUME", "SET_PLAYBACK_RATE", "EDIT_TRACKS_INFO", "EDIT_AUDIO_TRACKS", "QUEUE_INSERT", "QUEUE_UPDATE",
             "QUEUE_REMOVE", "QUEUE_REORDER", "QUEUE_NEXT", "QUEUE_PREV", "QUEUE_SHUFFLE", "QUEUE_GET_ITEM_IDS", "QUEUE_GET_ITEMS",
             "QUEUE_GET_ITEM_RANGE": .addressed
        default: .none
        }
    }
}

package enum MediaRequest: Sendable {
    /// `options`: 1 = NO_METADATA, 2 = NO_QUEUE_ITEMS.
    case getStatus(options: Int)
    case load(LoadRequest)
    case queueLoad(QueueLoadRequest)
    case play
    case pause
    case stop
    case seek(SeekRequest)
    case setVolume(VolumeChange)
    case setPlaybackRate(absolute: Double?, relative: Double?)
    case editTracksInfo(EditTracksRequest)
    case editAudioTracks(language: String?)
    case queueInsert(QueueInsertRequest)
    case queueUpdate(QueueUpdateRequest)
    case queueRemove(itemIds: [Int], currentItemId: Int?, currentTime: Double?)
    case queueReorder(QueueReorderRequest)
    /// QUEUE_NEXT (+1) and QUEUE_PREV (-1).
    case queueJump(offset: Int)
    case queueShuffle
    case queueGetItemIds
    case queueGetItems(itemIds: [Int])
    case queueGetItemRange(itemId: Int?, nextCount: Int, prevCount: Int)
    // CAF's other requests (media.md §2.3, §7): stream transfer, user actions, credentials
    // and what the Assistant sends.
    case storeSession
    case skipAd
    case resumeSession(LoadRequest)
    case userAction(UserActionRequest)
    case setCredentials(credentials: String)
    case displayStatus
    case focusState(inFocus: Bool)
    case precache
    case preload(itemId: Int)
    case loadByEntity
    case customCommand

    init(_ header: RequestHeader) throws(RequestRejection) {
        let body = header.body
        switch header.type {
        case "GET_STATUS":
            self = .getStatus(options: try params { () throws(JSONReadError) in try body.optionalInt("options") ?? 0 })
        case "LOAD": self = .load(try LoadRequest(body))
        case "QUEUE_LOAD": self = .queueLoad(try QueueLoadRequest(body))
        case "PLAY": self = .play
        case "PAUSE": self = .pause
        case "STOP": self = .stop
        case "SEEK": self = .seek(try SeekRequest(body))
        case "SET_VOLUME": self = .setVolume(try params { () throws(JSONReadError) in try VolumeChange(body) })
        case "SET_PLAYBACK_RATE":
            let (absolute, relative) = try params { () throws(JSONReadError) in
                (try body.optionalDouble("playbackRate"), try body.optionalDouble("relativePlaybackRate"))
            }
            guard absolute != nil || relative != nil else {
                throw .invalidParams("SET_PLAYBACK_RATE needs playbackRate or relativePlaybackRate")
            }
            self = .setPlaybackRate(absolute: absolute, relative: relative)
        case "EDIT_TRACKS_INFO": self = .editTracksInfo(try EditTracksRequest(body))
        case "EDIT_AUDIO_TRACKS":
            self = .editAudioTracks(language: try params { () throws(JSONReadError) in try body.optionalString("language") })
        case "QUEUE_INSERT": self = .queueInsert(try QueueInsertRequest(body))
        case "QUEUE_UPDATE": self = .queueUpdate(try QueueUpdateRequest(body))
        case "QUEUE_REMOVE":
            let (itemIds, currentItemId, currentTime) = try params { () throws(JSONReadError) in
                (try body.optionalIntArray("itemIds"), try body.optionalInt("currentItemId"), try body.optionalDouble("currentTime"))
            }
            guard let itemIds, !itemIds.isEmpty else { throw .invalidParams("QUEUE_REMOVE needs itemIds") }
            self = .queueRemove(itemIds: itemIds, currentItemId: currentItemId, currentTime: currentTime)
        case "QUEUE_REORDER": self = .queueReorder(try QueueReorderRequest(body))
        case "QUEUE_NEXT": self = .queueJump(offset: 1)
        case "QUEUE_PREV": self = .queueJump(offset: -1)
        case "QUEUE_SHUFFLE": self = .queueShuffle
        case "QUEUE_GET_ITEM_IDS": self = .queueGetItemIds
        case "QUEUE_GET_ITEMS":
            guard let itemIds = try params({ () throws(JSONReadError) in try body.optionalIntArray("itemIds") }) else {
                throw .invalidParams("QUEUE_GET_ITEMS needs itemIds")
            }
            self = .queueGetItems(itemIds: itemIds)
        case "QUEUE_GET_ITEM_RANGE":
            let (itemId, nextCount, prevCount) = try params { () throws(JSONReadError) in
                (try body.optionalInt("itemId"), try body.optionalInt("nextCount") ?? 0, try body.optionalInt("prevCount") ?? 0)
            }
            guard (nextCount > 0) != (prevCount > 0), nextCount >= 0, prevCount >= 0 else {
                throw .invalidParams("exactly one of nextCount and prevCount must be > 0")
            }
            self = .queueGetItemRange(itemId: itemId, nextCount: nextCount, prevCount: prevCount)
        default:
            self = try Self.cafRequest(header)
        }
    }
}

/// What LOAD and QUEUE_LOAD share: the session's items and how it starts.
package struct SessionStart: Sendable {
    var items: [QueueItem]
    var startIndex: Int
    var repeatMode: RepeatMode
    var startTime: Double?
    var playbackRate: Double?
    /// `queueData` as echoed in MEDIA_STATUS: what the sender sent, without its items.
    var queueData: JSONValue?
    var customData: JSONValue?
    var credentials: String?
    var credentialsType: String?
    /// How the load goes, whatever the media catalog says: an app that knows better (one
    /// whose backend refuses an unentitled asset) decides here.
    var outcome: MediaLoadBehaviour.Outcome?
    /// Commands the session does not offer (``MediaSession/withheldCommands``).
    var withheldCommands: MediaCommands = []

    /// The fields every load carries about the session (customData, credentials).
    mutating func readSessionFields(_ body: JSONReader) throws(JSONReadError) {
        customData = try body.optionalObject("customData")?.value
        credentials = try body.optionalString("credentials")
        credentialsType = try body.optionalString("credentialsType")
    }

    static func queueDataEcho(_ queueData: JSONReader) -> JSONValue { queueData.value.removing("items") }
}

/// LOAD: one item (its media, with the request's own autoplay and tracks), or the queue
/// of `queueData.items`, whose start item the LOAD's media describes.
package struct LoadRequest: Sendable {
    var start: SessionStart

    init(_ body: JSONReader) throws(RequestRejection) {
        start = try params { () throws(JSONReadError) -> SessionStart in
            guard let mediaReader = body["media"] else { throw body.error("LOAD without media") }
            var first = QueueItem(itemId: 0, media: try MediaInformation(mediaReader))
            let activeTrackIds = try body.optionalIntArray("activeTrackIds")
            if let activeTrackIds, let reader = body["activeTrackIds"] {
                try validateActiveTracks(activeTrackIds, against: first.media.tracks, at: reader)
            }
            first.autoplay = body["autoplay"].map { isAutoplay($0.value) } ?? true
            first.activeTrackIds = activeTrackIds
            var start = SessionStart(items: [first], startIndex: 0, repeatMode: .off,
                                     startTime: try body.optionalDouble("currentTime"),
                                     playbackRate: try body.optionalDouble("playbackRate"))
            try start.readSessionFields(body)
            if let queueData = try body.optionalObject("queueData") {
                let items = try queueData.optional("items") { reader throws(JSONReadError) in
                    try QueueItem.decodeList(reader, allowItemId: true)
                } ?? []
                let startIndex = try queueData.optionalInt("startIndex") ?? 0
                if !items.isEmpty, !items.indices.contains(startIndex), let reader = queueData["startIndex"] {
                    throw reader.error("\(startIndex) is outside the \(items.count) items")
                }
                if !items.isEmpty {
                    start.items = items
                    start.startIndex = startIndex
                    start.items[startIndex].autoplay = first.autoplay
                    if let activeTrackIds { start.items[startIndex].activeTrackIds = activeTrackIds }
                }
                start.repeatMode = try queueData.optional("repeatMode") { reader throws(JSONReadError) in
                    try reader.oneOf(RepeatMode.self)
                } ?? .off
                if start.startTime == nil {
                    start.startTime = try queueData.optional("startTime") { reader throws(JSONReadError) in
                        let seconds = try reader.double()
                        guard seconds >= 0 else { throw reader.expected("seconds >= 0") }
                        return seconds
                    }
                }
                start.queueData = SessionStart.queueDataEcho(queueData)
            }
            return start
        }
    }
}

/// QUEUE_LOAD: a queue of items, a start index, a repeat mode.
package struct QueueLoadRequest: Sendable {
    var start: SessionStart

    init(_ body: JSONReader) throws(RequestRejection) {
        start = try params { () throws(JSONReadError) -> SessionStart in
            guard let itemsReader = body["items"] else { throw body.error("QUEUE_LOAD without items") }
            let items = try QueueItem.decodeList(itemsReader, allowItemId: true)
            guard !items.isEmpty else { throw itemsReader.error("a queue needs at least one item") }
            let startIndex = try body.optionalInt("startIndex") ?? 0
            if !items.indices.contains(startIndex), let reader = body["startIndex"] {
                throw reader.error("\(startIndex) is outside the \(items.count) items")
            }
            var start = SessionStart(
                items: items, startIndex: startIndex,
                repeatMode: try body.optional("repeatMode") { reader throws(JSONReadError) in try reader.oneOf(RepeatMode.self) } ?? .off,
                startTime: try body.optionalDouble("currentTime"), playbackRate: nil)
            try start.readSessionFields(body)
            start.queueData = try body.optionalObject("queueData").map(SessionStart.queueDataEcho)
            return start
        }
    }
}

package struct SeekRequest: Sendable {
    var currentTime: Double?
    /// Takes precedence over `currentTime` when present.
    var relativeTime: Double?
    /// true: PLAYBACK_START, false: PLAYBACK_PAUSE, nil: keep the state.
    var resumePlaying: Bool?

    init(_ body: JSONReader) throws(RequestRejection) {
        (currentTime, relativeTime) = try params { () throws(JSONReadError) in
            (try body.optionalDouble("currentTime"), try body.optionalDouble("relativeTime"))
        }
        guard currentTime != nil || relativeTime != nil else { throw .invalidParams("SEEK needs currentTime or relativeTime") }
        switch try params({ () throws(JSONReadError) in try body.optionalString("resumeState") }) {
        case "PLAYBACK_START": resumePlaying = true
        case "PLAYBACK_PAUSE": resumePlaying = false
        case nil, "": resumePlaying = nil  // go-chromecast sends "": keep the state
        case let other?:
            throw .invalidParams("resumeState: expected PLAYBACK_START or PLAYBACK_PAUSE, got \(JSONValue.string(other).jsonText())")
        }
    }
}

package struct EditTracksRequest: Sendable {
    var activeTrackIds: [Int]?
    /// Where `activeTrackIds` is in the request, to name it in errors.
    var activeTrackIdsReader: JSONReader?
    /// Takes precedence over `activeTrackIds`.
    var language: String?
    var enableTextTracks: Bool?
    var textTrackStyle: JSONValue?

    init(_ body: JSONReader) throws(RequestRejection) {
        (activeTrackIds, language, enableTextTracks) = try params { () throws(JSONReadError) in
            (try body.optionalIntArray("activeTrackIds"), try body.optionalString("language"), try body.optionalBool("enableTextTracks"))
        }
        activeTrackIdsReader = body["activeTrackIds"]
        textTrackStyle = try params { () throws(JSONReadError) in
            try body.optional("textTrackStyle") { reader throws(JSONReadError) in
                try TextTrackStyle.validate(reader)
                return reader.value
            }
        }
    }
}

package struct QueueInsertRequest: Sendable {
    var items: [QueueItem]
    var insertBefore: Int?
    /// An index into `items`: the inserted item to play.
    var currentItemIndex: Int?
    /// An item already in the queue to play.
    var currentItemId: Int?
    var currentTime: Double?

    init(_ body: JSONReader) throws(RequestRejection) {
        (items, insertBefore, currentItemIndex, currentItemId, currentTime) = try params { () throws(JSONReadError) in
            guard let itemsReader = body["items"] else { throw body.error("QUEUE_INSERT without items") }
            let items = try QueueItem.decodeList(itemsReader, allowItemId: false)
            guard !items.isEmpty else { throw itemsReader.error("nothing to insert") }
            let index = try body.optionalInt("currentItemIndex")
            if let index, !items.indices.contains(index), let reader = body["currentItemIndex"] {
                throw reader.error("\(index) is outside the \(items.count) inserted items")
            }
            return (items, try body.optionalInt("insertBefore"), index, try body.optionalInt("currentItemId"),
                    try body.optionalDouble("currentTime"))
        }
    }
}

package struct QueueUpdateRequest: Sendable {
    var currentItemId: Int?
    var jump: Int?
    var currentTime: Double?
    var shuffle: Bool?
    var repeatMode: RepeatMode?
    /// New content for existing items, each with the `itemId` it replaces.
    var items: [QueueItem]?

    init(_ body: JSONReader) throws(RequestRejection) {
        (currentItemId, jump, currentTime, shuffle, repeatMode, items) = try params { () throws(JSONReadError) in
            let items = try body.optional("items") { reader throws(JSONReadError) -> [QueueItem] in
                var items = try QueueItem.decodeList(reader, allowItemId: true)
                for (index, element) in try reader.array().enumerated() {
                    guard let id = element["itemId"]?.value.intValue else {
                        throw JSONReadError(path: element.path.appending("itemId"), message: "must name an item of the queue")
                    }
                    items[index].itemId = id
                }
                return items
            }
            return (try body.optionalInt("currentItemId"), try body.optionalInt("jump"), try body.optionalDouble("currentTime"),
                    try body.optionalBool("shuffle"),
                    try body.optional("repeatMode") { reader throws(JSONReadError) in try reader.oneOf(RepeatMode.self) },
                    items)
        }
    }
}

package struct QueueReorderRequest: Sendable {
    var itemIds: [Int]
    var insertBefore: Int?
    var currentItemId: Int?
    var currentTime: Double?

    init(_ body: JSONReader) throws(RequestRejection) {
        let (itemIds, insertBefore, currentItemId, currentTime) = try params { () throws(JSONReadError) in
            (try body.optionalIntArray("itemIds"), try body.optionalInt("insertBefore"), try body.optionalInt("currentItemId"),
             try body.optionalDouble("currentTime"))
        }
        guard let itemIds, !itemIds.isEmpty else { throw .invalidParams("QUEUE_REORDER needs itemIds") }
        guard Set(itemIds).count == itemIds.count else { throw .invalidParams("itemIds: an item is listed twice") }
        self.itemIds = itemIds
        self.insertBefore = insertBefore
        self.currentItemId = currentItemId
        self.currentTime = currentTime
    }
}
