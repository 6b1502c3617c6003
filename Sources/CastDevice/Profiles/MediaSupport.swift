import Foundation

/// What a family can decode, from Google's "Supported Media for Google Cast" page
/// (docs/profiles.md, media): video codecs and the largest picture, HDR formats, audio
/// codecs. A LOAD of media outside it fails as on the device: LOAD_FAILED with
/// `detailedErrorCode` 104 (MEDIA_SRC_NOT_SUPPORTED), then IDLE/ERROR.
///
/// What the media is comes from the `codecs` of its content type (RFC 6381 strings:
/// `video/mp4; codecs="hvc1.2.4.L153.B0"`; the scenario's declared type wins over the
/// sender's) and from the scenario's `video` facts of the item (size, HDR). What neither
/// says is not held against the media: a sender that names no codec is not refused.
public struct MediaSupport: Sendable, Equatable, Codable {
    /// `h264`, `vp8`, `vp9`, `hevc`, `av1`; empty on audio-only devices.
    public var videoCodecs: [String]
    public var maxWidth: Int
    public var maxHeight: Int
    /// `hdr10`, `dolby-vision`, `hlg`.
    public var hdr: [String]
    /// `aac`, `mp3`, `opus`, `vorbis`, `flac`, `wav`, `ac3`, `eac3`.
    public var audioCodecs: [String]

    public init(videoCodecs: [String], maxWidth: Int, maxHeight: Int, hdr: [String] = [], audioCodecs: [String] = MediaSupport.castAudio) {
        self.videoCodecs = videoCodecs
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
        self.hdr = hdr
        self.audioCodecs = audioCodecs
    }

    /// The audio every Cast device plays.
    public static let castAudio = ["aac", "mp3", "opus", "vorbis", "flac", "wav"]
    /// A speaker: no picture at all.
    public static let audioOnly = MediaSupport(videoCodecs: [], maxWidth: 0, maxHeight: 0)

    /// What the media is, as far as anyone said.
    public struct Facts: Sendable, Equatable, Codable {
        public var width: Int?
        public var height: Int?
        public var hdr: String?

        public init(width: Int? = nil, height: Int? = nil, hdr: String? = nil) {
            self.width = width
            self.height = height
            self.hdr = hdr
        }
    }

    /// Why this device cannot play media of `contentType` with `facts`, or nil if it can (or
    /// nothing says it cannot).
    public func refusal(contentType: String?, facts: Facts?) -> String? {
        for codec in Self.codecs(in: contentType ?? "") {
            if let video = Self.videoFamily(codec) {
                if !videoCodecs.contains(video) { return "\(codec) (\(video)) is not a video codec this device decodes" }
                if codec.hasPrefix("dvh"), !hdr.contains("dolby-vision") { return "\(codec): no Dolby Vision on this device" }
            } else if let audio = Self.audioFamily(codec), !audioCodecs.contains(audio) {
                return "\(codec) (\(audio)) is not an audio codec this device decodes"
            }
        }
        guard let facts else { return nil }
        if let width = facts.width, let height = facts.height, width > maxWidth || height > maxHeight {
            return videoCodecs.isEmpty ? "video on an audio-only device" : "\(width)×\(height) is larger than this device's \(maxWidth)×\(maxHeight)"
        }
        if let format = facts.hdr, !hdr.contains(format) { return "\(format) is not an HDR format this device shows" }
        return nil
    }

    /// The codec strings of `codecs="…"` in a content type.
    static func codecs(in contentType: String) -> [String] {
        guard let range = contentType.range(of: "codecs=", options: .caseInsensitive) else { return [] }
        let value = contentType[range.upperBound...].prefix { $0 != ";" }
        return value.trimmingCharacters(in: CharacterSet(charactersIn: "\"' ")).split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
    }

    static func videoFamily(_ codec: String) -> String? {
        let tag = codec.split(separator: ".").first.map(String.init) ?? codec
        return switch tag {
        case "avc1", "avc3": "h264"
        case "hvc1", "hev1", "dvh1", "dvhe": "hevc"
        case "vp8", "vp08": "vp8"
        case "vp9", "vp09": "vp9"
        case "av01": "av1"
        default: nil
        }
    }

    static func audioFamily(_ codec: String) -> String? {
        switch codec {
        case "mp4a.69", "mp4a.6b", "mp3", "mp4a.40.34": return "mp3"
        case "opus": return "opus"
        case "vorbis": return "vorbis"
        case "flac", "fla1": return "flac"
        case "ac-3": return "ac3"
        case "ec-3": return "eac3"
        default: return codec.hasPrefix("mp4a.40") ? "aac" : nil
        }
    }
}
