/// Record types castsim publishes and reads (RFC 1035, 2782, 3596, 4034, 6763).
public struct DNSType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let a = DNSType(rawValue: 1)
    public static let ptr = DNSType(rawValue: 12)
    public static let txt = DNSType(rawValue: 16)
    public static let aaaa = DNSType(rawValue: 28)
    public static let srv = DNSType(rawValue: 33)
    public static let nsec = DNSType(rawValue: 47)
    /// In questions only: every type.
    public static let any = DNSType(rawValue: 255)

    public var description: String {
        switch self {
        case .a: "A"
        case .ptr: "PTR"
        case .txt: "TXT"
        case .aaaa: "AAAA"
        case .srv: "SRV"
        case .nsec: "NSEC"
        case .any: "ANY"
        default: "TYPE\(rawValue)"
        }
    }
}

/// The data of a record, typed for what castsim uses and raw for the rest.
public enum DNSRecordData: Sendable, Hashable {
    case a([UInt8])
    case aaaa([UInt8])
    case ptr(DNSName)
    case srv(priority: UInt16, weight: UInt16, port: UInt16, target: DNSName)
    /// Character strings, each at most 255 bytes (`key=value` in DNS-SD).
    case txt([[UInt8]])
    /// The restricted form of RFC 6762 §6.1: the next name is the owner itself and the
    /// bitmap lists types below 256.
    case nsec(next: DNSName, types: [DNSType])
    case other(type: DNSType, bytes: [UInt8])

    public var type: DNSType {
        switch self {
        case .a: .a
        case .aaaa: .aaaa
        case .ptr: .ptr
        case .srv: .srv
        case .txt: .txt
        case .nsec: .nsec
        case .other(let type, _): type
        }
    }
}

public struct DNSQuestion: Sendable, Hashable, CustomStringConvertible {
    public var name: DNSName
    public var type: DNSType
    /// The top bit of the class: the asker would like a unicast answer (QU, RFC 6762 §5.4).
    public var unicastResponse: Bool
    public var recordClass: UInt16

    public init(name: DNSName, type: DNSType, unicastResponse: Bool = false, recordClass: UInt16 = 1) {
        self.name = name
        self.type = type
        self.unicastResponse = unicastResponse
        self.recordClass = recordClass
    }

    public var description: String { "\(name) \(type)\(unicastResponse ? " QU" : "")" }
}

public struct DNSRecord: Sendable, Hashable, CustomStringConvertible {
    public var name: DNSName
    public var data: DNSRecordData
    public var ttl: UInt32
    /// The top bit of the class in a response: this record replaces every cached one of
    /// its name and type (RFC 6762 §10.2). Set on unique records, never on shared PTRs.
    public var cacheFlush: Bool
    public var recordClass: UInt16

    public init(name: DNSName, data: DNSRecordData, ttl: UInt32, cacheFlush: Bool = false, recordClass: UInt16 = 1) {
        self.name = name
        self.data = data
        self.ttl = ttl
        self.cacheFlush = cacheFlush
        self.recordClass = recordClass
    }

    public var type: DNSType { data.type }

    /// The same record with another TTL (0: a goodbye).
    public func with(ttl: UInt32) -> DNSRecord {
        var copy = self
        copy.ttl = ttl
        return copy
    }

    /// Name, type, class and data: what makes two records the same record, whatever their TTLs.
    public func sameRecord(as other: DNSRecord) -> Bool {
        name == other.name && recordClass == other.recordClass && data == other.data
    }

    public var description: String { "\(name) \(type) ttl \(ttl)\(cacheFlush ? " flush" : "") \(data)" }
}
