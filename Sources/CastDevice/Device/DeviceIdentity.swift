import CastWire

/// Who the simulated device is: what discovery, eureka_info and device auth present.
public struct DeviceIdentity: Sendable, Equatable, Codable {
    /// 32 lowercase hex digits, no dashes: the mDNS `id` TXT value.
    public private(set) var uuid: String
    public var friendlyName: String
    public var modelName: String
    public var manufacturer: String
    /// A video device shows the Backdrop idle screen and reports `isActiveInput`/`isStandBy`.
    public var supportsVideo: Bool
    public var supportsAudio: Bool
    /// The `ca` bits when they are not what `supportsVideo`/`supportsAudio` make them: a
    /// speaker group's endpoint is audio-only but advertises its leader's bits plus bit 5
    /// (docs/protocol/groups.md §1.1). nil: derived, as on every plain device.
    public var advertisedCapabilities: Int?

    public init(
        uuid: String, friendlyName: String = "castsim", modelName: String = "Chromecast",
        manufacturer: String = "Google Inc.", supportsVideo: Bool = true, supportsAudio: Bool = true,
        advertisedCapabilities: Int? = nil
    ) throws(IdentityError) {
        guard let normalized = Self.normalizeUUID(uuid) else { throw .invalidUUID(uuid) }
        self.uuid = normalized
        self.friendlyName = friendlyName
        self.modelName = modelName
        self.manufacturer = manufacturer
        self.supportsVideo = supportsVideo
        self.supportsAudio = supportsAudio
        self.advertisedCapabilities = advertisedCapabilities
    }

    private enum CodingKeys: String, CodingKey {
        case uuid, friendlyName, modelName, manufacturer, supportsVideo, supportsAudio, advertisedCapabilities
    }

    /// Decoded through the checking initializer: a bad UUID is refused, not stored.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let uuid = try container.decode(String.self, forKey: .uuid)
        do {
            try self.init(
                uuid: uuid, friendlyName: try container.decode(String.self, forKey: .friendlyName),
                modelName: try container.decode(String.self, forKey: .modelName),
                manufacturer: try container.decode(String.self, forKey: .manufacturer),
                supportsVideo: try container.decode(Bool.self, forKey: .supportsVideo),
                supportsAudio: try container.decode(Bool.self, forKey: .supportsAudio),
                advertisedCapabilities: try container.decodeIfPresent(Int.self, forKey: .advertisedCapabilities))
        } catch let error as IdentityError {
            throw DecodingError.dataCorruptedError(forKey: .uuid, in: container, debugDescription: error.description)
        }
    }

    /// The UUID with dashes (8-4-4-4-12), as `ssdp_udn` and the mDNS host name use it.
    public var dashedUUID: String { Self.dashed(uuid) }

    /// Accepts 32 hex digits with or without the usual dashes, in either case.
    public static func normalizeUUID(_ text: String) -> String? {
        let hex = text.replacingOccurrences(of: "-", with: "").lowercased()
        guard hex.count == 32, hex.allSatisfy(\.isASCIIHexDigit) else { return nil }
        if text.contains("-") {
            // Dashes only where a UUID has them.
            let groups = text.split(separator: "-", omittingEmptySubsequences: false).map(\.count)
            guard groups == [8, 4, 4, 4, 12] else { return nil }
        }
        return hex
    }

    /// 32 hex digits with the usual dashes (8-4-4-4-12); anything else as it is.
    package static func dashed(_ hex: String) -> String {
        let chars = Array(hex)
        guard chars.count == 32 else { return hex }
        var parts: [String] = []
        var start = 0
        for length in [8, 4, 4, 4, 12] {
            parts.append(String(chars[start..<start + length]))
            start += length
        }
        return parts.joined(separator: "-")
    }

    /// The mDNS `ca` capability bits: 0 video out, 2 audio out, 5 multizone group (a group
    /// endpoint's ``advertisedCapabilities``).
    public var capabilityBits: Int { advertisedCapabilities ?? ((supportsVideo ? 1 : 0) | (supportsAudio ? 4 : 0)) }
}

public enum IdentityError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidUUID(String)
    public var description: String {
        switch self {
        case .invalidUUID(let text): "invalid device UUID \"\(text)\": expected 32 hex digits, with or without dashes (8-4-4-4-12)"
        }
    }
}
