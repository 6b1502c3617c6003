import CastWire

/// The messages the EMP receiver sends on its namespace: `{"type", "data"}` JSON with the
/// exact casing and JSON types the senders decode (docs/protocol/emp.md §4): integers where
/// iOS decodes Int/Int64 and Android calls getLong, bare booleans, ids as strings.
enum EMPEvent {
    static func message(_ type: String, _ data: JSONValue?) -> JSONPayload {
        var fields: [String: JSONValue] = ["type": .string(type)]
        if let data { fields["data"] = data }
        return JSONPayload(.object(fields))
    }

    /// emp.md §4.3: `{volume: 0..1, muted}`.
    static func volumeChange(_ volume: Volume) -> JSONPayload {
        message("volumechange", ["volume": .number(volume.level.clamped(to: 0...1)), "muted": .bool(volume.muted)])
    }

    /// emp.md §4.1: every track with both `id` (iOS, old Android) and `trackId` (Enigma), string
    /// `label` and `language`, and `kind`; text tracks before audio tracks.
    static func tracksUpdated(tracks: [Track], activeTrackIds: [Int]) -> JSONPayload {
        let listed = tracks.filter { $0.kind == .text } + tracks.filter { $0.kind == .audio }
        let ids = Set(listed.map(\.trackId))
        return message("tracksupdated", ["tracksInfo": [
            "activeTrackIds": .array(activeTrackIds.filter(ids.contains).map { .number(Double($0)) }),
            "tracks": .array(listed.map(track)),
        ]])
    }

    private static func track(_ track: Track) -> JSONValue {
        let language = track.language ?? ""
        let kind = track.kind == .text ? (track.subtype ?? "SUBTITLES").lowercased() : "main"
        return [
            "id": .number(Double(track.trackId)), "trackId": .number(Double(track.trackId)),
            "label": .string(track.json["name"]?.stringValue ?? EMPLanguageNames.label(language)),
            "language": .string(language), "type": .string(track.kind == .text ? "text" : "audio"), "kind": .string(kind),
        ]
    }

    /// emp.md §4.5: the Exposure program, ids as strings, ISO times, an `asset` object (the old
    /// Android sender requires it). An unsolicited change also carries the player's
    /// `start`/`end` dates; the pull answer blanks them, as receiver 2.79 does.
    static func programChanged(_ program: ExposureWorld.Program, channelId: String, clock: ExposureClock,
                               withDates: Bool) -> JSONPayload {
        let startTime = JSONValue.string(clock.isoTime(program.start))
        let endTime = JSONValue.string(clock.isoTime(program.end))
        var asset: [String: JSONValue] = ["assetId": .string(program.assetId)]
        var fields: [String: JSONValue] = [
            "programId": .string(program.programId), "assetId": .string(program.assetId), "channelId": .string(channelId),
            "startTime": startTime, "endTime": endTime,
        ]
        if let title = program.title {
            asset["localized"] = [["locale": "en", "title": .string(title)]]
            fields["title"] = .string(title)
        }
        fields["asset"] = .object(asset)
        if withDates {
            fields["start"] = startTime
            fields["end"] = endTime
        }
        return message("programchanged", ["program": .object(fields)])
    }

    /// emp.md §4.6: the five booleans always, bitrates and height as integers when known.
    static func entitlementChange(_ grant: ExposureWorld.Grant, contentId: String, isLive: Bool) -> JSONPayload {
        var entitlement: [String: JSONValue] = [
            "assetId": .string(contentId), "live": .bool(grant.live ?? isLive), "ffEnabled": .bool(grant.ffEnabled),
            "rwEnabled": .bool(grant.rwEnabled), "timeshiftEnabled": .bool(grant.timeshiftEnabled),
            "airplayBlocked": .bool(grant.airplayBlocked),
        ]
        if let value = grant.minBitrate { entitlement["minBitrate"] = .number(Double(value)) }
        if let value = grant.maxBitrate { entitlement["maxBitrate"] = .number(Double(value)) }
        if let value = grant.maxResHeight { entitlement["maxResHeight"] = .number(Double(value)) }
        return message("entitlementchange", ["entitlement": .object(entitlement)])
    }

    /// emp.md §4.8: `{"type":"ERROR","code":<int>,"message":<string>}`.
    static func error(code: Int, message text: String) -> JSONPayload {
        message("error", ["type": "ERROR", "code": .number(Double(code)), "message": .string(text)])
    }

    /// emp.md §4.7: iOS decodes an Int64, so the position is whole seconds unless the scenario
    /// asks for the real receiver's fractional value.
    static func segmentMissing(_ position: Double, fractional: Bool) -> JSONPayload {
        message("segmentmissing", .number(fractional ? position : position.rounded(.down)))
    }

    /// emp.md §4.9 (opt-in: iOS rejects it): the Exposure asset object.
    static func assetChanged(assetId: String, title: String?) -> JSONPayload {
        var asset: [String: JSONValue] = ["assetId": .string(assetId)]
        if let title { asset["localized"] = [["locale": "en", "title": .string(title)]] }
        return message("assetchanged", ["asset": .object(asset)])
    }
}

/// Scenario time as the wall-clock time Exposure and the senders see: a fixed epoch plus
/// scenario seconds, so every run (and every replay) sends the same dates.
struct ExposureClock: Sendable {
    let epochMilliseconds: Int64

    /// Milliseconds since 1970 at scenario time `seconds`, whole (iOS decodes Int64);
    /// saturated, so no time however far advanced can trap the conversion.
    func milliseconds(_ seconds: Double) -> Int64 {
        let total = (Double(epochMilliseconds) + seconds * 1000).rounded()
        guard total.isFinite else { return total > 0 ? Self.latest : total < 0 ? -Self.latest : epochMilliseconds }
        return Int64(total.clamped(to: -Double(Self.latest)...Double(Self.latest)))
    }

    /// Year 275760, JavaScript's last date: far inside Int64 and what a sender can parse.
    static let latest: Int64 = 8_640_000_000_000_000

    /// Scenario seconds at `milliseconds` since 1970.
    func seconds(atMilliseconds milliseconds: Double) -> Double {
        (milliseconds - Double(epochMilliseconds)) / 1000
    }

    /// `2026-01-01T12:00:00.000Z`, as JavaScript's `Date.toJSON` writes it.
    func isoTime(_ seconds: Double) -> String {
        ISOTime.text(milliseconds: milliseconds(seconds))
    }
}

/// Track labels as a player shows them: the language's own name.
enum EMPLanguageNames {
    static let names: [String: String] = [
        "en": "English", "sv": "Svenska", "de": "Deutsch", "fr": "Français", "es": "Español", "it": "Italiano",
        "nb": "Norsk", "no": "Norsk", "da": "Dansk", "fi": "Suomi", "nl": "Nederlands", "pt": "Português",
        "pl": "Polski", "ar": "العربية", "ja": "日本語", "zh": "中文",
    ]

    static func label(_ language: String) -> String {
        let primary = language.split(separator: "-").first.map { String($0).lowercased() } ?? language
        return names[primary] ?? language
    }
}
