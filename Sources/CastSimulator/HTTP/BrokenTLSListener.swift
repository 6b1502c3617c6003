import CastDevice
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// Port 8443 of a device whose TLS never works (``DeviceQuirks/Eureka/HTTPS``): it accepts,
/// then closes at the client's first bytes (`tls-eof`: Python reads "EOF occurred in
/// violation of protocol"), or holds the connection without a word (`stall`: the client
/// waits for its own timeout). Every connection closes when the device stops.
final class BrokenTLSListener: RunningEndpoint {
    let localAddress: SocketAddress
    private let server: any Channel
    private let connections: NIOLockedValueBox<[ObjectIdentifier: any Channel]>

    private init(localAddress: SocketAddress, server: any Channel, connections: NIOLockedValueBox<[ObjectIdentifier: any Channel]>) {
        self.localAddress = localAddress
        self.server = server
        self.connections = connections
    }

    static func start(_ mode: DeviceQuirks.Eureka.HTTPS, host: String, port: Int) async throws -> BrokenTLSListener {
        let connections = NIOLockedValueBox([ObjectIdentifier: any Channel]())
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                let id = ObjectIdentifier(channel)
                connections.withLockedValue { $0[id] = channel }
                channel.closeFuture.whenComplete { _ in _ = connections.withLockedValue { $0.removeValue(forKey: id) } }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Handshake(closesAtHello: mode == .tlsEOF))
                }
            }
            .bind(host: host, port: port).get()
        return BrokenTLSListener(localAddress: server.localAddress!, server: server, connections: connections)
    }

    func stop() async {
        try? await server.close()
        for connection in connections.withLockedValue({ Array($0.values) }) { try? await connection.close() }
    }

    /// The handshake that never happens: the ClientHello is read and dropped.
    private final class Handshake: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let closesAtHello: Bool

        init(closesAtHello: Bool) { self.closesAtHello = closesAtHello }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if closesAtHello { context.close(promise: nil) }
        }
    }
}

/// A device port that listens until the device stops: an HTTP server, or a broken one.
protocol RunningEndpoint: Sendable {
    var localAddress: SocketAddress { get }
    func stop() async
}

extension RunningHTTPServer: RunningEndpoint {}
