/// `supportedMediaCommands`: what a media session accepts, as bits (docs/protocol/media.md
/// §5.1). Every bit any sender library names is here once, with its CAF name; 16 and 32
/// are the Android and iOS SDKs' only (deprecated skips, absent from CAF).
public struct MediaCommands: OptionSet, Sendable, Equatable, Codable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let pause = MediaCommands(rawValue: 1)
    public static let seek = MediaCommands(rawValue: 2)
    public static let streamVolume = MediaCommands(rawValue: 4)
    public static let streamMute = MediaCommands(rawValue: 8)
    public static let skipForward = MediaCommands(rawValue: 16)
    public static let skipBackward = MediaCommands(rawValue: 32)
    public static let queueNext = MediaCommands(rawValue: 64)
    public static let queuePrev = MediaCommands(rawValue: 128)
    public static let queueShuffle = MediaCommands(rawValue: 256)
    public static let skipAd = MediaCommands(rawValue: 512)
    public static let queueRepeatAll = MediaCommands(rawValue: 1024)
    public static let queueRepeatOne = MediaCommands(rawValue: 2048)
    public static let editTracks = MediaCommands(rawValue: 4096)
    public static let playbackRate = MediaCommands(rawValue: 8192)
    public static let like = MediaCommands(rawValue: 16384)
    public static let dislike = MediaCommands(rawValue: 32768)
    public static let follow = MediaCommands(rawValue: 65536)
    public static let unfollow = MediaCommands(rawValue: 131_072)
    public static let streamTransfer = MediaCommands(rawValue: 262_144)

    /// Each bit with its CAF name (the SDKs' for 16 and 32), in bit order.
    public static let names: [(command: MediaCommands, name: String)] = [
        (.pause, "PAUSE"), (.seek, "SEEK"), (.streamVolume, "STREAM_VOLUME"), (.streamMute, "STREAM_MUTE"),
        (.skipForward, "SKIP_FORWARD"), (.skipBackward, "SKIP_BACKWARD"), (.queueNext, "QUEUE_NEXT"), (.queuePrev, "QUEUE_PREV"),
        (.queueShuffle, "QUEUE_SHUFFLE"), (.skipAd, "SKIP_AD"), (.queueRepeatAll, "QUEUE_REPEAT_ALL"),
        (.queueRepeatOne, "QUEUE_REPEAT_ONE"), (.editTracks, "EDIT_TRACKS"), (.playbackRate, "PLAYBACK_RATE"), (.like, "LIKE"),
        (.dislike, "DISLIKE"), (.follow, "FOLLOW"), (.unfollow, "UNFOLLOW"), (.streamTransfer, "STREAM_TRANSFER"),
    ]

    /// Every command above.
    public static let all = MediaCommands(rawValue: names.reduce(0) { $0 | $1.command.rawValue })
    /// CAF's ALL_BASIC_MEDIA: 12303.
    public static let allBasicMedia: MediaCommands = [.pause, .seek, .streamVolume, .streamMute, .editTracks, .playbackRate]
    /// What any session of a media receiver allows: the basic commands but EDIT_TRACKS
    /// (only with tracks), and STREAM_TRANSFER (STORE_SESSION answers it).
    static let basic: MediaCommands = [.pause, .seek, .streamVolume, .streamMute, .playbackRate, .streamTransfer]
    /// The user actions with a bit of their own (FLAG has none).
    static let userActions: [String: MediaCommands] = ["LIKE": .like, "DISLIKE": .dislike, "FOLLOW": .follow, "UNFOLLOW": .unfollow]

    /// The names of the bits set, in bit order; bits no source names as `BIT_<value>`.
    public var commandNames: [String] {
        var names = Self.names.filter { contains($0.command) }.map(\.name)
        let unnamed = rawValue & ~Self.all.rawValue
        if unnamed != 0 {
            for bit in 0..<Int.bitWidth where unnamed & (1 << bit) != 0 { names.append("BIT_\(1 << bit)") }
        }
        return names
    }
}
