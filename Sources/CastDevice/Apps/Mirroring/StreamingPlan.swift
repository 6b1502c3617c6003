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
    /// The OFFER's `receiverRtcpEventLog`: the sender takes receiver event logs for this
    /// stream, so the ANSWER lists it and the RTCP carries them (§3.4).
    public var rtcpEventLog: Bool

    public init(kind: Kind, index: Int, codec: String, senderSsrc: UInt32, receiverSsrc: UInt32, rtpTimebase: Int,
                targetDelayMilliseconds: Int, aesKey: [UInt8], aesIvMask: [UInt8], channels: Int, maxFrameRate: Double? = nil,
                maxBitRate: Int? = nil, rtcpEventLog: Bool = false) {
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
        self.rtcpEventLog = rtcpEventLog
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
