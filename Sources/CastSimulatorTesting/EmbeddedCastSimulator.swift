import CastDevice
import CastScenario
import CastSimulator
import CastWire
import Logging
import NIOCore
import NIOEmbedded

/// A simulated device in the test's own thread: the runtime's code (framing, connection
/// handling, outbound queues, the scenario session) on NIO's embedded channels, back to
/// back with each sender's, and a manual clock. No sockets, no TLS, no sleeps: a test of
/// an hour of playback takes milliseconds.
///
/// Everything is synchronous and must stay on one thread: use it from a synchronous test.
///
/// ```swift
/// let device = EmbeddedCastSimulator()
/// let sender = device.connectSender()
/// let transportId = sender.launch()!
/// sender.request(CastNamespace.media, to: transportId, ["type": "LOAD", "media": ["contentId": "a.mp4"]])
/// device.advanceClock(by: 3600)
/// ```
public final class EmbeddedCastSimulator {
    public let configuration: SimulatorConfiguration
    private let loop = EmbeddedEventLoop()
    private let runner: DeviceRunner
    private var links: [Link] = []
    private var stopped = false
    private var recording: (recorder: Recorder, feed: RecorderFeed)?
    /// The ``news(buffering:)`` streams and ``newsBatches(buffering:)`` queues, with the
    /// device's subscription for each and what ends it.
    private var followers: [(subscription: Int, finish: () -> Void)] = []

    /// A device and its channel pair to one sender.
    private struct Link {
        let device: EmbeddedChannel
        let sender: EmbeddedChannel
    }

    /// Runs `configuration` with a manual clock, whatever clock it names. `authority`
    /// answers device-auth challenges (``DeviceCredentials`` is one).
    public init(_ configuration: SimulatorConfiguration, authority: (any DeviceAuthority)? = nil) {
        var configuration = configuration
        configuration.clock = .manual
        self.configuration = configuration
        runner = DeviceRunner.start(configuration, authority: authority, loop: loop)
    }

    /// A device named "Test TV" with the defaults, adjusted by `configure`.
    public convenience init(configure: (inout DeviceConfiguration) -> Void = { _ in }) {
        var device = DeviceConfiguration(identity: try! DeviceIdentity(uuid: "fedcba9876543210fedcba9876543210", friendlyName: "Test TV"))
        configure(&device)
        self.init(SimulatorConfiguration(device: device, logger: Self.quietLogger))
    }

    /// A device running `scenario`.
    public convenience init(scenario: Scenario) {
        self.init(SimulatorConfiguration(scenario: scenario, logger: Self.quietLogger))
    }

    static var quietLogger: Logger {
        var logger = Logger(label: "castsim-embedded")
        logger.logLevel = .critical
        return logger
    }

    deinit {
        stop()
    }

    // MARK: Senders

    /// A new sender connection, open and known to the device.
    public func connectSender() -> EmbeddedCastSender {
        let deviceSide = EmbeddedChannel(loop: loop)
        let senderSide = EmbeddedChannel(loop: loop)
        let sender = EmbeddedCastSender(simulator: self, channel: senderSide)
        do {
            try deviceSide.pipeline.syncOperations.addHandler(CastConnectionHandler(runner: runner, logger: configuration.logger))
            try senderSide.pipeline.syncOperations.addHandler(ByteToMessageHandler(CastFrameDecoder()))
            try senderSide.pipeline.syncOperations.addHandler(SenderInbox(sender: sender))
        } catch {
            preconditionFailure("adding handlers to a fresh embedded channel cannot fail: \(error)")
        }
        let address = try! SocketAddress(ipAddress: "127.0.0.1", port: 8009)
        deviceSide.connect(to: address, promise: nil)
        senderSide.connect(to: address, promise: nil)
        links.append(Link(device: deviceSide, sender: senderSide))
        pump()
        return sender
    }

    /// Moves bytes between every device channel and its sender until nothing moves, and
    /// carries closes across: what the network would do, at once.
    func pump() {
        var moved = true
        var rounds = 0
        while moved, rounds < 10_000 {
            moved = false
            rounds += 1
            // Runs what is due, including the next slice of a sender's backlog, which the
            // connection handler queues a moment ahead.
            loop.advanceTime(by: CastConnectionHandler.pauseBetweenSlices)
            for link in links {
                func deliverReplies() {
                    while let bytes = try? link.device.readOutbound(as: ByteBuffer.self) {
                        moved = true
                        if link.sender.isActive { _ = try? link.sender.writeInbound(bytes) }
                    }
                }
                deliverReplies()
                while let bytes = try? link.sender.readOutbound(as: ByteBuffer.self) {
                    moved = true
                    if link.device.isActive { _ = try? link.device.writeInbound(bytes) }
                }
                // What the device wrote before it closed reaches the sender before the close.
                deliverReplies()
                if !link.device.isActive, link.sender.isActive {
                    link.sender.close(promise: nil)
                    moved = true
                }
                if !link.sender.isActive, link.device.isActive {
                    link.device.close(promise: nil)
                    moved = true
                }
            }
        }
        links.removeAll { !$0.device.isActive && !$0.sender.isActive }
    }

    // MARK: The device

    /// Moves the manual clock forward; everything due on the way happens, in order. False
    /// for a span that is no duration castsim takes (negative, not finite, over ten years).
    @discardableResult
    public func advanceClock(by seconds: Double) -> Bool {
        let moved = runner.advanceClock(by: seconds)
        pump()
        return moved
    }

    /// Lets real time pass for the connections: the device's PINGs and the idle timeout are
    /// measured on the real clock, whatever the simulation clock does (here, the embedded
    /// loop's clock stands for it).
    public func advanceRealTime(by seconds: Double) {
        loop.advanceTime(by: .nanoseconds(Int64((seconds * 1e9).rounded())))
        pump()
    }

    /// Something happens to the device from outside the protocol (the remote, the TV...).
    public func apply(_ input: OperatorInput) {
        runner.apply(input)
        pump()
    }

    /// Carries out a timeline action now, as the control API's `act` does (and records it so).
    public func act(_ json: JSONValue) throws {
        runner.act(try ScenarioFragment.action(json), json: json)
        pump()
    }

    /// Starts writing a recording of everything from now on to `path` (replacing a file there).
    public func startRecording(to path: String, redacting redaction: PayloadRedaction = .none) throws {
        stopRecording()
        let recorder = try Recorder(path: path, header: runner.recordingHeader(host: "127.0.0.1", castPort: 8009),
                                    redaction: redaction, existing: .replace, logger: configuration.logger)
        recording = (recorder, runner.feed(recorder))
    }

    /// Writes what is left of the recording and closes its file.
    public func stopRecording() {
        guard let (recorder, feed) = recording else { return }
        feed.end(runner)
        _ = recorder.stop()
        recording = nil
    }

    /// Everything that happens from now on, as the control API's event stream hears it:
    /// the device yields each piece of news to the stream, and a reader that falls behind
    /// loses the oldest. Ends when the simulator stops.
    public func news(buffering limit: Int = 4096) -> AsyncStream<SimulatorNews> {
        let (stream, continuation) = AsyncStream.makeStream(of: SimulatorNews.self, bufferingPolicy: .bufferingNewest(limit))
        followers.append((runner.subscribe { continuation.yield($0) }, { continuation.finish() }))
        return stream
    }

    /// The news as ``news(buffering:)`` tells it, taken a batch at a time, as the control
    /// API's event stream takes it: only what `including` takes is queued. Finished when the
    /// simulator stops.
    package func newsBatches(buffering limit: Int = 4096, bytes byteLimit: Int = .max,
                             including: @escaping @Sendable (SimulatorNews) -> Bool = { _ in true })
        -> BatchQueue<SimulatorNews>
    {
        let queue = BatchQueue<SimulatorNews>(limit: limit, byteLimit: byteLimit) { $0.queuedBytes }
        followers.append((runner.subscribe { if including($0) { queue.yield($0) } }, { queue.finish() }))
        return queue
    }

    /// The device as it stands.
    public var snapshot: DeviceSnapshot { runner.snapshot }

    /// The messages the senders sent, the newest ones.
    public var receivedMessages: [ReceivedMessage] { runner.journal.messages }

    /// The scenario's report as things stand.
    public var report: ScenarioReport { runner.session.report() }

    /// Closes every connection.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        stopRecording()
        for (subscription, finish) in followers {
            runner.unsubscribe(subscription)
            finish()
        }
        followers.removeAll()
        runner.shutDown()
        pump()
        for link in links {
            _ = try? link.device.finish()
            _ = try? link.sender.finish()
        }
        links.removeAll()
        try? loop.syncShutdownGracefully()
    }
}

/// A Cast sender on an ``EmbeddedCastSimulator``: it writes frames and keeps what comes
/// back. Each call returns the messages that reached this sender because of it.
public final class EmbeddedCastSender {
    /// Kept alive by its senders: a test may hold only them.
    private let simulator: EmbeddedCastSimulator
    let channel: EmbeddedChannel
    /// Everything this sender received, in order.
    public private(set) var received: [SenderMessage] = []
    /// Where ``takeNew()`` starts.
    private var unread = 0
    public private(set) var isClosed = false
    private var lastRequestId = 0

    init(simulator: EmbeddedCastSimulator, channel: EmbeddedChannel) {
        self.simulator = simulator
        self.channel = channel
    }

    func deliver(_ envelope: CastEnvelope) { received.append(SenderMessage(envelope)) }
    func closed() { isClosed = true }

    /// Forgets what was received so far (a long run that does not need it).
    public func discardReceived() {
        received.removeAll()
        unread = 0
    }

    /// The messages received since the last call (or since the sender connected).
    @discardableResult
    public func takeNew() -> [SenderMessage] {
        defer { unread = received.count }
        return Array(received[unread...])
    }

    @discardableResult
    public func send(_ envelope: CastEnvelope) -> [SenderMessage] {
        guard let frame = try? CastFraming.frame(envelope) else { return [] }
        return sendRaw(frame)
    }

    @discardableResult
    public func send(from source: String = CastEndpoint.platformSender, to destination: String, _ namespace: String,
                     _ payload: JSONValue) -> [SenderMessage] {
        send(CastEnvelope(sourceId: source, destinationId: destination, namespace: namespace, payload: .string(payload.jsonText())))
    }

    /// Writes bytes as they are: broken frames, for robustness tests.
    @discardableResult
    public func sendRaw(_ bytes: ByteBuffer) -> [SenderMessage] {
        takeNew()
        if channel.isActive { channel.writeAndFlush(bytes, promise: nil) }
        simulator.pump()
        return takeNew()
    }

    /// Sends a request with this sender's next requestId; the first answer carrying it.
    @discardableResult
    public func request(_ namespace: String, to destination: String, _ fields: [String: JSONValue],
                        from source: String = CastEndpoint.platformSender) -> SenderMessage? {
        lastRequestId += 1
        let requestId = lastRequestId
        var fields = fields
        fields["requestId"] = .number(Double(requestId))
        return send(from: source, to: destination, namespace, .object(fields)).first { $0.requestId == requestId }
    }

    /// CONNECTs `source` to `destination`.
    @discardableResult
    public func connect(to destination: String = CastEndpoint.platformReceiver,
                        from source: String = CastEndpoint.platformSender) -> [SenderMessage] {
        send(from: source, to: destination, CastNamespace.connection, ["type": "CONNECT"])
    }

    /// CONNECTs to `receiver-0`, LAUNCHes `appId` and CONNECTs to it: its transport id.
    public func launch(_ appId: String = CastAppDefinition.defaultMediaReceiver.appId,
                       from source: String = CastEndpoint.platformSender) -> String? {
        connect(from: source)
        let status = request(CastNamespace.receiver, to: CastEndpoint.platformReceiver,
                             ["type": "LAUNCH", "appId": .string(appId)], from: source)
        guard let transportId = status?.json["status"]?["applications"]?.arrayValue?.first?["transportId"]?.stringValue else {
            return nil
        }
        connect(to: transportId, from: source)
        return transportId
    }

    /// Closes the connection, as a sender that goes away.
    public func close() {
        channel.close(promise: nil)
        simulator.pump()
    }
}

/// A message a test sender received, with its JSON parsed.
public struct SenderMessage: Sendable, Equatable {
    public let envelope: CastEnvelope
    /// The payload's JSON; null when it is binary or not JSON.
    public let json: JSONValue

    public init(_ envelope: CastEnvelope) {
        self.envelope = envelope
        json = envelope.utf8.flatMap { try? JSONValue.parse($0) } ?? .null
    }

    public var type: String? { json["type"]?.stringValue }
    public var requestId: Int? { json["requestId"]?.intValue }
    public var isBroadcast: Bool { envelope.destinationId == CastEndpoint.broadcast }
}

/// The end of a test sender's pipeline.
private final class SenderInbox: ChannelInboundHandler {
    typealias InboundIn = CastEnvelope
    private weak var sender: EmbeddedCastSender?

    init(sender: EmbeddedCastSender) { self.sender = sender }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        sender?.deliver(unwrapInboundIn(data))
    }

    func channelInactive(context: ChannelHandlerContext) {
        sender?.closed()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A frame no sender accepts: a real one closes the connection.
        context.close(promise: nil)
    }
}
