import CastCredentials
import CastDevice
import CastDiscovery
import CastScenario
import CastWire
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// A running simulated Cast device: its Cast TLS port and the device core on one event
/// loop, its HTTP endpoints beside them. Start it, talk to it, stop it.
///
/// ```swift
/// let simulator = try await CastSimulator.start(configuration)
/// defer { Task { await simulator.stop() } }
/// ```
public final class CastSimulator: Sendable {
    public let configuration: SimulatorConfiguration
    /// Where the Cast port listens (with the actual port when 0 was asked for).
    public var castAddress: SocketAddress { currentCastAddress.withLockedValue { $0 } }
    /// Where the Cast port listens now: a speaker group's moves with its leader.
    private let currentCastAddress: NIOLockedValueBox<SocketAddress>
    public let httpAddress: SocketAddress?
    public let httpsAddress: SocketAddress?
    /// What the device presents now: made at the first connection, renewed while it runs.
    public var credentials: DeviceCredentials { get throws { try tls.current().credentials } }
    private let tls: TLSPresentation

    private let group: MultiThreadedEventLoopGroup
    /// False in a fleet: the fleet's devices share its group, and it shuts it down.
    private let ownsGroup: Bool
    /// The device and its connections (a household's runtime reaches it on its loop).
    let runner: NIOLoopBound<DeviceRunner>
    /// Every listener, the Cast port's moved ones (a `restore` elsewhere) included.
    private let listeners: NIOLockedValueBox<[any Channel]>
    /// eureka_info on the HTTP and HTTPS ports.
    private let httpServers: [any RunningEndpoint]
    /// What holds eureka_info requests once the device has locked up (a quirk).
    private let eurekaLockUp: EurekaLockUp
    private let discovery: RunningDiscovery?
    private let completion: EventLoopFuture<Void>
    /// The recording being written, and its subscription on the device's loop.
    private let recording = NIOLockedValueBox(RecordingSlot.idle)
    /// Open ``news(buffering:)`` streams and ``newsBatches(buffering:)`` queues, by what
    /// finishes each when the simulator stops (`closed`: no new one is opened after).
    private let newsStreams = NIOLockedValueBox((open: [Int: @Sendable () -> Void](), lastId: 0, closed: false))
    /// Open until ``stop()`` is done with the device's loop. Whatever reaches the loop from
    /// outside goes through it, under its lock: nothing is scheduled on a loop that has
    /// shut down (a stream ending late, a request arriving as castsim stops).
    private let loopGate = NIOLockedValueBox(true)
    private let stopCalled = NIOLockedValueBox(false)

    private init(configuration: SimulatorConfiguration, tls: TLSPresentation, group: MultiThreadedEventLoopGroup, ownsGroup: Bool,
                 runner: NIOLoopBound<DeviceRunner>, completion: EventLoopFuture<Void>, listeners: NIOLockedValueBox<[any Channel]>,
                 discovery: RunningDiscovery?, cast: SocketAddress, http: (any RunningEndpoint)?, https: (any RunningEndpoint)?,
                 eurekaLockUp: EurekaLockUp) {
        self.eurekaLockUp = eurekaLockUp
        self.completion = completion
        self.configuration = configuration
        self.tls = tls
        self.group = group
        self.ownsGroup = ownsGroup
        self.runner = runner
        self.listeners = listeners
        self.discovery = discovery
        httpServers = [http, https].compactMap { $0 }
        currentCastAddress = NIOLockedValueBox(cast)
        httpAddress = http?.localAddress
        httpsAddress = https?.localAddress
    }

    /// Certifies the device's keys, binds every port and starts the device.
    public static func start(_ requested: SimulatorConfiguration) async throws -> CastSimulator {
        try await start(requested, sharing: nil)
    }

    /// Starts the device on `shared`'s first loop (a fleet's devices all run on one loop,
    /// and the fleet shuts the group down), or on a group of its own when nil.
    package static func start(_ requested: SimulatorConfiguration, sharing shared: MultiThreadedEventLoopGroup?) async throws
        -> CastSimulator
    {
        var adjusted = requested
        if adjusted.relay != nil {
            // A relay's device sends nothing of its own on relayed connections: the senders'
            // PINGs and the upstream's PONGs (and the other way) go through.
            adjusted.device.heartbeatInterval = nil
            adjusted.device.idleTimeout = nil
        }
        let configuration = adjusted
        let (pki, tlsKey) = try await SharedKeys.shared.keys(pki: configuration.developerPKI)
        let tls = TLSPresentation(pki: pki, tlsKey: tlsKey, deviceId: configuration.device.identity.uuid,
                                  lifetime: configuration.tlsCertificateLifetime, logger: configuration.logger)
        // One thread: the device and all its connections share one serial executor.
        let group = shared ?? MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let logger = configuration.logger
        let stalledReaderTimeout = configuration.stalledReaderTimeout.map(TimeAmount.init)
        // What is up when a later part of the start fails, to take down again (the
        // runner's completion promise must not leak).
        var startedRunner: NIOLoopBound<DeviceRunner>?
        var listeners: [any Channel] = []
        var httpServers: [any RunningEndpoint] = []
        do {
            let (runner, completion) = try await loop.submit {
                let runner = DeviceRunner.start(configuration, authority: tls, loop: loop)
                return (NIOLoopBound(runner, eventLoop: loop), runner.completion.futureResult)
            }.get()
            startedRunner = runner

            let cast: any Channel
            do {
                cast = try await castBootstrap(group: group, runner: runner, tls: tls, stalledReaderTimeout: stalledReaderTimeout, logger: logger)
                    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                    .bind(host: configuration.host, port: configuration.castPort).get()
                listeners.append(cast)
            } catch {
                throw ListenError(listener: .cast, host: configuration.host, port: configuration.castPort, error: error)
            }
            let eureka = try await EurekaListeners.start(configuration, tls: tls, started: &httpServers) {
                // Locked up as a whole: the Cast channel stops answering too.
                try? await loop.submit { runner.value.act(.unresponsive(seconds: ScenarioDuration.maximum)) }.get()
            }

            let castAddress = cast.localAddress!
            let allListeners = NIOLockedValueBox(listeners)
            let (discovery, discoveryStatus) = try await RunningDiscovery.start(configuration, castPort: castAddress.port ?? configuration.castPort,
                                                                        loop: loop)
            // What the closure below needs, not the whole configuration: a thousand devices'
            // closures would each hold its few kilobytes.
            let (ownHost, castPort) = (configuration.host, configuration.castPort)
            try await loop.submit {
                runner.value.setDiscovery(discoveryStatus)
                _ = runner.value.news.subscribe { news in
                    guard case .event(let event) = news else { return }
                    discovery?.deviceEvent(event, snapshot: { runner.value.snapshot })
                    if case .advertisementChanged(.restore(let host, let port)) = event.kind, host != nil || port != nil {
                        // The device is back elsewhere: its Cast port listens there too.
                        let bootstrap = castBootstrap(group: group, runner: runner, tls: tls, stalledReaderTimeout: stalledReaderTimeout,
                                                      logger: logger)
                        let target = (host: host ?? ownHost, port: port ?? castAddress.port ?? castPort)
                        bootstrap.serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                            .bind(host: target.host, port: target.port).whenComplete { result in
                                switch result {
                                case .success(let channel):
                                    allListeners.withLockedValue { $0.append(channel) }
                                    logger.info("Cast port now also on \(target.host):\(target.port)")
                                case .failure(let error):
                                    logger.error("cannot listen on \(target.host):\(target.port) for the restored advertisement: \(error)")
                                }
                            }
                    }
                }
            }.get()
            return CastSimulator(
                configuration: configuration, tls: tls, group: group, ownsGroup: shared == nil, runner: runner,
                completion: completion, listeners: allListeners, discovery: discovery, cast: castAddress, http: eureka.http, https: eureka.https,
                eurekaLockUp: eureka.lockUp)
        } catch {
            if let runner = startedRunner { try? await loop.flatSubmit { runner.value.shutDown() }.get() }
            for server in httpServers { await server.stop() }
            for channel in listeners { try? await channel.close() }
            if shared == nil { try? await group.shutdownGracefully() }
            throw error
        }
    }

    /// The Cast port's listener: TLS with the certificate current when a sender connects,
    /// frames, the device.
    private static func castBootstrap(group: MultiThreadedEventLoopGroup, runner: NIOLoopBound<DeviceRunner>, tls: TLSPresentation,
                                      stalledReaderTimeout: TimeAmount?, logger: Logger) -> ServerBootstrap {
        return CastConnectionHandler.configure(ServerBootstrap(group: group))
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    let presented = try tls.current()
                    try sync.addHandler(NIOSSLServerHandler(context: presented.context))
                    try sync.addHandler(CastConnectionHandler(runner: runner.value, logger: logger,
                                                              stalledReaderTimeout: stalledReaderTimeout,
                                                              tlsCertificateDER: presented.credentials.tls.der))
                }
            }
    }

    /// Whether the Cast port listens: false while a household's device is offline.
    package var isListening: Bool { listeners.withLockedValue { !$0.isEmpty } }

    /// The Cast port stops listening (a household's device powered off: senders' connections
    /// are refused); ``moveCastPort(to:)`` listens again.
    package func stopListening() async {
        let old = listeners.withLockedValue { listeners in
            defer { listeners.removeAll() }
            return listeners
        }
        for listener in old { try? await listener.close() }
    }

    /// The Cast port moves to `host`, on the same port: every connection is closed (a
    /// sender must look the device up again), the old address refuses connections. A
    /// speaker group's endpoint does this when its leader moves (docs/protocol/groups.md §1.4).
    package func moveCastPort(to host: String) async throws -> SocketAddress {
        let runner = self.runner
        let port = castAddress.port ?? configuration.castPort
        await stopListening()
        try await onDeviceLoop { $0.closeEveryConnection(because: "the device moved to \(host)") }
        let channel: any Channel
        do {
            channel = try await Self.castBootstrap(group: group, runner: runner, tls: tls,
                                                   stalledReaderTimeout: configuration.stalledReaderTimeout.map(TimeAmount.init),
                                                   logger: configuration.logger)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .bind(host: host, port: port).get()
        } catch {
            throw ListenError(listener: .cast, host: host, port: port, error: error)
        }
        listeners.withLockedValue { $0.append(channel) }
        let address = channel.localAddress!
        currentCastAddress.withLockedValue { $0 = address }
        return address
    }

    /// Closes every connection and listener and releases the ports. In an order that leaves
    /// nothing to run on the device's loop once it is gone: first nothing new comes in (the
    /// listeners close, the HTTP servers finish their requests), then the senders'
    /// connections close and the device hears of each, the advertisement says goodbye, the
    /// recording ends (with those closes), the event streams end, and the loop goes last.
    public func stop() async {
        // Once: a second stop (a test's own, then its harness's) has nothing left to do.
        let first = stopCalled.withLockedValue { called in
            defer { called = true }
            return !called
        }
        guard first else { return }
        for listener in listeners.withLockedValue({ $0 }) { try? await listener.close() }
        eurekaLockUp.release()
        for server in httpServers { await server.stop() }
        if let closed = try? await onDeviceLoop({ $0.shutDown() }) { try? await closed.get() }
        await discovery?.shutDown()
        _ = await stopRecording(final: true)
        let streams = newsStreams.withLockedValue { streams in
            streams.closed = true
            return Array(streams.open.values)
        }
        for finish in streams { finish() }
        loopGate.withLockedValue { $0 = false }
        if ownsGroup { try? await group.shutdownGracefully() }
    }

    /// Moves a manual clock forward; returns false for real or scaled clocks, and for a
    /// number of seconds that is no duration castsim takes (negative, not finite, over
    /// ``ScenarioDuration/maximum``).
    @discardableResult
    public func advanceClock(by seconds: Double) async -> Bool {
        (try? await onDeviceLoop { $0.advanceClock(by: seconds) }) ?? false
    }

    /// The device as it stands, as a value (taken on the device's own loop).
    public func snapshot() async throws -> DeviceSnapshot {
        try await onDeviceLoop { $0.snapshot }
    }

    /// Reads something of the device as it stands.
    public func inspect<T: Sendable>(_ body: @escaping @Sendable (DeviceSnapshot) -> T) async throws -> T {
        body(try await snapshot())
    }

    /// The messages the senders sent, the newest ``SimulatorConfiguration/journalLimit`` of them.
    public func receivedMessages() async throws -> [ReceivedMessage] {
        try await onDeviceLoop { $0.journal.messages }
    }

    /// The scenario's report as things stand.
    public func report() async throws -> ScenarioReport {
        try await onDeviceLoop { $0.report() }
    }

    /// Something happens to the device from outside the protocol (the remote, the TV...).
    public func apply(_ input: OperatorInput) async throws {
        try await onDeviceLoop { $0.apply(input) }
    }

    // MARK: The control surface

    /// The clock's mode and the simulation time now.
    public func clock() async throws -> (mode: ClockMode, time: SimTime) {
        try await onDeviceLoop { $0.clockReading }
    }

    /// What discovery does for the device now: who advertises it, whether it is advertised
    /// (and why not), on which interfaces.
    public func discovery() async throws -> DiscoveryStatus {
        try await onDeviceLoop { $0.discoveryStatus }
    }

    /// Carries out a timeline action now, as a scenario step would (the control API's
    /// `act`). Refused when it would do nothing (it targets connections and none of them
    /// is open, launches an app the device does not offer, or gives the player an input
    /// the running app would ignore), or advances a clock that is not manual.
    public func act(_ action: TimelineStep.Action, json: JSONValue? = nil) async throws {
        try await onDeviceLoop { runner in
            if let refusal = runner.session.refusal(of: action, clock: runner.clockReading.mode) { throw refusal }
            if case .household(let step) = action {
                // Done by the household at once, or refused with its reason; a recording
                // keeps what was done.
                try runner.performNow(step)
                if let json { runner.noteInput(json) }
                return
            }
            runner.act(action, json: json)
        }
    }

    /// The newest picture of a mirroring session (a PNG, about 320 pixels wide, and what it
    /// shows); nil when no key frame has been decoded yet.
    public func streamingPicture() async throws -> (png: [UInt8], picture: StreamingFigures.Picture)? {
        try await onDeviceLoop { runner in runner.media.picture.map { ($0.png, $0.figures) } }
    }

    /// Every message of both directions the journal still keeps, oldest first.
    public func journal() async throws -> [JournalEntry] {
        try await onDeviceLoop { $0.journal.entries }
    }

    /// The newest `count` journal entries `matches` admits, oldest first, picked on the
    /// device's loop (the dashboard asks for the state after every event: no copy of a
    /// journal of thousands for the last few).
    public func journal(newest count: Int, where matches: @escaping @Sendable (JournalEntry) -> Bool) async throws -> [JournalEntry] {
        try await onDeviceLoop { $0.journal.newest(count, where: matches) }
    }

    /// The journal's entries newer than `sequence` (all of them for nil), oldest first, with
    /// its counts, its oldest entry's number and the last number given, in one visit to the device's loop: a client
    /// that polls with a cursor copies only what is new, not the whole journal each time.
    package func journalPage(after sequence: Int?) async throws
        -> (entries: [JournalEntry], seen: Int, kept: Int, oldest: Int?, last: Int)
    {
        try await onDeviceLoop { runner in
            let journal = runner.journal
            return (sequence.map(journal.entries(after:)) ?? journal.entries, journal.seenSinceClear, journal.count,
                    journal.oldestSequence, journal.lastSequence)
        }
    }

    /// How many messages the journal has seen since it was cleared, and how many it keeps.
    public func journalCounts() async throws -> (seen: Int, kept: Int) {
        try await onDeviceLoop { ($0.journal.seenSinceClear, $0.journal.count) }
    }

    public func clearJournal() async throws {
        try await onDeviceLoop { $0.clearJournal() }
    }

    /// The scenario running now.
    public func scenario() async throws -> (scenario: Scenario, stepsFired: Int) {
        try await onDeviceLoop { ($0.session.scenario, $0.session.report().stepsFired) }
    }

    /// Starts the scenario again from its start, or `scenario` instead (the device keeps
    /// its identity: its TLS credentials and advertisement are bound to it). Open
    /// connections are closed.
    public func reset(loading scenario: Scenario? = nil) async throws {
        try await onDeviceLoop { runner in
            let current = runner.session.scenario
            var next = scenario ?? current
            next.device.identity = current.device.identity
            // A reset keeps the clock's mode; a scenario loaded brings its own, if it names one.
            runner.reset(to: next, clockMode: scenario?.clock ?? runner.clockReading.mode)
        }
    }

    /// Everything that happens from now on, until the stream is dropped or the simulator
    /// stops. A subscriber that falls behind loses the oldest news, never holds the device back.
    public func news(buffering limit: Int = 4096) -> AsyncStream<SimulatorNews> {
        let (stream, continuation) = AsyncStream.makeStream(of: SimulatorNews.self, bufferingPolicy: .bufferingNewest(limit))
        let end = subscribeToNews(hear: { continuation.yield($0) }, finish: { continuation.finish() })
        continuation.onTermination = { _ in end() }
        return stream
    }

    /// The news as ``news(buffering:)`` tells it, taken a batch at a time: a reader that
    /// keeps up with a busy device wakes once for what piled up while it was busy, not once
    /// for each message (the event streams). Only the news `including` takes is queued (on
    /// the device's loop), so the limit counts what the reader wants: the messages of a busy
    /// device do not push out the events a slow reader asked for. Finishing the queue ends
    /// the subscription. Past `limit` news, or `byteLimit` bytes of them, the oldest go.
    package func newsBatches(buffering limit: Int = 4096, bytes byteLimit: Int = .max,
                             including: @escaping @Sendable (SimulatorNews) -> Bool = { _ in true })
        -> BatchQueue<SimulatorNews>
    {
        let queue = BatchQueue<SimulatorNews>(limit: limit, byteLimit: byteLimit) { $0.queuedBytes }
        queue.onFinish(subscribeToNews(hear: { if including($0) { queue.yield($0) } }, finish: { queue.finish() }))
        return queue
    }

    /// Subscribes `hear` to the device's news, on its loop, until the action returned is run
    /// or the simulator stops (which runs `finish`; at once when it has stopped already).
    private func subscribeToNews(hear: @escaping @Sendable (SimulatorNews) -> Void, finish: @escaping @Sendable () -> Void)
        -> @Sendable () -> Void
    {
        let runner = self.runner
        let streamId = newsStreams.withLockedValue { streams -> Int? in
            guard !streams.closed else { return nil }
            streams.lastId += 1
            streams.open[streams.lastId] = finish
            return streams.lastId
        }
        guard let streamId else {
            // The simulator has stopped: nothing more happens.
            finish()
            return {}
        }
        // Read and written on the loop only: whichever of subscribing and ending runs
        // first, the runner keeps no subscriber for a stream that has ended.
        let subscription = NIOLockedValueBox((id: Int?.none, ended: false))
        Self.execute(on: runner, through: loopGate) {
            guard !subscription.withLockedValue({ $0.ended }) else { return }
            let id = runner.value.subscribe(hear)
            subscription.withLockedValue { $0.id = id }
        }
        return { [newsStreams, loopGate] in
            newsStreams.withLockedValue { _ = $0.open.removeValue(forKey: streamId) }
            // A stream that ends as the simulator stops, or after: its subscriber went with the device.
            Self.execute(on: runner, through: loopGate) {
                let id = subscription.withLockedValue { state in
                    state.ended = true
                    return state.id
                }
                if let id { runner.value.unsubscribe(id) }
            }
        }
    }

    /// How many ``news(buffering:)`` streams and ``newsBatches(buffering:)`` queues are
    /// open, and how many subscribers the device itself holds for them (taken on its loop).
    package func newsSubscriptions() async throws -> (streams: Int, subscribers: Int) {
        let streams = newsStreams.withLockedValue { $0.open.count }
        return (streams, try await onDeviceLoop { $0.subscriberCount })
    }

    // MARK: Recording

    /// Where recording stands: one at a time, none once the simulator stops.
    enum RecordingSlot {
        case idle, starting, stopped
        case active(Recorder, feed: RecorderFeed)
    }

    /// Starts writing a recording of everything from now on to `path` (`docs/recording.md`);
    /// refused while one is being written, and for a file that is there unless `existing`
    /// allows replacing it.
    package func startRecording(to path: String, redacting redaction: PayloadRedaction = .none, existing: Recorder.Existing = .refuse,
                                version: String = CastsimVersion.current) async throws -> Recorder.Status {
        let configuration = self.configuration
        let castAddress = self.castAddress
        let recording = self.recording
        try recording.withLockedValue { slot in
            switch slot {
            case .idle: slot = .starting
            case .stopped: throw RecorderError(path: path, reason: "castsim is stopping", kind: .busy)
            case .starting, .active: throw RecorderError(path: path, reason: "a recording is being written already", kind: .busy)
            }
        }
        let recorder: Recorder
        do {
            var header = try await onDeviceLoop {
                $0.recordingHeader(host: configuration.host, castPort: castAddress.port, version: version)
            }
            if let relay = configuration.relay {
                header.source = .relay
                header.upstream = relay.hostAndPort
            }
            // The file is opened here, off the device's loop.
            recorder = try Recorder(path: path, header: header, redaction: redaction, existing: existing, logger: configuration.logger)
        } catch {
            recording.withLockedValue { if case .starting = $0 { $0 = .idle } }
            throw error
        }
        let started = try await onDeviceLoop { runner in
            recording.withLockedValue { slot in
                guard case .starting = slot else { return false }
                slot = .active(recorder, feed: runner.feed(recorder))
                return true
            }
        }
        guard started else {
            _ = await recorder.stopped()
            throw RecorderError(path: path, reason: "castsim is stopping", kind: .busy)
        }
        configuration.logger.notice("recording to \(path)")
        return recorder.status
    }

    /// Stops the recording and returns once its every event is written; nil when none was.
    /// `final`: the simulator stops, and no recording starts after this.
    @discardableResult
    package func stopRecording(final: Bool = false) async -> Recorder.Status? {
        let recording = self.recording
        let taken = recording.withLockedValue { slot -> (Recorder, RecorderFeed)? in
            defer { if final { slot = .stopped } }
            guard case .active(let recorder, let feed) = slot else { return nil }
            slot = .idle
            return (recorder, feed)
        }
        guard let (recorder, feed) = taken else { return nil }
        // The loop's last batch goes to the writer here; the loop is still running, as the
        // simulator stops its recording before its loop.
        try? await onDeviceLoop { feed.end($0) }
        let status = await recorder.stopped()
        if let failure = status.failure {
            configuration.logger.error("recording \(status.path) is incomplete: \(failure); \(status.events) events written, \(status.dropped) lost")
        } else {
            configuration.logger.notice("recording written to \(status.path): \(status.events) events\(status.dropped > 0 ? ", \(status.dropped) lost (the writer fell behind)" : "")")
        }
        return status
    }

    /// The recording being written, if any.
    package var recordingStatus: Recorder.Status? {
        recording.withLockedValue { if case .active(let recorder, _) = $0 { recorder.status } else { nil } }
    }

    /// Returns once the scenario's timeline has run and every expectation is decided
    /// (or the simulator stops).
    public func waitUntilComplete() async throws {
        try await completion.get()
    }

    /// Runs `body` with the device's runner on its own loop, and returns what it gives:
    /// every look at the device and every change to it from outside goes through here.
    /// Throws ``SimulatorStopped`` once the simulator has stopped.
    func onDeviceLoop<T: Sendable>(_ body: @escaping @Sendable (DeviceRunner) throws -> T) async throws -> T {
        let runner = self.runner
        let submitted = loopGate.withLockedValue { open in open ? runner.eventLoop.submit { try body(runner.value) } : nil }
        guard let submitted else { throw SimulatorStopped() }
        return try await submitted.get()
    }

    /// Runs `body` on the device's loop, unless `gate` is closed (the simulator stopped).
    private static func execute(on runner: NIOLoopBound<DeviceRunner>, through gate: NIOLockedValueBox<Bool>,
                                _ body: @escaping @Sendable () -> Void) {
        gate.withLockedValue { open in
            if open { runner.eventLoop.execute(body) }
        }
    }
}

/// What a simulator that has stopped answers to anything asked of its device.
public struct SimulatorStopped: Error, Sendable, CustomStringConvertible {
    public var description: String { "the simulated device has stopped" }
}

extension CastServiceDescription {
    /// What `device` advertises with its Cast port on `port`.
    package init(_ device: DeviceConfiguration, port: Int) {
        let identity = device.identity
        self.init(uuid: identity.uuid, friendlyName: identity.friendlyName, modelName: identity.modelName,
                  capabilities: identity.capabilityBits, appIds: device.apps.filter { $0.appId != device.idleScreenAppId }.map(\.appId),
                  port: port)
        // What this family advertises differently (docs/profiles.md, quirks).
        let mdns = device.effectiveQuirks.mdns
        hostOverride = mdns.host.map(identity.expandingMAC(in:))
        idOverride = mdns.id
        statusOverride = mdns.status
        extraTXT = mdns.txt.map { "\($0.key)=\($0.value)" }
        if mdns.androidTVRemote { androidTVRemote = AndroidTVRemote(mac: identity.derivedMAC) }
    }
}
