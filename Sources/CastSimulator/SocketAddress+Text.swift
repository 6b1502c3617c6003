import NIOCore

extension SocketAddress {
    /// `127.0.0.1:8009` or `[::1]:8009`.
    public var hostAndPort: String {
        let host = ipAddress ?? "?"
        let port = self.port ?? 0
        if case .v6 = self { return "[\(host)]:\(port)" }
        return "\(host):\(port)"
    }

    /// True for 127.0.0.0/8, ::1 and localhost: addresses only this machine reaches. A
    /// name that merely starts with `127.` (`127.example.com`) is none of them.
    public static func isLoopback(host: String) -> Bool {
        if host.lowercased() == "localhost" { return true }
        guard let address = try? SocketAddress(ipAddress: host, port: 0), let text = address.ipAddress else { return false }
        switch address.protocol {
        case .inet: return text.hasPrefix("127.")
        case .inet6: return text == "::1"
        default: return false
        }
    }
}
