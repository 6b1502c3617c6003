import CastDevice
import NIOCore

/// Where the devices of a fleet listen: one address each, all on the same ports (senders
/// take a Cast port other than 8009 for a speaker group, so devices cannot share an
/// address by port).
public enum FleetAddresses {
    /// Loopback addresses from 127.0.0.2 on, one after the other (127.0.0.1 is left to the
    /// control API and to whatever else the machine runs). Linux answers on all of
    /// 127.0.0.0/8; macOS has only 127.0.0.1 until `ifconfig lo0 alias 127.0.0.N` adds the others.
    public static func loopback(count: Int) -> [String] {
        let first = IPv4(127 << 24 | 2)
        return (0..<count).map { IPv4(first.value + UInt32($0)).text }
    }

    /// `--host` for a fleet: one address, a comma-separated list, or an IPv4 range
    /// (`10.0.0.5-10.0.0.9`, `10.0.0.5-9`, or across /24s: `127.1.0.1-127.1.3.232` is a
    /// thousand), giving `count` addresses. One address given for several devices is the
    /// first of a range; a range counts every address in it, .0 and .255 included (all of
    /// 127.0.0.0/8 answers on Linux).
    public static func parse(_ text: String, count: Int) throws(FleetAddressError) -> [String] {
        let items = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        var addresses: [String] = []
        for item in items {
            if let dash = item.firstIndex(of: "-"), !item.contains(":") {
                addresses += try range(from: String(item[..<dash]), to: String(item[item.index(after: dash)...]), text: item, limit: count)
            } else {
                guard (try? SocketAddress(ipAddress: item, port: 0)) != nil else { throw .notAnAddress(item) }
                addresses.append(item)
            }
        }
        if addresses.count == 1, count > 1 {
            guard let first = IPv4(addresses[0]) else { throw .tooFew(given: 1, needed: count) }
            guard UInt64(first.value) + UInt64(count) - 1 <= UInt64(UInt32.max) else { throw .rangeEnd(addresses[0], count: count) }
            addresses = (0..<count).map { IPv4(first.value + UInt32($0)).text }
        }
        guard addresses.count >= count else { throw .tooFew(given: addresses.count, needed: count) }
        // A range is a pool the fleet takes its first addresses from; a list names each.
        if addresses.count > count, !items.contains(where: { $0.contains("-") && !$0.contains(":") }) {
            throw .tooMany(given: addresses.count, needed: count)
        }
        let unique = Set(addresses)
        if unique.count < addresses.count, let twice = addresses.enumerated().first(where: { addresses[..<$0.offset].contains($0.element) }) {
            throw .repeated(twice.element)
        }
        guard !(count > 1 && addresses.contains { $0 == "0.0.0.0" || $0 == "::" }) else { throw .wildcard }
        return Array(addresses.prefix(count))
    }

    private static func range(from start: String, to end: String, text: String, limit: Int) throws(FleetAddressError) -> [String] {
        guard let first = IPv4(start) else { throw .notAnAddress(start) }
        let last: IPv4
        if let number = UInt32(end), number <= 255 {
            last = IPv4(first.value & ~0xFF | number)
        } else if let full = IPv4(end) {
            last = full
        } else {
            throw .badRange(text)
        }
        guard last.value >= first.value else { throw .badRange(text) }
        // No more than the fleet takes: 10.0.0.0-10.255.255.255 is sixteen million.
        return (first.value...last.value).prefix(limit).map { IPv4($0).text }
    }

    /// A dotted IPv4 address as its 32-bit number, so that a range runs across /24s.
    private struct IPv4 {
        let value: UInt32
        init(_ value: UInt32) { self.value = value }
        init?(_ text: String) {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            let numbers = parts.compactMap { UInt32($0) }
            guard parts.count == 4, numbers.count == 4, numbers.allSatisfy({ $0 <= 255 }) else { return nil }
            value = numbers.reduce(0) { $0 << 8 | $1 }
        }
        var text: String { "\(value >> 24).\(value >> 16 & 0xFF).\(value >> 8 & 0xFF).\(value & 0xFF)" }
    }
}

public enum FleetAddressError: Error, Equatable, CustomStringConvertible {
    case notAnAddress(String)
    case badRange(String)
    case rangeEnd(String, count: Int)
    case tooFew(given: Int, needed: Int)
    case tooMany(given: Int, needed: Int)
    case repeated(String)
    case wildcard

    public var description: String {
        switch self {
        case .notAnAddress(let text): "\"\(text)\" is not an IP address"
        case .badRange(let text): "\"\(text)\": expected an IPv4 range FIRST-LAST, LAST not before FIRST (10.0.0.5-10.0.0.9, 10.0.0.5-9, 127.1.0.1-127.1.3.232)"
        case .rangeEnd(let first, let count): "\(count) devices from \(first) run past 255.255.255.255: give a list or a range"
        case .tooFew(let given, let needed): "\(given) address\(given == 1 ? "" : "es") for \(needed) devices: give one each (a list, a range, or the first of a range)"
        case .tooMany(let given, let needed): "\(given) addresses for \(needed) devices: give one each (or a range, which the devices take from its start)"
        case .repeated(let address): "\(address) is given twice: each device needs an address of its own"
        case .wildcard: "a fleet cannot listen on 0.0.0.0 or ::: each device needs an address of its own (its Cast port is 8009 on every one)"
        }
    }
}

extension DeviceIdentity {
    /// Whether `name` names this device: its friendly name, or its UUID with or without
    /// dashes in any case.
    public func matches(_ name: String) -> Bool {
        friendlyName == name || DeviceIdentity.normalizeUUID(name) == uuid
    }
}
