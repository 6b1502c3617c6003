import CastDevice
import CastWire
import Foundation

// A device profile of the user's own: a JSON file (`castsim run --profile FILE.json`) or a
// scenario's `device.profile` object, starting from a catalog profile (`base`) and changing
// what it names (docs/profiles.md, profile files). `castsim profiles NAME --json` prints a
// catalog profile in this form.

extension ScenarioKeys {
    package static let profile: Set<String> = [
        "name", "base", "kind", "differs", "model", "manufacturer", "video", "capabilities", "volume", "idleScreen", "quirks",
        "media",
    ]
    package static let profileVolume: Set<String> = ["controlType", "stepInterval"]
    package static let profileMedia: Set<String> = ["videoCodecs", "maxWidth", "maxHeight", "hdr", "audioCodecs"]
    package static let videoCodecs = ["h264", "vp8", "vp9", "hevc", "av1"]
    package static let hdrFormats = ["hdr10", "dolby-vision", "hlg"]
    package static let audioCodecs = ["aac", "mp3", "opus", "vorbis", "flac", "wav", "ac3", "eac3"]
}

extension DeviceProfile {
    /// Reads and checks a profile file; every problem is reported with its path.
    public static func load(contentsOf url: URL) throws(ScenarioValidationError) -> DeviceProfile {
        try parse(try Scenario.read(url), file: url.path)
    }

    public static func parse(_ data: Data, file: String? = nil) throws(ScenarioValidationError) -> DeviceProfile {
        let reader = JSONChecker()
        guard let profile = ScenarioParser(reader: reader).profile(JSONReader(try Scenario.document(data, file: file))),
              reader.isClean else {
            throw ScenarioValidationError(file: file, issues: reader.issues)
        }
        return profile
    }

    /// The profile as a profile file says it: every field, so that it reads back the same.
    public var json: JSONValue {
        var members: [String: JSONValue] = [
            "name": .string(name), "kind": .string(kind.rawValue), "differs": .string(differs), "model": .string(modelName),
            "manufacturer": .string(manufacturer), "video": .bool(supportsVideo), "capabilities": .number(Double(capabilities)),
            "volume": ["controlType": .string(volumeControl.controlType.rawValue), "stepInterval": .number(volumeControl.stepInterval)],
            "idleScreen": .bool(idleScreen), "quirks": quirks.json,
        ]
        members["media"] = media.map { media in
            ["videoCodecs": .array(media.videoCodecs.map(JSONValue.string)), "maxWidth": .number(Double(media.maxWidth)),
             "maxHeight": .number(Double(media.maxHeight)), "hdr": .array(media.hdr.map(JSONValue.string)),
             "audioCodecs": .array(media.audioCodecs.map(JSONValue.string))]
        } ?? .null
        return .object(members)
    }
}

extension DeviceQuirks {
    /// As `device.quirks` writes it.
    var json: JSONValue {
        var eureka: [String: JSONValue] = ["https": .string(self.eureka.https.rawValue), "http": .string(self.eureka.http.rawValue),
                                           "hostCheck": .bool(self.eureka.hostCheck), "deviceDesc": .bool(self.eureka.deviceDesc),
                                           "multizoneKeys": .string(self.eureka.multizoneKeys.rawValue),
                                           "crashAfterPolls": .number(Double(self.eureka.crashAfterPolls ?? 0))]
        if let mac = self.eureka.macAddress { eureka["macAddress"] = .string(mac) }
        if let product = self.eureka.productName { eureka["productName"] = .string(product) }
        var mdns: [String: JSONValue] = ["androidTVRemote": .bool(self.mdns.androidTVRemote), "txt": .object(Dictionary(uniqueKeysWithValues: self.mdns.txt.map { ($0.key, JSONValue.string($0.value)) }))]
        if let host = self.mdns.host { mdns["host"] = .string(host) }
        if let id = self.mdns.id { mdns["id"] = .string(id) }
        if let status = self.mdns.status { mdns["status"] = .number(Double(status)) }
        if let after = self.mdns.dropCastAfter { mdns["dropCastAfter"] = .string(ScenarioDuration.format(after)) }
        var apps: [String: JSONValue] = ["unavailable": .array(self.apps.unavailable.map(JSONValue.string)),
                                         "refuse": .object(self.apps.refuse.mapValues(JSONValue.string))]
        if let timeout = self.apps.idleTimeout { apps["idleTimeout"] = .string(ScenarioDuration.format(timeout)) }
        return [
            "eureka": .object(eureka), "mdns": .object(mdns),
            "volume": ["ignoreSet": .bool(volume.ignoreSet), "relativeOnly": .bool(volume.relativeOnly)],
            "apps": .object(apps), "groupMember": .bool(groupMember),
        ]
    }
}

extension ScenarioParser {
    func profile(_ value: JSONReader) -> DeviceProfile? {
        guard reader.members(value, allowed: ScenarioKeys.profile) != nil else { return nil }
        var profile = DeviceProfile.chromecast
        if let member = value["base"], let base = reader.read({ try member.string(nonEmpty: true) }) {
            do throws(UnknownProfile) { profile = try DeviceProfile.named(base) } catch { reader.fail(member, error.description) }
        }
        profile.name = reader.read { try value.required("name", "the profile's name, e.g. \"my-tv\"").string(nonEmpty: true) } ?? profile.name
        profile.kind = reader.read(value["kind"]) { try $0.oneOf(DeviceProfile.Kind.self) } ?? profile.kind
        profile.differs = reader.read(value["differs"]) { try $0.string() } ?? profile.differs
        profile.modelName = reader.read(value["model"]) { try $0.string(nonEmpty: true) } ?? profile.modelName
        profile.manufacturer = reader.read(value["manufacturer"]) { try $0.string(nonEmpty: true) } ?? profile.manufacturer
        profile.supportsVideo = reader.read(value["video"]) { try $0.bool() } ?? profile.supportsVideo
        profile.capabilities = reader.read(value["capabilities"]) { try $0.int(in: 0...0x7FFF_FFFF) } ?? profile.capabilities
        if let volume = value["volume"], reader.members(volume, allowed: ScenarioKeys.profileVolume) != nil {
            profile.volumeControl.controlType = reader.read(volume["controlType"]) { try $0.oneOf(VolumeControl.ControlType.self) }
                ?? profile.volumeControl.controlType
            profile.volumeControl.stepInterval = reader.read(volume["stepInterval"]) { try $0.double(in: 0...1) }
                ?? profile.volumeControl.stepInterval
        }
        profile.idleScreen = reader.read(value["idleScreen"]) { try $0.bool() } ?? profile.idleScreen
        if let quirks = value["quirks"] { profile.quirks = self.quirks(quirks, over: profile.quirks) }
        if let media = value["media"] {
            if case .null = media.value {
                profile.media = nil
            } else if reader.members(media, allowed: ScenarioKeys.profileMedia) != nil {
                var support = profile.media ?? .audioOnly
                func names(_ key: String, _ allowed: [String]) -> [String]? {
                    guard let list = media[key] else { return nil }
                    return elements(list) { element in reader.read { try element.oneOf(allowed) } }
                }
                support.videoCodecs = names("videoCodecs", ScenarioKeys.videoCodecs) ?? support.videoCodecs
                support.maxWidth = reader.read(media["maxWidth"]) { try $0.int(in: 0...16_384) } ?? support.maxWidth
                support.maxHeight = reader.read(media["maxHeight"]) { try $0.int(in: 0...16_384) } ?? support.maxHeight
                support.hdr = names("hdr", ScenarioKeys.hdrFormats) ?? support.hdr
                support.audioCodecs = names("audioCodecs", ScenarioKeys.audioCodecs) ?? support.audioCodecs
                profile.media = support
            }
        }
        return profile
    }
}
