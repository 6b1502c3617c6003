import CastDevice

/// One Cast Streaming session's receiver as a pure state machine: datagrams in, with the
/// time they came; RTCP to send and frames put together out; and when it next wants to be
/// called (docs/protocol/streaming.md §3). Time is the caller's monotonic clock in ns.
public struct StreamingReceiver: Sendable {
    /// A frame put together and decrypted.
    public struct ReceivedFrame: Sendable, Equatable {
        public var senderSsrc: UInt32
        public var isVideo: Bool
        public var frameId: Int64
        public var isKeyFrame: Bool
        public var rtpTimestamp: UInt32
        public var bytes: [UInt8]
    }

    public enum Output: Sendable, Equatable {
        /// An RTCP datagram for the sender.
        case rtcp([UInt8])
        case frame(ReceivedFrame)
    }

    /// Nothing but a report every this often when nothing is missing…
    public static let reportInterval: UInt64 = 500_000_000
    /// …and this often while packets are missing.
    public static let nackInterval: UInt64 = 30_000_000

    private var streams: [StreamState]
    private let origin: UInt64
    /// Datagrams that were neither Cast RTP nor RTCP, or RTP of an SSRC not negotiated.
    public private(set) var strayDatagrams = 0
    public private(set) var malformedPackets = 0
    public private(set) var senderReports = 0
    public private(set) var rtcpSent = 0
    /// The receiver reference time last sent: it must never go back.
    private var lastReferenceTime: UInt64 = 0

    public init(streams: [StreamingStream], now: UInt64) {
        self.streams = streams.map { StreamState(stream: $0, now: now) }
        origin = now
    }

    public mutating func receive(_ datagram: UnsafeRawBufferPointer, at now: UInt64) -> [Output] {
        if RTPPacket.isRTP(datagram) {
            let packet: RTPPacket
            do {
                packet = try RTPPacket(parsing: datagram)
            } catch {
                malformedPackets += 1
                return []
            }
            guard let index = streams.firstIndex(where: { $0.stream.senderSsrc == packet.ssrc }) else {
                strayDatagrams += 1
                return []
            }
            let payload = UnsafeRawBufferPointer(rebasing: datagram[packet.payloadRange])
            let (frames, advanced) = streams[index].add(packet, payload: payload, size: datagram.count, at: now)
            var outputs = frames.map(Output.frame)
            if advanced { outputs.append(.rtcp(report(index, at: now, withBlock: false))) }
            return outputs
        }
        if RTCPPackets.isRTCP(datagram) {
            var outputs: [Output] = []
            for report in RTCPPackets.senderReports(in: datagram) {
                guard let index = streams.firstIndex(where: { $0.stream.senderSsrc == report.ssrc }) else { continue }
                senderReports += 1
                streams[index].lastSenderReport = (report.compactNTP, now)
                outputs.append(.rtcp(self.report(index, at: now, withBlock: true)))
            }
            return outputs
        }
        strayDatagrams += 1
        return []
    }

    /// Asks the sender of `senderSsrc` for a key frame (a PLI in each report until one comes).
    public mutating func requestKeyFrame(senderSsrc: UInt32) {
        guard let index = streams.firstIndex(where: { $0.stream.senderSsrc == senderSsrc }) else { return }
        streams[index].requestKeyFrame()
    }

    /// The reports due at `now`.
    public mutating func advance(to now: UInt64) -> [Output] {
        var outputs: [Output] = []
        for index in streams.indices where streams[index].nextReport(interval: interval(index)) <= now {
            outputs.append(.rtcp(report(index, at: now, withBlock: streams[index].lastSenderReport != nil)))
        }
        return outputs
    }

    public var nextDeadline: UInt64? {
        streams.indices.map { streams[$0].nextReport(interval: interval($0)) }.min()
    }

    private func interval(_ index: Int) -> UInt64 {
        streams[index].collector.losses().isEmpty ? Self.reportInterval : Self.nackInterval
    }

    private mutating func report(_ index: Int, at now: UInt64, withBlock: Bool) -> [UInt8] {
        rtcpSent += 1
        // The receiver's reference time as NTP: seconds and 2^-32 fractions since the session began.
        let elapsed = now &- origin
        var reference = (elapsed / 1_000_000_000) << 32 | ((elapsed % 1_000_000_000) << 32) / 1_000_000_000
        reference = max(reference, lastReferenceTime)
        lastReferenceTime = reference
        return streams[index].report(at: now, referenceTime: reference, withBlock: withBlock)
    }

    // MARK: Figures

    /// What the receiver counted; the runtime adds what it knows (the sender's address,
    /// pictures, what the scenario dropped).
    public func figures(at now: UInt64) -> StreamingFigures {
        var figures = StreamingFigures(streams: streams.map { $0.figures(at: now) })
        figures.senderReports = senderReports
        figures.rtcpSent = rtcpSent
        return figures
    }
}
