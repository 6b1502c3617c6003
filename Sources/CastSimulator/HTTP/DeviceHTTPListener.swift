import Hummingbird
import HummingbirdCore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// A device's HTTP port (8008, or 8443 over TLS) answered by a Hummingbird router, with
/// nothing running while no client is connected: a listening socket, and a task per
/// connection while it lasts.
///
/// Not a Hummingbird `Application`: each of those runs a service group and a server task
/// for its whole life, about 90 KiB of task memory per port, which a thousand idle devices
/// cannot afford (README, "A household"). The requests are answered as an `Application`
/// answers them: the router's errors become their responses, anything else a 500.
final class DeviceHTTPListener: RunningEndpoint {
    let localAddress: SocketAddress
    private let server: any Channel
    private let connections: Connections

    private init(localAddress: SocketAddress, server: any Channel, connections: Connections) {
        self.localAddress = localAddress
        self.server = server
        self.connections = connections
    }

    /// Listens on `host`:`port`, over TLS with the certificate current at each accept when
    /// `tls` is given, on NIO's process-wide loops.
    static func start(router: Router<BasicRequestContext>, host: String, port: Int, tls: TLSPresentation?, logger: Logger) async throws
        -> DeviceHTTPListener
    {
        let responder = router.buildResponder()
        let http = HTTP1Channel(responder: { request, writer, channel in
            let context = BasicRequestContext(source: .init(channel: channel, logger: logger))
            var response: Response
            do {
                response = try await responder.respond(to: request, context: context)
            } catch let error as any HTTPResponseError {
                response = try error.response(from: request, context: context)
            } catch {
                response = Response(status: .internalServerError)
            }
            try await writer.write(response: response.head, body: response.body)
        })
        let connections = Connections()
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: try tls.current().context)) }
                }.flatMap {
                    http.setup(channel: channel, logger: logger)
                }.map { value in
                    connections.serve(channel) { await http.handle(value: value, logger: logger) }
                }
            }
            .bind(host: host, port: port).get()
        return DeviceHTTPListener(localAddress: server.localAddress!, server: server, connections: connections)
    }

    /// Stops listening, closes every connection (a request held by a locked-up device
    /// included) and waits for their tasks.
    func stop() async {
        try? await server.close()
        for task in connections.closeAll() { await task.value }
    }

    /// The connections open now, each with the task that answers it.
    private final class Connections: Sendable {
        private let open = NIOLockedValueBox<(byID: [ObjectIdentifier: (channel: any Channel, task: Task<Void, Never>)], closed: Bool)>(([:], false))

        func serve(_ channel: any Channel, _ body: @escaping @Sendable () async -> Void) {
            let id = ObjectIdentifier(channel)
            open.withLockedValue { open in
                guard !open.closed else {
                    channel.close(promise: nil)
                    return
                }
                open.byID[id] = (channel, Task {
                    await body()
                    _ = self.open.withLockedValue { $0.byID.removeValue(forKey: id) }
                })
            }
        }

        func closeAll() -> [Task<Void, Never>] {
            let open = open.withLockedValue { open in
                open.closed = true
                return Array(open.byID.values)
            }
            for connection in open { connection.channel.close(promise: nil) }
            return open.map(\.task)
        }
    }
}
