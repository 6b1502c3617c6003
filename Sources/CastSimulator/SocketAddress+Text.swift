import NIOCore

extension SocketAddress {
    /// `127.0.0.1:8009` or `[::1]:8009`.
    public var hostAndPort: String {
        let host = ipAddress ?? "?"
        let port = self.port ?? 0
        if case .v6 = self { return "[\(host)]:\(port)" }
        return "\(host):\(port)"
    }
}
