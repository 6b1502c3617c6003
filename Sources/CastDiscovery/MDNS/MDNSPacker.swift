/// The packets several responders of one host want to send at the same moment, as few
/// packets as fit: a host answers a query with all its records in one message where they
/// fit, and probes all its names in one query (RFC 6762 §6, §8.1). A thousand devices
/// answering `_googlecast._tcp.local` are a few hundred packets, not a thousand.
public enum MDNSPacker {
    /// The most a packet carries: an Ethernet MTU less the IPv6 and UDP headers, so no
    /// answer is fragmented (RFC 6762 §17).
    public static let maximumSize = 1440

    /// `packets` merged in order: responses with responses and queries with queries, for
    /// the same destination and (for a legacy unicast answer) the same id and questions,
    /// while the sum of their encoded sizes stays within `maximumSize`. A packet over the
    /// size on its own goes alone.
    public static func pack(_ packets: [MDNSResponder.Packet], maximumSize: Int = maximumSize) -> [MDNSResponder.Packet] {
        var packed: [(packet: MDNSResponder.Packet, size: Int)] = []
        for packet in packets {
            let size = packet.message.encoded().count
            if let index = packed.lastIndex(where: { canMerge($0.packet, packet) }), packed[index].size + size - headerSize <= maximumSize {
                packed[index].packet.message.merge(packet.message)
                packed[index].size += size - headerSize
            } else {
                packed.append((packet, size))
            }
        }
        return packed.map(\.packet)
    }

    private static let headerSize = 12

    private static func canMerge(_ a: MDNSResponder.Packet, _ b: MDNSResponder.Packet) -> Bool {
        a.destination == b.destination && a.message.flags == b.message.flags && a.message.id == b.message.id
            && (a.message.isResponse ? a.message.questions == b.message.questions : true)
    }
}

extension DNSMessage {
    /// `other`'s questions and records added to these, without repeating one.
    mutating func merge(_ other: DNSMessage) {
        func add<T: Equatable>(_ items: [T], to list: inout [T]) {
            for item in items where !list.contains(item) { list.append(item) }
        }
        if !isResponse { add(other.questions, to: &questions) }
        add(other.answers, to: &answers)
        add(other.authorities, to: &authorities)
        add(other.additionals.filter { !answers.contains($0) }, to: &additionals)
    }
}
