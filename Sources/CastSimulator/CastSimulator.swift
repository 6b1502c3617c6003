import CastCredentials
import CastDevice
import CastScenario
import CastWire
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// A running simulated Cast device: its Cast TLS port, its HTTP endpoints and the
/// device core, all on one event loop. Start it, talk to it, stop it.
///
/// ```swift
/// let simulator = try await CastSimulator.start(configuration)
/// defer { Task { await simulator.stop() } }
/// ```
public final class CastSimulator: Sendable {
    public let configuration: SimulatorConfiguration
    /// Where the Cast port listens (with the actual port when 0 was asked for).
    public let castAddress: SocketAddress
    public let httpAddress: SocketAddress?
    public let httpsAddress: SocketAddress?
    /// What the device presents now (its TLS certificate is renewed while it runs).
    public var credentials: DeviceCredentials { tls.current.credentials }
    private let tls: TLSPresentation

    private let group: MultiThreadedEventLoopGroup
    private let runner: NIOLoopBound<DeviceRunner>
    private let listeners: [any Channel]
    private let completion: EventLoopFuture<Void>

    private init(configuration: SimulatorConfiguration, tls: TLSPresentation, group: MultiThreadedEventLoopGroup,
                 runner: NIOLoopBound<DeviceRunner>, completion: EventLoopFuture<Void>, listeners: [any Channel],
                 cast: SocketAddress, http: SocketAddress?, https: SocketAddress?) {
        self.completion = completion
        self.configuration = configuration
        self.tls = tls
        self.group = group
        self.runner = runner
        self.listeners = listeners
        castAddress = cast
        httpAddress = http
        httpsAddress = https
    }

    /// Certifies the device's keys, binds every port and starts the device.
    public static func start(_ configuration: SimulatorConfiguration) async throws -> CastSimulator {
        let credentials = try await DeviceCredentials.make(
            for: configuration.device.identity, pki: configuration.developerPKI, tlsLifetime: configuration.tlsCertificateLifetime)
        let tls = try TLSPresentation(credentials)
        // One thread: the device and all its connections share one serial executor.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let logger = configuration.logger
        do {
            let (runner, completion) = try await loop.submit {
                let runner = DeviceRunner.start(configuration, authority: credentials, loop: loop)
                return (NIOLoopBound(runner, eventLoop: loop), runner.completion.futureResult)
            }.get()

            var listeners: [any Channel] = []
            /// Binds one listener; a failure says which address, port and listener.
            func listen(_ listener: ListenError.Listener, port: Int, _ bootstrap: ServerBootstrap) async throws -> any Channel {
                do {
                    let channel = try await bootstrap.serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                        .bind(host: configuration.host, port: port).get()
                    listeners.append(channel)
                    return channel
                } catch {
                    for channel in listeners { try? await channel.close() }
                    throw ListenError(listener: listener, host: configuration.host, port: port, error: error)
                }
            }
            let stalledReaderTimeout = configuration.stalledReaderTimeout.map(TimeAmount.init)
            let cast = try await listen(.cast, port: configuration.castPort, CastConnectionHandler.configure(ServerBootstrap(group: group))
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let sync = channel.pipeline.syncOperations
                        let presented = tls.current
                        try sync.addHandler(NIOSSLServerHandler(context: presented.context))
                        try sync.addHandler(ByteToMessageHandler(CastFrameSplitter()))
                        try sync.addHandler(CastConnectionHandler(runner: runner.value, logger: logger,
                                                                  stalledReaderTimeout: stalledReaderTimeout,
                                                                  tlsCertificateDER: presented.credentials.tls.der))
                    }
                })

            func httpListener(_ listener: ListenError.Listener, port: Int?, tls: TLSPresentation?) async throws -> (any Channel)? {
                guard let port else { return nil }
                let identity = configuration.device.identity
                return try await listen(listener, port: port, ServerBootstrap(group: group)
                    .childChannelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            let sync = channel.pipeline.syncOperations
                            if let tls { try sync.addHandler(NIOSSLServerHandler(context: tls.current.context)) }
                            try sync.configureHTTPServerPipeline(withErrorHandling: true)
                            try sync.addHandler(DeviceHTTPHandler(identity: identity))
                        }
                    })
            }
            let http = try await httpListener(.http, port: configuration.httpPort, tls: nil)
            let https = try await httpListener(.https, port: configuration.httpsPort, tls: tls)

            tls.scheduleRenewal(on: loop, logger: logger)
            return CastSimulator(
                configuration: configuration, tls: tls, group: group, runner: runner,
                completion: completion, listeners: listeners, cast: cast.localAddress!, http: http?.localAddress, https: https?.localAddress)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// Closes every connection and listener and releases the ports.
    public func stop() async {
        let runner = self.runner
        tls.stop()
        try? await runner.eventLoop.submit { runner.value.shutDown() }.get()
        for listener in listeners { try? await listener.close() }
        try? await group.shutdownGracefully()
    }

    /// Moves a manual clock forward; returns false for real or scaled clocks, and for a
    /// number of seconds that is no duration castsim takes (negative, not finite, over
    /// ``ScenarioDuration/maximum``).
    @discardableResult
    public func advanceClock(by seconds: Double) async -> Bool {
        let runner = self.runner
        return (try? await runner.eventLoop.submit { runner.value.advanceClock(by: seconds) }.get()) ?? false
    }

    /// The device as it stands, as a value (taken on the device's own loop).
    public func snapshot() async throws -> DeviceSnapshot {
        let runner = self.runner
        return try await runner.eventLoop.submit { runner.value.snapshot }.get()
    }

    /// Reads something of the device as it stands.
    public func inspect<T: Sendable>(_ body: @escaping @Sendable (DeviceSnapshot) -> T) async throws -> T {
        body(try await snapshot())
    }

    /// The messages the senders sent, the newest ``SimulatorConfiguration/journalLimit`` of them.
    public func receivedMessages() async throws -> [ReceivedMessage] {
        let runner = self.runner
        return try await runner.eventLoop.submit { runner.value.session.journal.messages }.get()
    }

    /// The scenario's report as things stand.
    public func report() async throws -> ScenarioReport {
        let runner = self.runner
        return try await runner.eventLoop.submit { runner.value.session.report() }.get()
    }

    /// Something happens to the device from outside the protocol (the remote, the TV...).
    public func apply(_ input: OperatorInput) async throws {
        let runner = self.runner
        try await runner.eventLoop.submit { runner.value.apply(input) }.get()
    }

    /// Returns once the scenario's timeline has run and every expectation is decided
    /// (or the simulator stops).
    public func waitUntilComplete() async throws {
        try await completion.get()
    }
}
