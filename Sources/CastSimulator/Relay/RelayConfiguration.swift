/// Where a relay forwards its senders' messages: a Cast device (a real Chromecast, or
/// another castsim) that the relay connects to over TLS once for every sender connection.
///
/// In relay mode the simulated device answers device auth itself (with castsim's own
/// credentials) and sends nothing else of its own; every other message goes to the
/// upstream unchanged, and the upstream's messages come back to that sender, both
/// directions kept in the journal.
public struct RelayConfiguration: Sendable, Equatable {
    /// The Cast port of real devices.
    public static let defaultPort = 8009

    public var host: String
    public var port: Int
    /// How long the TCP connect and the TLS handshake to the upstream may take, each.
    public var connectTimeout: Duration

    public init(host: String, port: Int = RelayConfiguration.defaultPort, connectTimeout: Duration = .seconds(5)) {
        self.host = host
        self.port = port
        self.connectTimeout = connectTimeout
    }

    /// `HOST`, `HOST:PORT`, `[IPV6]` or `[IPV6]:PORT` (a bare IPv6 address takes the
    /// default port); nil for anything else (an empty host, a port outside 1-65535).
    public init?(upstream text: String) {
        var host = Substring(text)
        var port = Self.defaultPort
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let after = host[host.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let number = Int(after.dropFirst()) else { return nil }
                port = number
            }
            host = host[host.index(after: host.startIndex)..<close]
        } else if host.filter({ $0 == ":" }).count == 1, let colon = host.firstIndex(of: ":") {
            guard let number = Int(host[host.index(after: colon)...]) else { return nil }
            port = number
            host = host[..<colon]
        }
        guard !host.isEmpty, (1...65535).contains(port),
              !host.contains(where: { $0.isWhitespace || $0 == "/" || $0 == "[" || $0 == "]" }) else { return nil }
        self.init(host: String(host), port: port)
    }

    /// `HOST:PORT`, an IPv6 host in brackets: how logs and reasons name the upstream.
    public var hostAndPort: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
