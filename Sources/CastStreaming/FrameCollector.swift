/// One stream's frames as their packets arrive, in any order, with duplicates and gaps: which
/// frames are complete, the checkpoint (every frame up to it complete), and what is missing.
/// Bounded: a frame over ``maxFrameBytes`` or with more packets than fit is dropped and
/// counted, and at most ``maxFramesInFlight`` frames wait.
public struct FrameCollector: Sendable {
    /// A frame put together, still encrypted.
    public struct Frame: Sendable, Equatable {
        public var frameId: Int64
        public var isKeyFrame: Bool
        public var rtpTimestamp: UInt32
        public var bytes: [UInt8]
        /// When its last packet came (the receiver's clock, ns).
        public var completedAt: UInt64
    }

    /// Larger frames are dropped: a 4K key frame is under 1 MB at any bit rate a sender uses.
    public static let maxFrameBytes = 4 << 20
    /// Packets of at most 1472 bytes: more than this many cannot stay under ``maxFrameBytes``.
    static let maxPacketsPerFrame = maxFrameBytes / 1000
    /// The sender never has more than 120 frames unacknowledged; twice that is plenty.
    public static let maxFramesInFlight = 240

    private struct Partial: Sendable {
        var maxPacketId: UInt16
        var packets: [[UInt8]?]
        var received = 0
        var bytes = 0
        var isKeyFrame = false
        var rtpTimestamp: UInt32 = 0
        var firstArrival: UInt64
        var complete: Bool { received == packets.count }
    }

    private var expander = FrameIdExpander()
    private var partial: [Int64: Partial] = [:]
    /// Complete frames past the checkpoint, waiting for the frames before them.
    private var completeAhead: Set<Int64> = []
    public private(set) var checkpoint: Int64 = -1
    public private(set) var newest: Int64 = -1
    public private(set) var duplicatePackets = 0
    public private(set) var framesDropped = 0
    /// Packets refused on their own: a packet count that disagrees with the frame's first packet.
    public private(set) var packetsRefused = 0

    public init() {}

    /// A packet's payload; returns the frames completed by it, in frame-id order, and
    /// whether the checkpoint moved.
    public mutating func add(_ packet: RTPPacket, payload: UnsafeRawBufferPointer, at now: UInt64) -> [Frame] {
        // The first packet of a stream is taken as it is: ids start at 0 but a session
        // joined late starts anywhere.
        let frameId = expander.highest < 0 ? Int64(packet.frameId) : expander.expand(packet.frameId)
        if expander.highest < 0 { expander = FrameIdExpander(highest: frameId) }
        guard frameId > checkpoint, !completeAhead.contains(frameId) else {
            duplicatePackets += 1
            return []
        }
        newest = max(newest, frameId)
        // A frame that never comes must not hold everything behind it forever: past the
        // frames a sender may have in flight, the oldest are given up.
        while newest - checkpoint > Int64(Self.maxFramesInFlight) { giveUp(checkpoint + 1) }
        var frame = partial[frameId] ?? Partial(maxPacketId: packet.maxPacketId,
                                                 packets: .init(repeating: nil, count: min(Int(packet.maxPacketId) + 1, Self.maxPacketsPerFrame + 1)),
                                                 firstArrival: now)
        guard Int(packet.maxPacketId) < Self.maxPacketsPerFrame else {
            // Too many packets to be a frame castsim keeps.
            drop(frameId)
            return []
        }
        guard packet.maxPacketId == frame.maxPacketId else {
            // Disagrees with the frame's first packet: this packet is refused, as Open
            // Screen's receiver refuses it; the frame waits for the right one.
            packetsRefused += 1
            return []
        }
        let index = Int(packet.packetId)
        guard frame.packets[index] == nil else {
            duplicatePackets += 1
            return []
        }
        frame.packets[index] = Array(payload)
        frame.received += 1
        frame.bytes += payload.count
        if packet.packetId == 0 {
            frame.isKeyFrame = packet.isKeyFrame
            frame.rtpTimestamp = packet.rtpTimestamp
        }
        guard frame.bytes <= Self.maxFrameBytes else {
            drop(frameId)
            return []
        }
        if frame.packets[0] == nil { frame.rtpTimestamp = packet.rtpTimestamp }
        partial[frameId] = frame
        if partial.count > Self.maxFramesInFlight, let oldest = partial.keys.min() { drop(oldest) }
        guard frame.complete else { return [] }
        completeAhead.insert(frameId)
        var done = [assemble(frameId, at: now)]
        // A key frame needs nothing before it: the frames still missing there are given up.
        if frame.isKeyFrame, frameId > checkpoint + 1 {
            for skipped in (checkpoint + 1)..<frameId where !completeAhead.contains(skipped) {
                framesDropped += 1
                partial[skipped] = nil
            }
            for skipped in (checkpoint + 1)..<frameId where completeAhead.contains(skipped) { completeAhead.remove(skipped) }
            checkpoint = frameId - 1
        }
        while completeAhead.remove(checkpoint + 1) != nil { checkpoint += 1 }
        done.sort { $0.frameId < $1.frameId }
        return done
    }

    private mutating func assemble(_ frameId: Int64, at now: UInt64) -> Frame {
        let frame = partial.removeValue(forKey: frameId)!
        var bytes: [UInt8] = []
        bytes.reserveCapacity(frame.bytes)
        for packet in frame.packets { bytes.append(contentsOf: packet!) }
        return Frame(frameId: frameId, isKeyFrame: frame.isKeyFrame, rtpTimestamp: frame.rtpTimestamp, bytes: bytes, completedAt: now)
    }

    /// Gives up the frame after the checkpoint: counted as dropped unless it was complete.
    private mutating func giveUp(_ frameId: Int64) {
        if completeAhead.contains(frameId) {
            completeAhead.remove(frameId)
            checkpoint = frameId
            while completeAhead.remove(checkpoint + 1) != nil { checkpoint += 1 }
        } else {
            drop(frameId)
        }
    }

    private mutating func drop(_ frameId: Int64) {
        framesDropped += 1
        partial[frameId] = nil
        // Given up: counted as done, so the checkpoint can pass it.
        completeAhead.insert(frameId)
        while completeAhead.remove(checkpoint + 1) != nil { checkpoint += 1 }
    }

    /// What to ask for again: missing packets of frames after the checkpoint, except the
    /// newest frame's packets past the highest one received (still on their way); frames of
    /// which nothing came at all, whole.
    public func losses() -> [RTCPPackets.Loss] {
        guard newest > checkpoint + 0 else { return [] }
        var losses: [RTCPPackets.Loss] = []
        for frameId in (checkpoint + 1)...newest where !completeAhead.contains(frameId) {
            let low = UInt8(truncatingIfNeeded: frameId)
            guard let frame = partial[frameId] else {
                losses.append(RTCPPackets.Loss(frameId: low, packetId: RTCPPackets.Loss.wholeFrame))
                continue
            }
            let limit = frameId == newest ? (frame.packets.lastIndex { $0 != nil } ?? 0) : frame.packets.count
            var packetId = 0
            while packetId < limit {
                guard frame.packets[packetId] == nil else {
                    packetId += 1
                    continue
                }
                var following: UInt8 = 0
                for bit in 0..<8 where packetId + 1 + bit < limit && frame.packets[packetId + 1 + bit] == nil {
                    following |= 1 << bit
                }
                losses.append(RTCPPackets.Loss(frameId: low, packetId: UInt16(packetId), following: following))
                packetId += 9
            }
            if losses.count >= 255 { break }
        }
        return losses
    }

    /// Complete frames after checkpoint + 1, for the ACK bit vector: bit i is checkpoint + 2 + i.
    public func acknowledgedAhead() -> [Bool] {
        guard let last = completeAhead.max(), last >= checkpoint + 2 else { return [] }
        return ((checkpoint + 2)...min(last, checkpoint + 2 + 8 * 254 - 1)).map { completeAhead.contains($0) }
    }

    /// How long the oldest missing frame has waited, if one is missing.
    public func oldestWaiting(at now: UInt64) -> UInt64? {
        partial.values.map { now &- $0.firstArrival }.max()
    }
}
