/// A domain name as its labels. DNS-SD instance names may hold dots and any UTF-8
/// ("Living Room TV.2"), so a name is never split on dots once made. Comparison ignores
/// ASCII case, as DNS requires (RFC 1035 §2.3.3; mDNS RFC 6762 §16).
public struct DNSName: Sendable, Hashable, CustomStringConvertible {
    public let labels: [String]

    public init(labels: [String]) {
        self.labels = labels
    }

    /// `"_googlecast._tcp.local"`: a name whose labels hold no dots.
    public init(_ dotted: String) {
        labels = dotted.split(separator: ".", omittingEmptySubsequences: true).map(String.init)
    }

    /// `label` in front of `self`: the instance `label` of service type `self`.
    public func prepending(_ label: String) -> DNSName { DNSName(labels: [label] + labels) }

    public var description: String { labels.joined(separator: ".") + "." }

    /// The labels folded to lower case (ASCII only), for comparing and hashing.
    var folded: [[UInt8]] { labels.map { Array($0.utf8).map(DNSName.lower) } }

    static func lower(_ byte: UInt8) -> UInt8 { (65...90).contains(byte) ? byte + 32 : byte }

    public static func == (lhs: DNSName, rhs: DNSName) -> Bool { lhs.folded == rhs.folded }
    public func hash(into hasher: inout Hasher) { hasher.combine(folded) }

    /// The wire length: each label's length byte and bytes, and the root's zero.
    var wireLength: Int { labels.reduce(1) { $0 + 1 + $1.utf8.count } }

    /// The problem with this name on the wire, if any (RFC 1035: labels of 1–63 bytes,
    /// names of at most 255).
    public var problem: String? {
        if let long = labels.first(where: { $0.utf8.count > 63 }) { return "label \"\(long)\" is over 63 bytes" }
        if labels.contains(where: \.isEmpty) { return "empty label" }
        if wireLength > 255 { return "name over 255 bytes" }
        return nil
    }
}
