/// What the receiver tells the sender it did, for a stream whose OFFER asked for it
/// (`receiverRtcpEventLog`; docs/protocol/streaming.md §3.4): each packet's arrival and each
/// frame's ACK, with when. The sender pairs them with its own sends to show network and frame
/// latency in its statistics. They ride in the next RTCP report as an APP packet ('CAST',
/// subtype 2); a report carries at most ``bytesPerReport`` of them, the rest wait for the next.
struct ReceiverEventLog: Sendable {
    /// The unified wire types (one for audio and video alike).
    enum EventType: UInt16 {
        case frameAckSent = 11
        case packetReceived = 14
    }

    struct Event: Sendable, Equatable {
        var rtpTimestamp: UInt32
        var type: EventType
        /// The packet id of a packet event; 0 (no delay) for an ACK.
        var value: UInt16
        /// Receiver time in ns.
        var at: UInt64
    }

    /// Times on the wire are milliseconds since this (the session's start), in 24 bits.
    private let origin: UInt64
    private(set) var pending: [Event] = []
    /// Events given up because reports could not carry them as fast as they came.
    private(set) var dropped = 0

    /// A key frame's burst of a few hundred packets waits at most for a few reports.
    static let pendingLimit = 2048
    /// Room in one compound RTCP datagram, which stays under a loopback or Ethernet MTU.
    static let bytesPerReport = 1024
    /// A frame's events share a base time and add 12 bits of milliseconds to it, and count
    /// themselves in 8 bits (minus one).
    static let maximumOffset: UInt64 = 0xFFF
    static let eventsPerFrameMessage = 256

    init(origin: UInt64) {
        self.origin = origin
    }

    mutating func packetReceived(rtpTimestamp: UInt32, packetId: UInt16, at now: UInt64) {
        add(Event(rtpTimestamp: rtpTimestamp, type: .packetReceived, value: packetId, at: now))
    }

    mutating func frameAckSent(rtpTimestamp: UInt32, at now: UInt64) {
        add(Event(rtpTimestamp: rtpTimestamp, type: .frameAckSent, value: 0, at: now))
    }

    private mutating func add(_ event: Event) {
        if pending.count >= Self.pendingLimit {
            pending.removeFirst(Self.pendingLimit / 4)
            dropped += Self.pendingLimit / 4
        }
        pending.append(event)
    }

    /// Appends the APP packet with the oldest events that fit, and forgets them; nothing
    /// when none wait.
    mutating func appendPacket(to out: inout [UInt8], receiverSsrc: UInt32) {
        guard !pending.isEmpty else { return }
        var body: [UInt8] = []
        body.reserveCapacity(min(Self.bytesPerReport, 8 + pending.count * 4))
        var taken = 0
        while taken < pending.count {
            let first = pending[taken]
            let base = milliseconds(first.at)
            // One frame message: the events of this frame within 4,095 ms of the first.
            var end = taken + 1
            while end < pending.count, end - taken < Self.eventsPerFrameMessage, pending[end].rtpTimestamp == first.rtpTimestamp,
                  milliseconds(pending[end].at) &- base <= Self.maximumOffset {
                end += 1
            }
            let room = (Self.bytesPerReport - body.count - 8) / 4
            guard room > 0 else { break }
            end = min(end, taken + room)
            body.append32(first.rtpTimestamp)
            body.append32(UInt32(end - taken - 1) << 24 | UInt32(base & 0xFF_FFFF))
            for event in pending[taken..<end] {
                body.append16(event.value)
                body.append16(event.type.rawValue << 12 | UInt16(milliseconds(event.at) &- base))
            }
            taken = end
        }
        pending.removeFirst(taken)
        out.append(0x80 | 2)
        out.append(204)
        out.append16(UInt16(2 + body.count / 4))
        out.append32(receiverSsrc)
        out.append(contentsOf: Array("CAST".utf8))
        out.append(contentsOf: body)
    }

    private func milliseconds(_ time: UInt64) -> UInt64 { (time &- origin) / 1_000_000 }
}
