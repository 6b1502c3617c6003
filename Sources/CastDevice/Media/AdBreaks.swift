import CastWire

/// The ad breaks of the current item (docs/protocol/media.md §11): `media.breaks`, each a
/// list of `media.breakClips` at a position of the content (-1: after it), as a LOAD or the
/// media catalog gives them. A simulated player plays each clip for its duration while the
/// content waits at the break's position.
package struct AdBreaks: Sendable, Equatable {
    struct Break: Sendable, Equatable {
        let id: String
        /// Seconds into the content; -1 (negative) for the post-roll, played when the content ends.
        let position: Double
        let clipIds: [String]
        var isPostRoll: Bool { position < 0 }
    }

    struct Clip: Sendable, Equatable {
        let id: String
        let duration: Double
        /// Seconds into the clip after which SKIP_AD may skip it; nil: never.
        let whenSkippable: Double?
    }

    /// A clip that says no duration plays this long (a real player learns it from the stream).
    static let defaultClipDuration = 10.0

    /// In position order, the post-roll last.
    let breaks: [Break]
    let clips: [String: Clip]
    /// Breaks played already (or sent as `isWatched`): not played again.
    var watched: Set<String>

    /// The breaks of `media`, checked already by ``validate(_:)``; nil when it has none.
    init?(_ media: MediaInformation) {
        guard case .array(let list)? = media.passthrough["breaks"], !list.isEmpty else { return nil }
        var clips: [String: Clip] = [:]
        for clip in media.passthrough["breakClips"]?.arrayValue ?? [] {
            guard let id = clip["id"]?.stringValue else { continue }
            clips[id] = Clip(id: id, duration: clip["duration"]?.doubleValue ?? Self.defaultClipDuration,
                             whenSkippable: clip["whenSkippable"]?.doubleValue)
        }
        var breaks: [Break] = []
        var watched = Set<String>()
        for entry in list {
            guard let id = entry["id"]?.stringValue, let position = entry["position"]?.doubleValue else { continue }
            breaks.append(Break(id: id, position: position, clipIds: entry["breakClipIds"]?.arrayValue?.compactMap(\.stringValue) ?? []))
            if entry["isWatched"] == true { watched.insert(id) }
        }
        self.breaks = breaks.sorted { ($0.isPostRoll ? 1 : 0, $0.position) < ($1.isPostRoll ? 1 : 0, $1.position) }
        self.clips = clips
        self.watched = watched
    }

    /// The break a playhead moving from `from` (nil: the item's start) to `target` plays
    /// first: the last unwatched one on the way (CAF's default break-seek rule).
    func due(from: Double?, to target: Double) -> Break? {
        breaks.last { item in
            !item.isPostRoll && !watched.contains(item.id) && item.position <= target && (from.map { item.position > $0 } ?? true)
        }
    }

    /// The next unwatched break at or after `position` as the content plays on.
    func next(after position: Double) -> Break? {
        breaks.first { !$0.isPostRoll && !watched.contains($0.id) && $0.position >= position }
    }

    var postRoll: Break? { breaks.first { $0.isPostRoll && !watched.contains($0.id) } }

    func item(_ id: String) -> Break? { breaks.first { $0.id == id } }

    func clip(of playback: BreakPlayback) -> Clip? {
        item(playback.breakId).flatMap { $0.clipIds.indices.contains(playback.clipIndex) ? clips[$0.clipIds[playback.clipIndex]] : nil }
    }

    /// What a LOAD's (or a media entry's) `breaks` and `breakClips` must be: the fields
    /// the Android SDK needs (a break without `id` or `position` drops them all there), and
    /// clips for every id a break names.
    package static func validate(_ media: JSONReader) throws(JSONReadError) {
        var clipIds = Set<String>()
        if let clips = media["breakClips"] {
            for clip in try clips.array() {
                let id = try clip.required("id", "the clip's id").string(nonEmpty: true)
                try JSONType.check(clip, ["duration": .number, "whenSkippable": .number, "title": .string, "contentId": .string,
                                          "contentUrl": .string, "contentType": .string, "clickThroughUrl": .string, "posterUrl": .string])
                for key in ["duration", "whenSkippable"] {
                    if let value = clip[key], try value.double() < 0 { throw value.expected("seconds >= 0") }
                }
                guard clipIds.insert(id).inserted else { throw clip["id"]!.error("another break clip has the id \(JSONValue.string(id).jsonText())") }
            }
        }
        guard let breaks = media["breaks"] else { return }
        var breakIds = Set<String>()
        for entry in try breaks.array() {
            let id = try entry.required("id", "the break's id").string(nonEmpty: true)
            let position = try entry.required("position", "seconds into the content, -1 after it").double()
            if position < 0, position != -1, let value = entry["position"] { throw value.expected("seconds >= 0, or -1 (post-roll)") }
            let ids = try entry.required("breakClipIds", "the ids of its clips").array()
            for clip in ids {
                let clipId = try clip.string()
                guard clipIds.contains(clipId) else { throw clip.error("no break clip \(JSONValue.string(clipId).jsonText()) in breakClips") }
            }
            try JSONType.check(entry, ["duration": .number])
            for key in ["isWatched", "isEmbedded", "expanded"] { _ = try entry.optionalBool(key) }
            guard breakIds.insert(id).inserted else { throw entry["id"]!.error("another break has the id \(JSONValue.string(id).jsonText())") }
        }
    }
}

/// A break playing: its clip, how far into it, and where the content goes on after it.
struct BreakPlayback: Sendable, Equatable {
    let breakId: String
    var clipIndex: Int
    /// Seconds of the break played before the current clip.
    var breakTimeBeforeClip: Double
    /// Seconds into the clip at `since`, or for good while the player does not play.
    var clipTime: Double
    /// When the clip last started moving; nil while paused or stalled.
    var since: SimTime?
    /// The content position it plays at (frozen during the break), and where it resumes.
    let position: Double
    let resumeAt: Double

    func clipTime(at now: SimTime) -> Double { clipTime + (since.map { max(0, now - $0) } ?? 0) }

    /// The clip stops or starts moving with the player.
    mutating func follow(playing: Bool, at now: SimTime) {
        if playing {
            if since == nil { since = now }
        } else {
            clipTime = clipTime(at: now)
            since = nil
        }
    }
}
