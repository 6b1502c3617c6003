import CastWire

/// What the receiver says it can take, in the ANSWER's `constraints` and `display`
/// (docs/protocol/streaming.md §2.3). The defaults are a 1080p30 TV's.
public struct StreamingLimits: Sendable, Equatable {
    public var maxWidth = 1920
    public var maxHeight = 1080
    public var maxFrameRate = 30
    public var maxVideoBitRate = 8_000_000
    public var minVideoBitRate = 300_000
    public var maxAudioBitRate = 256_000
    public var minAudioBitRate = 32_000
    public var maxSampleRate = 48_000
    public var maxChannels = 2

    public init() {}
}

/// Building the receiver's answers: the ANSWER to an OFFER (streams chosen, ports and SSRCs,
/// constraints), its error form, and the CAPABILITIES_RESPONSE. Every "ok" answer built here
/// passes the sender's own checks: a sender that parses an "ok" answer it then finds
/// invalid aborts (Open Screen's `cast_sender` does).
package enum StreamingAnswer {
    /// Video codecs in the order the receiver prefers them among those offered.
    package static let videoPreference = ["vp8", "vp9", "h264", "av1", "hevc"]
    package static let audioPreference = ["opus", "aac"]

    /// At most one audio and one video stream, by preference; audio alone for the
    /// audio-only app. Empty when nothing offered can be taken.
    package static func choose(from offer: StreamingOffer, video wanted: Bool) -> [StreamingOffer.Stream] {
        func best(_ kind: StreamingStream.Kind, _ preference: [String]) -> StreamingOffer.Stream? {
            let candidates = offer.streams.filter { $0.kind == kind }
            return preference.lazy.compactMap { codec in candidates.first { $0.codec == codec } }.first
        }
        return [best(.audio, audioPreference), wanted ? best(.video, videoPreference) : nil].compactMap { $0 }
    }

    /// The receiver's SSRC for a stream: the sender's plus one, as Open Screen's receiver
    /// does. It must differ from the sender's (the sender aborts on an equal one).
    package static func receiverSsrc(for sender: UInt32) -> UInt32 { sender &+ 1 }

    package static func ok(seqNum: Int, udpPort: Int, streams: [StreamingStream], limits: StreamingLimits) -> JSONValue {
        var answer: [String: JSONValue] = [
            "udpPort": .number(Double(udpPort)),
            "sendIndexes": .array(streams.map { .number(Double($0.index)) }),
            "ssrcs": .array(streams.map { .number(Double($0.receiverSsrc)) }),
        ]
        // Both halves or neither: the sender rejects constraints missing either.
        answer["constraints"] = [
            "audio": [
                "maxSampleRate": .number(Double(limits.maxSampleRate)), "maxChannels": .number(Double(limits.maxChannels)),
                "minBitRate": .number(Double(limits.minAudioBitRate)), "maxBitRate": .number(Double(limits.maxAudioBitRate)),
            ],
            "video": [
                "maxPixelsPerSecond": .number(Double(limits.maxWidth * limits.maxHeight * limits.maxFrameRate)),
                "minBitRate": .number(Double(limits.minVideoBitRate)), "maxBitRate": .number(Double(limits.maxVideoBitRate)),
                "maxDimensions": dimensions(limits),
            ],
        ]
        answer["display"] = ["dimensions": dimensions(limits), "aspectRatio": .string(aspectRatio(limits)), "scaling": "sender"]
        // The streams whose OFFER asked for receiver event logs get them; omitted when none did.
        let logged = streams.filter(\.rtcpEventLog).map { JSONValue.number(Double($0.index)) }
        if !logged.isEmpty { answer["receiverRtcpEventLog"] = .array(logged) }
        return ["type": "ANSWER", "seqNum": .number(Double(seqNum)), "result": "ok", "answer": .object(answer)]
    }

    package static func error(seqNum: Int, code: Int, description: String) -> JSONValue {
        ["type": "ANSWER", "seqNum": .number(Double(seqNum)), "result": "error",
         "error": ["code": .number(Double(code)), "description": .string(description)]]
    }

    /// castsim does not remote (play media for the sender): the sender keeps mirroring.
    package static func capabilities(seqNum: Int) -> JSONValue {
        ["type": "CAPABILITIES_RESPONSE", "seqNum": .number(Double(seqNum)), "result": "error",
         "error": ["code": .number(Double(StreamingOffer.Refusal.remotingNotSupported)), "description": "Remoting is not supported"]]
    }

    private static func dimensions(_ limits: StreamingLimits) -> JSONValue {
        ["width": .number(Double(limits.maxWidth)), "height": .number(Double(limits.maxHeight)),
         "frameRate": .number(Double(limits.maxFrameRate))]
    }

    /// `W:H` in lowest terms (1920×1080 → 16:9).
    package static func aspectRatio(_ limits: StreamingLimits) -> String {
        func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
        let divisor = max(1, gcd(limits.maxWidth, limits.maxHeight))
        return "\(limits.maxWidth / divisor):\(limits.maxHeight / divisor)"
    }
}
