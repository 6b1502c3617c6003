import CastWire

/// An OFFER on the webrtc namespace, read as Open Screen's receiver reads it
/// (docs/protocol/streaming.md §2.2): tolerant of unknown fields and of streams of unknown
/// type or codec (they are left out), strict about what the media plane needs.
package struct StreamingOffer: Sendable, Equatable {
    package struct Stream: Sendable, Equatable {
        package var kind: StreamingStream.Kind
        package var index: Int
        package var codec: String
        package var payloadType: Int
        package var ssrc: UInt32
        package var rtpTimebase: Int
        package var targetDelayMilliseconds: Int
        package var aesKey: [UInt8]
        package var aesIvMask: [UInt8]
        package var channels: Int
        package var maxFrameRate: Double?
        package var maxBitRate: Int?
        /// `receiverRtcpEventLog: true`.
        package var rtcpEventLog = false
    }

    package var seqNum: Int
    package var streams: [Stream]

    /// Why an OFFER cannot be taken, as the error ANSWER says it: `code` is 10000 plus
    /// Open Screen's error code.
    package struct Refusal: Error, Sendable, Equatable {
        package var code: Int
        package var description: String

        package static func invalid(_ path: String, _ expected: String) -> Refusal {
            Refusal(code: parameterInvalid, description: "\(path): expected \(expected)")
        }
        package static let parameterInvalid = 10092
        package static let unencryptedOffer = 10105
        package static let remotingNotSupported = 10106
        package static let noStreamSelected = 10107
    }

    package static let audioCodecs: Set<String> = ["opus", "aac"]
    package static let videoCodecs: Set<String> = ["vp8", "vp9", "av1", "h264", "hevc"]
    /// Cast payload types: 96–104, and 127 for audio ("the Android TV hack" both senders use).
    package static let payloadTypes: Set<Int> = Set(96...104).union([127])
    /// Open Screen's default when `targetDelay` is absent or out of range.
    package static let defaultTargetDelay = 400

    /// The OFFER's `seqNum`, when it has a usable one: an error ANSWER needs it.
    package static func seqNum(of payload: JSONValue) -> Int? {
        guard let seqNum = payload["seqNum"]?.intValue, seqNum >= 0 else { return nil }
        return seqNum
    }

    package init(_ payload: JSONValue) throws(Refusal) {
        guard let seqNum = Self.seqNum(of: payload) else { throw .invalid("seqNum", "a non-negative integer") }
        self.seqNum = seqNum
        guard let offer = payload["offer"], offer.objectValue != nil else { throw .invalid("offer", "an object") }
        if let mode = offer["castMode"] {
            guard let text = mode.stringValue else { throw .invalid("offer.castMode", "\"mirroring\" or \"remoting\"") }
            if text == "remoting" { throw Refusal(code: Refusal.remotingNotSupported, description: "Remoting is not supported") }
            guard text == "mirroring" else { throw .invalid("offer.castMode", "\"mirroring\" or \"remoting\"") }
        }
        guard let supported = offer["supportedStreams"]?.arrayValue else {
            throw .invalid("offer.supportedStreams", "an array of streams")
        }
        var streams: [Stream] = []
        for (position, stream) in supported.enumerated() {
            if let parsed = try Self.stream(stream, path: "offer.supportedStreams[\(position)]") { streams.append(parsed) }
        }
        self.streams = streams
    }

    /// One stream, or nil for a type or codec a mirroring receiver does not take.
    private static func stream(_ value: JSONValue, path: String) throws(Refusal) -> Stream? {
        guard value.objectValue != nil else { throw .invalid(path, "an object") }
        let kind: StreamingStream.Kind
        switch value["type"]?.stringValue {
        case "audio_source": kind = .audio
        case "video_source": kind = .video
        default: return nil
        }
        guard let index = value["index"]?.intValue, index >= 0 else { throw .invalid("\(path).index", "a non-negative integer") }
        guard let codec = value["codecName"]?.stringValue?.lowercased() else { throw .invalid("\(path).codecName", "a string") }
        guard (kind == .audio ? audioCodecs : videoCodecs).contains(codec) else { return nil }
        guard let payloadType = value["rtpPayloadType"]?.intValue, payloadTypes.contains(payloadType) else {
            throw .invalid("\(path).rtpPayloadType", "96 to 104, or 127")
        }
        guard let ssrc = value["ssrc"]?.intValue, let sender = UInt32(exactly: ssrc) else {
            throw .invalid("\(path).ssrc", "an unsigned 32-bit integer")
        }
        guard let timeBase = value["timeBase"]?.stringValue, let rate = Self.rate(timeBase) else {
            throw .invalid("\(path).timeBase", "\"1/<rate>\" with a rate of 1000 to 1000000")
        }
        guard let key = value["aesKey"]?.stringValue.flatMap(Self.hex16), let mask = value["aesIvMask"]?.stringValue.flatMap(Self.hex16) else {
            throw Refusal(code: Refusal.unencryptedOffer, description: "\(path): aesKey and aesIvMask must each be 32 hex digits")
        }
        var delay = defaultTargetDelay
        if let given = value["targetDelay"] {
            guard let milliseconds = given.intValue else { throw .invalid("\(path).targetDelay", "an integer of milliseconds") }
            guard milliseconds != 0 else { throw .invalid("\(path).targetDelay", "a delay over 0 ms") }
            if (1...5000).contains(milliseconds) { delay = milliseconds }
        }
        var channels = kind == .audio ? 2 : 1
        if let given = value["channels"] {
            guard let count = given.intValue, count > 0 else { throw .invalid("\(path).channels", "a positive integer") }
            channels = count
        }
        var maxFrameRate: Double?
        var maxBitRate: Int?
        switch kind {
        case .audio:
            guard let bitRate = value["bitRate"]?.intValue, bitRate >= 0 else {
                throw .invalid("\(path).bitRate", "a non-negative integer (bits per second)")
            }
            maxBitRate = bitRate
        case .video:
            maxFrameRate = 30
            if let given = value["maxFrameRate"] {
                guard let rate = Self.frameRate(given) else { throw .invalid("\(path).maxFrameRate", "a frame rate such as \"30\" or \"30000/1001\"") }
                maxFrameRate = rate
            }
            maxBitRate = 4 << 20
            if let given = value["maxBitRate"] {
                guard let bitRate = given.intValue, bitRate > 0 else { throw .invalid("\(path).maxBitRate", "a positive integer (bits per second)") }
                maxBitRate = bitRate
            }
        }
        // Open Screen's sender always says true; anything but true is no.
        return Stream(kind: kind, index: index, codec: codec, payloadType: payloadType, ssrc: sender, rtpTimebase: rate,
                      targetDelayMilliseconds: delay, aesKey: key, aesIvMask: mask, channels: channels, maxFrameRate: maxFrameRate,
                      maxBitRate: maxBitRate, rtcpEventLog: value["receiverRtcpEventLog"] == .bool(true))
    }

    /// `"1/48000"` → 48000.
    package static func rate(_ timeBase: String) -> Int? {
        let parts = timeBase.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == "1", let rate = Int(parts[1]), (1000...1_000_000).contains(rate) else { return nil }
        return rate
    }

    /// A frame rate as a number, `"30"` or `"30000/1001"`.
    package static func frameRate(_ value: JSONValue) -> Double? {
        if let number = value.doubleValue { return number > 0 && number.isFinite ? number : nil }
        guard let text = value.stringValue else { return nil }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard let numerator = Double(parts[0]), numerator > 0, numerator.isFinite else { return nil }
        if parts.count == 1 { return numerator }
        guard parts.count == 2, let denominator = Double(parts[1]), denominator > 0 else { return nil }
        return numerator / denominator
    }

    /// 32 hex digits → 16 bytes.
    package static func hex16(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count == 32 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        for pair in stride(from: 0, to: 32, by: 2) {
            guard let high = hexValue(digits[pair]), let low = hexValue(digits[pair + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
