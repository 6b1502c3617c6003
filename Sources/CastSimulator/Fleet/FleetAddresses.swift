import CastDevice
import NIOCore

/// Where the devices of a fleet listen: one address each, all on the same ports (senders
/// take a Cast port other than 8009 for a speaker group, so devices cannot share an
/// address by port).
public enum FleetAddresses {
    /// Loopback addresses from 127.0.0.2 on (127.0.0.1 is left to the control API and to
    /// whatever else the machine runs). Linux answers on all of 127.0.0.0/8; macOS has
    /// only 127.0.0.1 until `ifconfig lo0 alias 127.0.0.N` adds the others.
    public static func loopback(count: Int) -> [String] {
        (0..<count).map { "127.0.0.\(2 + $0)" }
    }

    /// `--host` for a fleet: one address, a comma-separated list, or an IPv4 range
    /// (`10.0.0.5-10.0.0.9`, or `10.0.0.5-9`), giving `count` addresses. One address
    /// given for several devices is the first of a range.
    public static func parse(_ text: String, count: Int) throws(FleetAddressError) -> [String] {
        let items = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        var addresses: [String] = []
        for item in items {
            if let dash = item.firstIndex(of: "-"), !item.contains(":") {
                addresses += try range(from: String(item[..<dash]), to: String(item[item.index(after: dash)...]), text: item)
            } else {
                guard (try? SocketAddress(ipAddress: item, port: 0)) != nil else { throw .notAnAddress(item) }
                addresses.append(item)
            }
        }
        if addresses.count == 1, count > 1 {
            guard let first = IPv4(addresses[0]) else { throw .tooFew(given: 1, needed: count) }
            guard first.last + count - 1 <= 254 else { throw .rangeEnd(addresses[0], count: count) }
            addresses = (0..<count).map { IPv4(first.prefix, first.last + $0).text }
        }
        guard addresses.count >= count else { throw .tooFew(given: addresses.count, needed: count) }
        let unique = Set(addresses)
        if unique.count < addresses.count, let twice = addresses.enumerated().first(where: { addresses[..<$0.offset].contains($0.element) }) {
            throw .repeated(twice.element)
        }
        guard !(count > 1 && addresses.contains { $0 == "0.0.0.0" || $0 == "::" }) else { throw .wildcard }
        return Array(addresses.prefix(count))
    }

    private static func range(from start: String, to end: String, text: String) throws(FleetAddressError) -> [String] {
        guard let first = IPv4(start) else { throw .notAnAddress(start) }
        let last: IPv4
        if let number = Int(end), (0...255).contains(number) {
            last = IPv4(first.prefix, number)
        } else if let full = IPv4(end), full.prefix == first.prefix {
            last = full
        } else {
            throw .badRange(text)
        }
        guard last.last >= first.last else { throw .badRange(text) }
        return (first.last...last.last).map { IPv4(first.prefix, $0).text }
    }

    /// A dotted IPv4 address, split into its first three parts and its last.
    private struct IPv4 {
        let prefix: String
        let last: Int
        init(_ prefix: String, _ last: Int) { self.prefix = prefix; self.last = last }
        init?(_ text: String) {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            let numbers = parts.compactMap { Int($0) }
            guard parts.count == 4, numbers.count == 4, numbers.allSatisfy({ (0...255).contains($0) }) else { return nil }
            prefix = parts[0..<3].joined(separator: ".")
            last = numbers[3]
        }
        var text: String { "\(prefix).\(last)" }
    }
}

public enum FleetAddressError: Error, Equatable, CustomStringConvertible {
    case notAnAddress(String)
    case badRange(String)
    case rangeEnd(String, count: Int)
    case tooFew(given: Int, needed: Int)
    case repeated(String)
    case wildcard

    public var description: String {
        switch self {
        case .notAnAddress(let text): "\"\(text)\" is not an IP address"
        case .badRange(let text): "\"\(text)\": expected an IPv4 range FIRST-LAST within one /24 (10.0.0.5-10.0.0.9 or 10.0.0.5-9)"
        case .rangeEnd(let first, let count): "\(count) devices from \(first) run past .254: give a list or a range"
        case .tooFew(let given, let needed): "\(given) address\(given == 1 ? "" : "es") for \(needed) devices: give one each (a list, a range, or the first of a range)"
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
