#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CastDiscovery
import NIOCore
import NIOPosix

/// UDP port 5353 on each chosen interface, IPv4 (224.0.0.251) and IPv6 (ff02::fb), shared
/// with any system responder: one socket per interface and family, bound to the wildcard
/// address with SO_REUSEADDR and SO_REUSEPORT, joined to the group on that interface only,
/// sending from it. RFC 6762 §11: IP TTL / hop limit 255.
public final class MDNSSockets: Sendable {
    public static let port = MDNSResponder.port
    public static let ipv4Group = try! SocketAddress(ipAddress: "224.0.0.251", port: port)
    public static let ipv6Group = try! SocketAddress(ipAddress: "ff02::fb", port: port)

    /// One datagram as it arrived.
    public struct Datagram: Sendable {
        public var bytes: [UInt8]
        public var source: SocketAddress
        public var interfaceIndex: Int
    }

    struct Socket: Sendable {
        let interface: MDNSInterface
        let family: NIOBSDSocket.ProtocolFamily
        let channel: any Channel
    }

    private let sockets: [Socket]

    private init(sockets: [Socket]) {
        self.sockets = sockets
    }

    /// Binds on every interface and family that has an address; `receive` runs on `loop`
    /// for every datagram. Fails only if no socket at all could be made.
    public static func open(on interfaces: [MDNSInterface], loop: any EventLoop,
                            receive: @escaping @Sendable (Datagram) -> Void) async throws -> (MDNSSockets, problems: [String]) {
        var sockets: [Socket] = []
        var problems: [String] = []
        for interface in interfaces {
            for family in [NIOBSDSocket.ProtocolFamily.inet, .inet6] {
                guard let device = interface.device(for: family) else { continue }
                do {
                    sockets.append(Socket(interface: interface, family: family,
                                          channel: try await bind(interface, device: device, family: family, loop: loop, receive: receive)))
                } catch {
                    problems.append("mDNS on \(interface) (\(family == .inet ? "IPv4" : "IPv6")): \(error)")
                }
            }
        }
        if sockets.isEmpty {
            throw MDNSError.bindFailed(problems.isEmpty ? MDNSError.noInterfaces.description : problems.joined(separator: "; "))
        }
        return (MDNSSockets(sockets: sockets), problems)
    }

    private static func bind(_ interface: MDNSInterface, device: NIONetworkDevice, family: NIOBSDSocket.ProtocolFamily,
                             loop: any EventLoop, receive: @escaping @Sendable (Datagram) -> Void) async throws -> any Channel {
        let ipv4 = family == .inet
        var bootstrap = DatagramBootstrap(group: loop)
            .protocolSubtype(.default)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
        if !ipv4 {
            // Before bind, or the kernel refuses it: IPv4 has its own socket.
            bootstrap = bootstrap.channelOption(.socket(SocketOptionLevel(IPPROTO_IPV6), IPV6_V6ONLY), value: 1)
        }
        let channel = try await bootstrap
            .channelOption(.socket(SocketOptionLevel(SOL_SOCKET), SO_REUSEPORT), value: 1)
            .channelOption(.receivePacketInfo, value: true)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Receiver(interfaceIndex: interface.index, receive: receive))
                }
            }
            .bind(host: ipv4 ? "0.0.0.0" : "::", port: port).get()
        do {
            let options = channel as! any SocketOptionProvider
            if ipv4 {
                // Only this socket's own membership delivers to it: one socket per interface.
                try await channel.setOption(.socket(SocketOptionLevel(IPPROTO_IP), Self.ipMulticastAll), value: 0).get()
                guard case .v4(let address) = device.address else { throw MDNSError.bindFailed("\(interface) has no IPv4 address") }
                try await options.setIPMulticastIF(address.address.sin_addr).get()
                try await options.setIPMulticastTTL(255).get()
                try await options.setIPMulticastLoop(1).get()
            } else {
                try await channel.setOption(.socket(SocketOptionLevel(IPPROTO_IPV6), Self.ipv6MulticastAll), value: 0).get()
                try await options.setIPv6MulticastIF(CUnsignedInt(interface.index)).get()
                try await options.setIPv6MulticastHops(255).get()
                try await options.setIPv6MulticastLoop(1).get()
            }
            try await (channel as! any MulticastChannel).joinGroup(ipv4 ? ipv4Group : ipv6Group, device: device).get()
        } catch {
            try? await channel.close()
            throw error
        }
        return channel
    }

    // Linux values (in.h): not every libc exports them.
    static let ipMulticastAll: CInt = 49
    static let ipv6MulticastAll: CInt = 29

    /// Sends `bytes` on interface `index` to the group of `destination`'s family
    /// (`destination` nil) or to `destination` itself (a unicast reply).
    public func send(_ bytes: [UInt8], interfaceIndex: Int, family: NIOBSDSocket.ProtocolFamily, to destination: SocketAddress?) {
        guard let socket = sockets.first(where: { $0.interface.index == interfaceIndex && $0.family == family }) else { return }
        let target = destination ?? (family == .inet ? Self.ipv4Group : Self.ipv6Group)
        let channel = socket.channel
        channel.eventLoop.execute {
            var buffer = channel.allocator.buffer(capacity: bytes.count)
            buffer.writeBytes(bytes)
            channel.writeAndFlush(AddressedEnvelope(remoteAddress: target, data: buffer), promise: nil)
        }
    }

    /// The interfaces and families that have a socket.
    public var endpoints: [(interface: MDNSInterface, family: NIOBSDSocket.ProtocolFamily)] {
        sockets.map { ($0.interface, $0.family) }
    }

    public func close() async {
        for socket in sockets { try? await socket.channel.close() }
    }

    private final class Receiver: ChannelInboundHandler, Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        let interfaceIndex: Int
        let receive: @Sendable (Datagram) -> Void

        init(interfaceIndex: Int, receive: @escaping @Sendable (Datagram) -> Void) {
            self.interfaceIndex = interfaceIndex
            self.receive = receive
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let envelope = unwrapInboundIn(data)
            // A datagram for another interface's socket (a unicast to the shared port) is
            // that socket's business.
            let arrivedOn = envelope.metadata?.packetInfo?.interfaceIndex ?? interfaceIndex
            guard arrivedOn == interfaceIndex else { return }
            receive(Datagram(bytes: Array(envelope.data.readableBytesView), source: envelope.remoteAddress, interfaceIndex: arrivedOn))
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            // A datagram socket's errors (an ICMP unreachable for a unicast reply) end nothing.
        }
    }
}
