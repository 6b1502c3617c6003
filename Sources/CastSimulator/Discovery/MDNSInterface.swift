import NIOCore

/// A network interface mDNS runs on: multicast-capable, up, with its addresses.
public struct MDNSInterface: Sendable, Hashable, CustomStringConvertible {
    public let name: String
    public let index: Int
    /// Its IPv4 and IPv6 addresses (port 0), as `System.enumerateDevices` lists them.
    public let ipv4: [SocketAddress]
    public let ipv6: [SocketAddress]
    let devices: [NIONetworkDevice]

    public var description: String { "\(name) (#\(index))" }

    /// The interfaces to advertise on: `names` (each must exist and carry multicast), or
    /// every multicast-capable interface with an address when `names` is empty. Loopback
    /// has no multicast on Linux, and senders are never there: it is skipped unless named.
    public static func find(named names: [String]) throws -> [MDNSInterface] {
        let devices = try System.enumerateDevices().filter { $0.address != nil }
        let grouped = Dictionary(grouping: devices, by: \.interfaceIndex)
        var found: [MDNSInterface] = []
        for (index, group) in grouped.sorted(by: { $0.key < $1.key }) {
            guard let first = group.first else { continue }
            let interface = MDNSInterface(
                name: first.name, index: index,
                ipv4: group.compactMap { device in device.address.flatMap { $0.protocol == .inet ? $0 : nil } },
                ipv6: group.compactMap { device in device.address.flatMap { $0.protocol == .inet6 ? $0 : nil } },
                devices: group)
            if names.isEmpty {
                if first.multicastSupported, !interface.isLoopback { found.append(interface) }
            } else if names.contains(first.name) {
                found.append(interface)
            }
        }
        for name in names where !found.contains(where: { $0.name == name }) {
            let known = Set(devices.map(\.name)).sorted().joined(separator: ", ")
            throw MDNSError.noSuchInterface("no interface \"\(name)\" with an address; expected one of \(known.isEmpty ? "none" : known)")
        }
        return found
    }

    var isLoopback: Bool {
        ipv4.contains { $0.ipAddress?.hasPrefix("127.") == true } || ipv6.contains { $0.ipAddress == "::1" }
    }

    /// The device entry to join a group of `family` with.
    func device(for family: NIOBSDSocket.ProtocolFamily) -> NIONetworkDevice? {
        devices.first { $0.address?.protocol == family }
    }
}

public enum MDNSError: Error, Equatable, Sendable, CustomStringConvertible {
    case noSuchInterface(String)
    case noInterfaces
    case bindFailed(String)

    public var description: String {
        switch self {
        case .noSuchInterface(let text), .bindFailed(let text): text
        case .noInterfaces: "no multicast-capable network interface to advertise on; name one with --interface, or run with --mdns off"
        }
    }
}
