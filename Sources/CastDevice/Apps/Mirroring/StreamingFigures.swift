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
        /// Packets asked for again (NACKed one by one, or with their whole frame) that then came.
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
