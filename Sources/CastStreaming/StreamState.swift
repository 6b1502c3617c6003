import CastDevice

/// One stream of a ``StreamingReceiver``: its frames, its RTP sequence and jitter for the
/// report block, its last Sender Report, and its figures.
struct StreamState: Sendable {
    let stream: StreamingStream
    var collector = FrameCollector()
    private let crypto: FrameCrypto
    var lastSenderReport: (compactNTP: UInt32, arrival: UInt64)?
    private var lastReport: UInt64
    private var feedbackCount: UInt8 = 0
    /// Frames completed and not yet acknowledged, with when (the ACK latency) and their RTP
    /// timestamp (the event log's ACK).
    private var awaitingAck: [(completedAt: UInt64, rtpTimestamp: UInt32)] = []
    /// Only when the OFFER asked for it.
    private var eventLog: ReceiverEventLog?
    private var ackLatencies = LatencyWindow()
    /// A key frame is needed: a frame has been missing for longer than the target delay.
    private var needsKeyFrame = false
    private var pictureLossIndications = 0
    /// The playout delay the feedback states: the OFFER's, until the sender's adaptive-latency
    /// extension names another.
    private var targetDelayMilliseconds: Int

    // RTP sequence numbers (RFC 3550 §A.1, A.3, A.8).
    private var baseSequence: Int64?
    private var highestSequence: Int64 = 0
    private var received = 0
    private var expectedAtLastReport: Int64 = 0
    private var receivedAtLastReport = 0
    private var jitter = 0.0
    private var lastTransit: Double?
    private var nacked: Set<Int64> = []
    /// Frames the last report NACKed whole (nothing of them had come): each of their packets
    /// that comes is recovered.
    private var nackedFrames: Set<UInt8> = []
    private var recovered = 0

    private var bytes = 0
    private var frames = 0
    private var keyFrames = 0
    private var recent = RecentFrames()
    private var width: Int?
    private var height: Int?

    init(stream: StreamingStream, now: UInt64) {
        self.stream = stream
        crypto = FrameCrypto(key: stream.aesKey, ivMask: stream.aesIvMask)
        targetDelayMilliseconds = stream.targetDelayMilliseconds
        lastReport = now
        if stream.rtcpEventLog { eventLog = ReceiverEventLog(origin: now) }
    }

    var isVideo: Bool { stream.kind == .video }

    func nextReport(interval: UInt64) -> UInt64 { lastReport &+ interval }

    mutating func requestKeyFrame() { if isVideo { needsKeyFrame = true } }

    /// Adds a packet; returns the frames it completed (decrypted) and whether the checkpoint moved.
    mutating func add(_ packet: RTPPacket, payload: UnsafeRawBufferPointer, size: Int, at now: UInt64)
        -> ([StreamingReceiver.ReceivedFrame], Bool)
    {
        received += 1
        bytes += payload.count
        if let delay = packet.newPlayoutDelay, delay > 0 { targetDelayMilliseconds = Int(delay) }
        track(sequence: packet.sequenceNumber, rtpTimestamp: packet.rtpTimestamp, at: now)
        let key = Int64(packet.frameId) << 16 | Int64(packet.packetId)
        if nacked.remove(key) != nil || nackedFrames.contains(packet.frameId) { recovered += 1 }
        eventLog?.packetReceived(rtpTimestamp: packet.rtpTimestamp, packetId: packet.packetId, at: now)
        let before = collector.checkpoint
        let completed = collector.add(packet, payload: payload, at: now)
        var frames: [StreamingReceiver.ReceivedFrame] = []
        for frame in completed {
            self.frames += 1
            nackedFrames.remove(UInt8(truncatingIfNeeded: frame.frameId))
            let plain = crypto.crypt(frame.bytes, frameId: frame.frameId)
            if frame.isKeyFrame {
                keyFrames += 1
                needsKeyFrame = false
                if isVideo, let size = VP8KeyFrame.size(plain) { (width, height) = size }
            }
            recent.add(at: now, bytes: frame.bytes.count)
            awaitingAck.append((frame.completedAt, frame.rtpTimestamp))
            frames.append(StreamingReceiver.ReceivedFrame(senderSsrc: stream.senderSsrc, isVideo: isVideo, frameId: frame.frameId,
                                                          isKeyFrame: frame.isKeyFrame, rtpTimestamp: frame.rtpTimestamp, bytes: plain))
        }
        // A key frame is needed once a frame has waited past the playout delay, or frames are
        // missing whole for a second's worth of video (nothing of them came to wait).
        let waitedTooLong = collector.oldestWaiting(at: now).map { $0 > UInt64(targetDelayMilliseconds) * 1_000_000 } ?? false
        if isVideo, waitedTooLong || collector.newest - collector.checkpoint > 30 {
            needsKeyFrame = true
        }
        return (frames, collector.checkpoint != before)
    }

    private mutating func track(sequence: UInt16, rtpTimestamp: UInt32, at now: UInt64) {
        guard let base = baseSequence else {
            baseSequence = Int64(sequence)
            highestSequence = Int64(sequence)
            return
        }
        _ = base
        let candidate = (highestSequence & ~0xFFFF) | Int64(sequence)
        let extended = candidate < highestSequence - 0x8000 ? candidate + 0x1_0000 : candidate > highestSequence + 0x8000 ? candidate - 0x1_0000 : candidate
        highestSequence = max(highestSequence, extended)
        // Interarrival jitter in RTP units, over packets of a frame and across frames alike.
        let arrival = Double(now) / 1e9 * Double(stream.rtpTimebase)
        let transit = arrival - Double(rtpTimestamp)
        if let last = lastTransit { jitter += (abs(transit - last) - jitter) / 16 }
        lastTransit = transit
    }

    private var expected: Int64 { baseSequence.map { highestSequence - $0 + 1 } ?? 0 }
    private var lost: Int64 { max(0, expected - Int64(received)) }

    mutating func report(at now: UInt64, referenceTime: UInt64, withBlock: Bool) -> [UInt8] {
        lastReport = now
        feedbackCount &+= 1
        let losses = collector.losses()
        // Until the next report: by then a frame re-sent in part is NACKed packet by packet.
        nackedFrames = Set(losses.lazy.filter { $0.packetId == RTCPPackets.Loss.wholeFrame }.map(\.frameId))
        for loss in losses where loss.packetId != RTCPPackets.Loss.wholeFrame {
            nacked.insert(Int64(loss.frameId) << 16 | Int64(loss.packetId))
            for bit in 0..<8 where loss.following & (1 << bit) != 0 {
                nacked.insert(Int64(loss.frameId) << 16 | Int64(loss.packetId) + 1 + Int64(bit))
            }
        }
        if nacked.count > 4096 { nacked.removeAll() }
        var block: RTCPPackets.ReportBlock?
        if withBlock, let sender = lastSenderReport {
            let expectedInterval = expected - expectedAtLastReport
            let lostInterval = expectedInterval - Int64(received - receivedAtLastReport)
            expectedAtLastReport = expected
            receivedAtLastReport = received
            let fraction = expectedInterval > 0 && lostInterval > 0 ? UInt8(min(255, lostInterval * 256 / expectedInterval)) : 0
            block = RTCPPackets.ReportBlock(senderSsrc: stream.senderSsrc, fractionLost: fraction, cumulativeLost: Int32(clamping: lost),
                                            extendedHighestSequence: UInt32(truncatingIfNeeded: highestSequence), jitter: UInt32(jitter),
                                            lastSenderReport: sender.compactNTP,
                                            delaySinceLastSenderReport: Self.compactDuration(from: sender.arrival, to: now))
        }
        let feedback = RTCPPackets.CastFeedback(senderSsrc: stream.senderSsrc, checkpoint: UInt8(truncatingIfNeeded: collector.checkpoint),
                                                targetDelayMilliseconds: UInt16(clamping: targetDelayMilliseconds), losses: losses,
                                                feedbackCount: feedbackCount, acknowledged: collector.acknowledgedAhead())
        if needsKeyFrame { pictureLossIndications += 1 }
        for frame in awaitingAck {
            ackLatencies.add(now &- frame.completedAt)
            eventLog?.frameAckSent(rtpTimestamp: frame.rtpTimestamp, at: now)
        }
        awaitingAck.removeAll(keepingCapacity: true)
        var compound = RTCPPackets.compound(receiverSsrc: stream.receiverSsrc, reportBlock: block, referenceTime: referenceTime,
                                            pictureLoss: needsKeyFrame, feedback: feedback)
        eventLog?.appendPacket(to: &compound, receiverSsrc: stream.receiverSsrc)
        return compound
    }

    /// Nanoseconds from `start` to `end` in 1/65536 s (DLSR); 0 when `end` is not later.
    static func compactDuration(from start: UInt64, to end: UInt64) -> UInt32 {
        guard end > start else { return 0 }
        let elapsed = end - start
        let seconds = elapsed / 1_000_000_000
        let fraction = ((elapsed % 1_000_000_000) << 16) / 1_000_000_000
        return UInt32(truncatingIfNeeded: (seconds << 16) | fraction)
    }

    func figures(at now: UInt64) -> StreamingFigures.Stream {
        var figures = StreamingFigures.Stream(senderSsrc: stream.senderSsrc)
        figures.packetsReceived = received
        figures.packetsLost = Int(lost)
        figures.packetsRecovered = recovered
        figures.duplicatePackets = collector.duplicatePackets
        figures.bytesReceived = bytes
        figures.framesReceived = frames
        figures.keyFrames = keyFrames
        figures.framesDropped = collector.framesDropped
        let window = recent.window(at: now)
        figures.framesPerSecond = Double(window.frames)
        figures.bitsPerSecond = Double(window.bytes * 8)
        figures.ackLatencyP50Milliseconds = ackLatencies.percentile(0.5).map { Double($0) / 1e6 }
        figures.ackLatencyP99Milliseconds = ackLatencies.percentile(0.99).map { Double($0) / 1e6 }
        figures.pictureLossIndications = pictureLossIndications
        figures.checkpointLag = Int(max(0, collector.newest - collector.checkpoint))
        figures.width = width
        figures.height = height
        return figures
    }
}

/// The frames of the last second, for the frame rate and bit rate.
struct RecentFrames: Sendable {
    private var entries: [(at: UInt64, bytes: Int)] = []
    private var start = 0

    mutating func add(at now: UInt64, bytes: Int) {
        entries.append((now, bytes))
        if start > 256, start * 2 > entries.count {
            entries.removeFirst(start)
            start = 0
        }
        while start < entries.count, now &- entries[start].at > 1_000_000_000 { start += 1 }
    }

    func window(at now: UInt64) -> (frames: Int, bytes: Int) {
        var frames = 0
        var bytes = 0
        for entry in entries[start...] where now &- entry.at <= 1_000_000_000 {
            frames += 1
            bytes += entry.bytes
        }
        return (frames, bytes)
    }
}

/// The last 1,000 ACK latencies (ns), for their percentiles.
struct LatencyWindow: Sendable {
    private var samples: [UInt64] = []
    private var next = 0
    static let size = 1000

    mutating func add(_ latency: UInt64) {
        if samples.count < Self.size {
            samples.append(latency)
        } else {
            samples[next] = latency
            next = (next + 1) % Self.size
        }
    }

    func percentile(_ fraction: Double) -> UInt64? {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction + 0.5))]
    }
}

/// The picture size a VP8 key frame states (RFC 6386 §9.1): a 3-byte tag, the start code
/// `9d 01 2a`, then width and height, 14 bits each, little-endian.
package enum VP8KeyFrame {
    package static func size(_ frame: [UInt8]) -> (Int, Int)? {
        guard frame.count >= 10, frame[0] & 1 == 0, frame[3] == 0x9D, frame[4] == 0x01, frame[5] == 0x2A else { return nil }
        let width = (Int(frame[6]) | Int(frame[7]) << 8) & 0x3FFF
        let height = (Int(frame[8]) | Int(frame[9]) << 8) & 0x3FFF
        return (width, height)
    }
}
