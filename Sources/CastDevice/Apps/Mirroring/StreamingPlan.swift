import CastWire

/// One stream of a Cast Streaming session as the mirroring app chose it from an OFFER:
/// what the media plane needs to receive it (docs/protocol/streaming.md §2, §4, §5).
public struct StreamingStream: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable { case audio, video }

    public var kind: Kind
    /// The OFFER's `index`, which the ANSWER's `sendIndexes` names.
    public var index: Int
    /// `codecName`, lower-cased (`opus`, `vp8` ...).
    public var codec: String
    /// The sender's SSRC (the OFFER's `ssrc`): RTP is mapped to this stream by it, never by
    /// payload type (both senders send 96 for video and for Opus alike).
    public var senderSsrc: UInt32
    /// The receiver's SSRC, in the ANSWER's `ssrcs` and in every RTCP packet for this stream.
    public var receiverSsrc: UInt32
    /// The RTP clock rate (`timeBase` 1/rate).
    public var rtpTimebase: Int
    /// The playout delay the sender aims at, in milliseconds (`targetDelay`).
    public var targetDelayMilliseconds: Int
    /// AES-128 key and IV mask, 16 bytes each.
    public var aesKey: [UInt8]
    public var aesIvMask: [UInt8]
    /// Video: the largest size and the frame rate offered; audio: channels.
    public var channels: Int
    public var maxFrameRate: Double?
    public var maxBitRate: Int?

    public init(kind: Kind, index: Int, codec: String, senderSsrc: UInt32, receiverSsrc: UInt32, rtpTimebase: Int,
                targetDelayMilliseconds: Int, aesKey: [UInt8], aesIvMask: [UInt8], channels: Int, maxFrameRate: Double? = nil,
                maxBitRate: Int? = nil) {
        self.kind = kind
        self.index = index
        self.codec = codec
        self.senderSsrc = senderSsrc
        self.receiverSsrc = receiverSsrc
        self.rtpTimebase = rtpTimebase
        self.targetDelayMilliseconds = targetDelayMilliseconds
        self.aesKey = aesKey
        self.aesIvMask = aesIvMask
        self.channels = channels
        self.maxFrameRate = maxFrameRate
        self.maxBitRate = maxBitRate
    }
}

/// What the mirroring app asks of the runtime once it accepts an OFFER: a UDP socket for
/// these streams, on the device's address, for the sender on `connection`. The ANSWER waits
/// for the socket's port (``StreamingReport/opened(session:udpPort:)``): the sender's first
/// Sender Report arrives right after the ANSWER.
public struct StreamingPlan: Sendable, Equatable {
    /// The app's session id and the OFFER's seqNum: a renegotiation is a new session.
    public var session: String
    /// The TLS connection the OFFER came on: RTP is taken only from its peer's address.
    public var connection: ConnectionID
    public var streams: [StreamingStream]
    /// The port to bind; 0 lets the system choose.
    public var udpPort: Int
    /// What the scenario does to the session's datagrams and feedback, from the start.
    public var impairment: StreamingImpairment

    public init(session: String, connection: ConnectionID, streams: [StreamingStream], udpPort: Int,
                impairment: StreamingImpairment = StreamingImpairment()) {
        self.session = session
        self.connection = connection
        self.streams = streams
        self.udpPort = udpPort
        self.impairment = impairment
    }
}

/// What the media plane tells the mirroring app: the socket is open (or could not be), the
/// figures so far, or the session ended on its side (no RTP for the idle timeout).
public enum StreamingReport: Sendable, Equatable {
    case opened(session: String, udpPort: Int)
    case failed(session: String, reason: String)
    case figures(session: String, StreamingFigures)
    case ended(session: String, reason: String)

    public var session: String {
        switch self {
        case .opened(let session, _), .failed(let session, _), .figures(let session, _), .ended(let session, _): session
        }
    }
}

/// A streaming session's figures, per stream, as the media plane counted them.
public struct StreamingFigures: Sendable, Equatable {
    /// The newest picture decoded from a key frame.
    public struct Picture: Sendable, Equatable {
        public var frameId: Int
        /// The frame's size (the picture served is scaled down).
        public var width: Int
        public var height: Int
        /// `#rrggbb`: the picture's mean colour.
        public var averageColor: String
        public var pngBytes: Int

        public init(frameId: Int, width: Int, height: Int, averageColor: String, pngBytes: Int) {
            self.frameId = frameId
            self.width = width
            self.height = height
            self.averageColor = averageColor
            self.pngBytes = pngBytes
        }
    }

    public struct Stream: Sendable, Equatable {
        public var senderSsrc: UInt32
        public var packetsReceived = 0
        /// Packets that never came (gaps in the RTP sequence numbers still open).
        public var packetsLost = 0
        /// Packets asked for again (NACKed) that then came.
        public var packetsRecovered = 0
        public var duplicatePackets = 0
        public var bytesReceived = 0
        public var framesReceived = 0
        public var keyFrames = 0
        /// Frames that arrived over the size limit, or could not be put together, and were dropped.
        public var framesDropped = 0
        /// Over the last second.
        public var framesPerSecond = 0.0
        public var bitsPerSecond = 0.0
        /// From a frame's last packet to the RTCP that acknowledged it, in milliseconds.
        public var ackLatencyP50Milliseconds: Double?
        public var ackLatencyP99Milliseconds: Double?
        /// Picture-loss indications sent.
        public var pictureLossIndications = 0
        /// The newest frame id minus the checkpoint acknowledged.
        public var checkpointLag = 0
        /// Video: the size the last decoded key frame had.
        public var width: Int?
        public var height: Int?

        public init(senderSsrc: UInt32) { self.senderSsrc = senderSsrc }
    }

    public var streams: [Stream]
    /// Where RTP comes from (`address:port`), once it came.
    public var senderAddress: String?
    /// Datagrams the scenario's packet loss dropped.
    public var droppedByScenario = 0
    /// Sender Reports received.
    public var senderReports = 0
    /// RTCP datagrams sent.
    public var rtcpSent = 0
    public var picture: Picture?
    /// Key frames decoded into pictures, and those left out (one a second at most).
    public var picturesDecoded = 0
    public var picturesSkipped = 0
    /// Why there are no pictures (FFmpeg's libraries are not installed, a codec castsim
    /// does not decode); nil when there can be.
    public var picturesUnavailable: String?

    public init(streams: [Stream], senderAddress: String? = nil) {
        self.streams = streams
        self.senderAddress = senderAddress
    }
}

/// What happens to a Cast Streaming session, as device events.
public enum StreamingEvent: Sendable, Equatable, CustomStringConvertible {
    /// An OFFER was accepted: the runtime opens the session's UDP socket.
    case negotiating(StreamingPlan)
    /// The ANSWER went out: the sender streams to `udpPort`.
    case started(session: String, udpPort: Int)
    /// The scenario changed what happens to the session's datagrams and feedback.
    case impaired(session: String, StreamingImpairment)
    /// An OFFER was refused with this error ANSWER.
    case refused(seqNum: Int, code: Int, description: String)
    /// The session is over: the runtime closes its socket. With the figures last reported.
    case ended(session: String, reason: String, figures: StreamingFigures? = nil)

    public var description: String {
        switch self {
        case .negotiating(let plan):
            "negotiating \(plan.session): \(plan.streams.map { "\($0.kind.rawValue) \($0.codec)" }.joined(separator: ", "))"
        case .started(let session, let port): "started \(session) on UDP port \(port)"
        case .impaired(let session, let impairment):
            "impaired \(session): \(impairment.packetLossPercent) % loss, \(impairment.addedDelay) s delay, feedback \(impairment.feedback ? "on" : "off")"
        case .refused(let seqNum, let code, let description): "OFFER \(seqNum) refused: \(code) \(description)"
        case .ended(let session, let reason, let figures):
            "ended \(session): \(reason)" + (figures.map { figures in
                " (" + figures.streams.map { "\($0.framesReceived) frames of \($0.senderSsrc)" }.joined(separator: ", ") + ")"
            } ?? "")
        }
    }
}
