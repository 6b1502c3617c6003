import Foundation
import CastDevice
import CastScenario
import CastWire
import Logging
import NIOCore
import NIOPosix
import NIOSSL

/// Runs one device (a ``ScenarioSession`` around a ``SimulatedDevice``; a plain run is an
/// empty scenario) on one event loop: feeds it connection events, messages and time, and
/// carries out what it returns (writes, closes, faults, logs, the next wake-up).
///
/// Every method runs on `loop`; the connections' channels live on the same loop, so no
/// message ever hops threads on its way through.
package final class DeviceRunner {
    let loop: any EventLoop
    package private(set) var session: ScenarioSession
    private var clock: SimulationClock
    /// What a reset needs to start the device again as it was started.
    private let authority: (any DeviceAuthority)?
    private let apps: AppRegistry
    private let journalLimit: Int
    private let logger: Logger
    private let outboundQueueLimit: Int

    private var connections: [ConnectionID: ConnectionSink] = [:]
    private var lastConnectionId: UInt64 = 0
    private var wakeUp: Scheduled<Void>?
    private var wakeUpAt: NIODeadline?
    /// Completed once the scenario's timeline and expectations are all done.
    package let completion: EventLoopPromise<Void>
    private var completed = false
    /// True while an input and its outputs are being carried out; see ``serially(_:)``.
    private var busy = false
    private var waitingInputs = CircularBuffer<() -> Void>()
    /// Open ``batch(_:)`` calls: while any is, written replies wait to be flushed.
    private var batchDepth = 0
    /// Connections written to since the last flush.
    private var unflushed: [ConnectionSink] = []
    /// Hears every typed event of the device after the runner has carried it out (the
    /// advertiser follows apps and advertisement changes this way).
    var eventListeners: [(DeviceEvent) -> Void] = []
    /// The household the device is in (a fleet's), once attached: it carries out the
    /// device's household steps (offline, leadGroup ...) and hears its events.
    private(set) var household: DeviceHousehold?
    /// A fleet's device is in a household from its start; its steps that fire before the
    /// household is attached (a step at 0 fires as the device starts) wait for it.
    var joinsHousehold = false
    private var earlyHouseholdSteps: [HouseholdStep] = []
    /// The control API's subscribers: every event, journal entry, clock move and reset.
    private var subscribers: [Int: (SimulatorNews) -> Void] = [:]
    private var lastSubscriberId = 0
    /// The newest journal entry subscribers have been given.
    private var publishedSequence = 0
    /// Connections the device side is closing, and how, for the news of their end.
    private var closing: [ConnectionID: ConnectionEnding] = [:]
    /// In relay mode: where every sender's messages go (device auth aside), and the TLS
    /// context of the links there (nil if it could not be made: each link then fails).
    private let relay: RelayConfiguration?
    private let upstreamTLS: Result<NIOSSLContext, any Error>?
    /// Each sender connection's link to the upstream, in relay mode.
    private var upstreams: [ConnectionID: UpstreamLink] = [:]

    init(loop: any EventLoop, session: ScenarioSession, clock: SimulationClock, logger: Logger, outboundQueueLimit: Int,
         authority: (any DeviceAuthority)? = nil, apps: AppRegistry = .builtIn, journalLimit: Int = MessageJournal.defaultLimit,
         relay: RelayConfiguration? = nil) {
        self.loop = loop
        self.relay = relay
        upstreamTLS = relay.map { _ in Result { try UpstreamLink.makeTLSContext() } }
        self.session = session
        self.clock = clock
        self.authority = authority
        self.apps = apps
        self.journalLimit = journalLimit
        completion = loop.makePromise(of: Void.self)
        self.logger = logger
        self.outboundQueueLimit = outboundQueueLimit
    }

    var now: SimTime { clock.now() }

    /// A runner for `configuration` on `loop`, caught up with the clock (steps due at
    /// time 0 have fired). Call on `loop`.
    package static func start(_ configuration: SimulatorConfiguration, authority: (any DeviceAuthority)?, loop: any EventLoop)
        -> DeviceRunner
    {
        let session = ScenarioSession(scenario: configuration.scenario, authority: authority, apps: configuration.apps,
                                      journalLimit: configuration.journalLimit)
        let runner = DeviceRunner(loop: loop, session: session, clock: SimulationClock(mode: configuration.clock),
                                  logger: configuration.logger, outboundQueueLimit: configuration.outboundQueueLimit,
                                  authority: authority, apps: configuration.apps, journalLimit: configuration.journalLimit,
                                  relay: configuration.relay)
        runner.joinsHousehold = configuration.joinsHousehold
        runner.advanceToNow()
        return runner
    }

    /// The device as it stands now.
    package var snapshot: DeviceSnapshot {
        loop.preconditionInEventLoop()
        return session.device.snapshot(at: now)
    }

    // MARK: Inputs

    /// A fresh id for a new connection. Taken before ``connectionOpened(_:channel:)`` so
    /// the handler knows its id even if the device closes it while it opens.
    func nextConnectionId() -> ConnectionID {
        loop.preconditionInEventLoop()
        lastConnectionId += 1
        return ConnectionID(lastConnectionId)
    }

    func connectionOpened(_ id: ConnectionID, channel: any Channel, tlsCertificateDER: Data? = nil) {
        loop.preconditionInEventLoop()
        connections[id] = ConnectionSink(channel: channel)
        logger.info("sender connected", metadata: ["connection": "\(id)", "peer": "\(channel.remoteAddress.map { "\($0)" } ?? "in-process")"])
        serially { [self] in
            if !subscribers.isEmpty {
                catchUpBeforeNews()
                publish(.connected(id, peer: Self.peer(of: channel), at: now))
            }
            apply(session.connectionOpened(id, now: now, tlsCertificateDER: tlsCertificateDER))
        }
        if relay != nil { openUpstream(for: id) }
    }

    /// `how`: as the connection saw its end (`clean`, or `reset` after an error); the
    /// device's own closes are known here and win.
    func connectionClosed(_ id: ConnectionID, how: ConnectionEnding = .clean) {
        loop.preconditionInEventLoop()
        guard connections.removeValue(forKey: id) != nil else { return }
        let ending = closing.removeValue(forKey: id) ?? how
        logger.info("sender disconnected", metadata: ["connection": "\(id)", "how": "\(ending.rawValue)"])
        closeUpstream(of: id, because: "the sender disconnected")
        serially { [self] in
            if !subscribers.isEmpty {
                catchUpBeforeNews()
                publish(.disconnected(id, how: ending, at: now))
            }
            apply(session.connectionClosed(id, now: now))
        }
    }

    func receive(_ envelope: CastEnvelope, from id: ConnectionID) {
        loop.preconditionInEventLoop()
        if logger.logLevel <= .trace {
            logger.trace("→ \(Self.describe(envelope))", metadata: ["connection": "\(id)"])
        }
        if relay != nil, envelope.namespace != CastNamespace.deviceAuth {
            // The device answers device auth with its own credentials; the rest is the upstream's.
            serially { [self] in forwardUpstream(envelope, from: id) }
            return
        }
        serially { [self] in apply(session.receive(envelope, on: id, now: now)) }
    }

    /// Moves a manual clock forward and lets the device catch up. False for a clock that
    /// is not manual, and for a span that is no duration castsim takes.
    package func advanceClock(by seconds: Double) -> Bool {
        loop.preconditionInEventLoop()
        if let problem = ScenarioDuration.problem(with: seconds) {
            logger.warning("clock not advanced by \(NumberText.format(seconds)) s: \(problem)")
            return false
        }
        let from = now
        guard clock.advance(by: seconds) else { return false }
        // Told before what happens on the way, so a recording's times never go backwards.
        if !subscribers.isEmpty {
            publishMessages()
            publish(.clock(now, from: from))
        }
        serially { [self] in apply(session.advance(to: now)) }
        return true
    }

    /// The clock's mode and the simulation time now.
    package var clockReading: (mode: ClockMode, time: SimTime) { (clock.mode, now) }

    /// Carries out a timeline action now (the control API's `act`); `json` is how it was
    /// written, for recordings.
    package func act(_ action: TimelineStep.Action, json: JSONValue? = nil) {
        loop.preconditionInEventLoop()
        serially { [self] in
            if let json, !subscribers.isEmpty {
                catchUpBeforeNews()
                publish(.input(json, at: now))
            }
            apply(session.act(action, now: now))
        }
    }

    /// Forgets the journal's messages.
    package func clearJournal() {
        loop.preconditionInEventLoop()
        session.clearJournal()
    }

    /// Starts the device again from the start of `scenario`: a fresh device, an empty
    /// journal, pending expectations, the clock at 0 (in `scenario`'s mode, if it names
    /// one). Open connections are closed, as a device that reboots closes them.
    package func reset(to scenario: Scenario, clockMode: ClockMode) {
        loop.preconditionInEventLoop()
        let wasAdvertised = session.device.snapshot.isAdvertised
        let open = connections
        connections.removeAll()
        closing.removeAll()
        if !subscribers.isEmpty {
            publishMessages()
            for id in open.keys.sorted() { publish(.disconnected(id, how: .device, at: now)) }
        }
        for id in upstreams.keys.sorted() { closeUpstream(of: id, because: "the device reset") }
        for sink in open.values {
            sink.flush()
            sink.channel.drop()
        }
        wakeUp?.cancel()
        wakeUp = nil
        wakeUpAt = nil
        waitingInputs.removeAll()
        unflushed.removeAll()
        logger.notice("device reset: scenario \"\(scenario.name)\" from its start, \(open.count) connection\(open.count == 1 ? "" : "s") closed")
        session = ScenarioSession(scenario: scenario, authority: authority, apps: apps, journalLimit: journalLimit,
                                  journalSequence: session.journal.lastSequence)
        clock = SimulationClock(mode: clockMode)
        publishedSequence = session.journal.lastSequence
        if !wasAdvertised {
            // The new device is advertised: whoever advertises it learns it is back.
            let event = DeviceEvent(time: now, kind: .advertisementChanged(.restore(host: nil, port: nil)))
            for listener in eventListeners { listener(event) }
        }
        publish(.reset)
        advanceToNow()
    }

    /// The device joins `household`: it hears the device's events, and carries out its
    /// household steps, those that fired before now first.
    func attach(_ household: DeviceHousehold) {
        loop.preconditionInEventLoop()
        self.household = household
        let early = earlyHouseholdSteps
        earlyHouseholdSteps = []
        for step in early {
            do {
                try household.perform(step)
            } catch {
                logger.warning("\(step) not done: \(error)")
            }
        }
    }

    /// The household is gone (the fleet stops): nothing of it is kept.
    func detachHousehold() {
        loop.preconditionInEventLoop()
        household = nil
        earlyHouseholdSteps = []
    }

    /// Closes every sender connection from the device's side (it moves, or goes offline);
    /// the device hears of each close as usual.
    func closeEveryConnection(because reason: String) {
        loop.preconditionInEventLoop()
        guard !connections.isEmpty else { return }
        logger.notice("closing \(connections.count) connection\(connections.count == 1 ? "" : "s"): \(reason)")
        for (id, sink) in connections.sorted(by: { $0.key < $1.key }) {
            if closing[id] == nil { closing[id] = .device }
            sink.flush()
            sink.channel.drop()
        }
    }

    /// Lets the device catch up with the clock and tells subscribers what came of it, so
    /// that news stamped `now` comes after everything that happened before now.
    private func catchUpBeforeNews() {
        apply(session.advance(to: now))
        publishMessages()
    }

    /// `HOST:PORT` of a sender, `[HOST]:PORT` for IPv6; nil when it has no address.
    static func peer(of channel: any Channel) -> String? {
        guard let address = channel.remoteAddress, let ip = address.ipAddress else { return nil }
        return ip.contains(":") ? "[\(ip)]:\(address.port ?? 0)" : "\(ip):\(address.port ?? 0)"
    }

    /// The connections open now, with their peers.
    package var openConnections: [(ConnectionID, String?)] {
        connections.keys.sorted().map { ($0, Self.peer(of: connections[$0]!.channel)) }
    }

    /// Adds a subscriber to everything that happens; returns what removes it.
    package func subscribe(_ subscriber: @escaping (SimulatorNews) -> Void) -> Int {
        loop.preconditionInEventLoop()
        lastSubscriberId += 1
        subscribers[lastSubscriberId] = subscriber
        if subscribers.count == 1 { publishedSequence = session.journal.lastSequence }
        return lastSubscriberId
    }

    /// How many subscribers hear the news now.
    package var subscriberCount: Int { subscribers.count }

    package func unsubscribe(_ id: Int) {
        loop.preconditionInEventLoop()
        subscribers[id] = nil
    }

    private func publish(_ news: SimulatorNews) {
        for subscriber in subscribers.values { subscriber(news) }
    }

    /// Lets the session catch up with the clock (steps due at the start).
    func advanceToNow() {
        loop.preconditionInEventLoop()
        serially { [self] in apply(session.advance(to: now)) }
    }

    package func apply(_ input: OperatorInput) {
        loop.preconditionInEventLoop()
        serially { [self] in apply(session.apply(input, now: now)) }
    }

    /// News of the device's speaker groups, from its household.
    func apply(_ input: MultizoneInput) {
        loop.preconditionInEventLoop()
        serially { [self] in apply(session.apply(input, now: now)) }
    }

    /// Carries out one input, outputs and all, before the next. Writing an output can call
    /// back into the runner: a close fires the channel's inactive event, a write that drains
    /// a sender's queue lets its handler hand over the messages it held. Such an input
    /// waits for the current one to finish, so every sender sees outputs in the order the
    /// device produced them.
    private func serially(_ input: @escaping () -> Void) {
        guard !busy else {
            waitingInputs.append(input)
            return
        }
        busy = true
        input()
        while let next = waitingInputs.popFirst() { next() }
        busy = false
        if batchDepth == 0 { flushWrites() }
    }

    /// Runs `body` (a connection handing over the messages of one read) with the replies
    /// it causes flushed once at the end, not once each: pipelined requests then cost one
    /// TLS record and one write(2), as they would in any NIO server that flushes on
    /// read-complete.
    package func batch(_ body: () -> Void) {
        batchDepth += 1
        body()
        batchDepth -= 1
        if batchDepth == 0, !busy { flushWrites() }
    }

    private func flushWrites() {
        // Flushing can call back in (a sender reading again hands over its held messages),
        // so the list is taken before any of it is flushed.
        while !unflushed.isEmpty {
            let sinks = unflushed
            unflushed.removeAll(keepingCapacity: true)
            for sink in sinks { sink.flush() }
        }
    }

    private func enqueue(_ frame: ByteBuffer, on sink: ConnectionSink) {
        if sink.enqueue(frame) { unflushed.append(sink) }
    }

    package func shutDown() {
        loop.preconditionInEventLoop()
        wakeUp?.cancel()
        wakeUp = nil
        for link in upstreams.values { link.close() }
        upstreams.removeAll()
        for sink in connections.values {
            sink.flush()
            sink.channel.drop()
        }
        if !completed {
            completed = true
            completion.succeed()
        }
    }

    // MARK: Outputs

    private func apply(_ outputs: [ScenarioOutput]) {
        for output in outputs {
            switch output {
            case .device(.send(let envelope, let recipients)):
                send(envelope, to: recipients)
            case .device(.close(let id, let reason)):
                logger.notice("closing connection: \(reason)", metadata: ["connection": "\(id)"])
                if connections[id] != nil, closing[id] == nil { closing[id] = .device }
                // Bookkeeping happens in connectionClosed, when the channel is really gone.
                connections[id]?.flush()
                connections[id]?.channel.drop()
            case .device(.log(let event)):
                // The core escapes what senders supplied: the text is safe as it is.
                logger.log(level: event.level.loggerLevel, "\(event.message)",
                           metadata: event.connection.map { ["connection": "\($0)"] })
            case .device(.event(let event)):
                logger.debug("event: \(LogText.escape(event.description, limit: 500))")
                if case .connectionClosed(let id, .idleTimeout) = event.kind, connections[id] != nil { closing[id] = .idleTimeout }
                for listener in eventListeners { listener(event) }
                household?.heard(event)
                if !subscribers.isEmpty {
                    publishMessages()
                    publish(.event(event))
                }
            case .closeConnection(let id, let reset):
                guard let sink = connections[id] else { continue }
                closing[id] = .device
                logger.notice("scenario closes the connection\(reset ? " with a reset" : "")", metadata: ["connection": "\(id)"])
                sink.flush()
                if reset, let socket = sink.channel as? any SocketOptionProvider {
                    // SO_LINGER 0: close() sends RST instead of FIN; a reset is abrupt, so
                    // without the TLS close_notify either.
                    let channel = sink.channel
                    socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.drop() }
                } else {
                    sink.channel.close(promise: nil)
                }
            case .sendRawFrame(let id, let frame):
                guard let sink = connections[id] else { continue }
                logger.notice("scenario sends a \(frame.rawValue) frame", metadata: ["connection": "\(id)"])
                enqueue(Self.bytes(of: frame), on: sink)
            case .clockAdvanced(let time):
                clock.jump(to: time)
            case .household(let step):
                if let household {
                    do {
                        try household.perform(step)
                    } catch {
                        logger.warning("\(step) not done: \(error)")
                    }
                } else if joinsHousehold {
                    earlyHouseholdSteps.append(step)
                } else {
                    logger.warning("\(step) is for a household (a scenario with devices); this device is in none")
                }
            }
        }
        if !subscribers.isEmpty { publishMessages() }
        scheduleWakeUp()
        if !completed, session.isComplete {
            completed = true
            completion.succeed()
        }
    }

    /// Gives subscribers the journal entries they have not seen yet.
    private func publishMessages() {
        let journal = session.journal
        guard journal.lastSequence > publishedSequence else { return }
        for entry in journal.entries(after: publishedSequence) { publish(.message(entry)) }
        publishedSequence = journal.lastSequence
    }

    /// A message for a trace line: namespace, ids and payload, escaped (they are the
    /// sender's, and may hold newlines or terminal escapes).
    static func describe(_ envelope: CastEnvelope) -> String {
        let payload: String
        switch envelope.payload {
        case .string(let text): payload = text
        case .binary(let data): payload = "<\(data.count) binary bytes>"
        }
        return LogText.escape("\(envelope.namespace) \(envelope.sourceId)→\(envelope.destinationId) \(payload)")
    }

    /// Bytes of a frame no sender should have to accept.
    static func bytes(of frame: RawFrame) -> ByteBuffer {
        var buffer = ByteBuffer()
        switch frame {
        case .malformed:
            // A correct length, then a body that is no protobuf.
            buffer.writeInteger(UInt32(16), endianness: .big)
            buffer.writeBytes([UInt8](repeating: 0xFF, count: 16))
        case .oversized:
            // A length far over the 64 KiB limit, then the start of a body.
            buffer.writeInteger(UInt32(1 << 20), endianness: .big)
            buffer.writeBytes([UInt8](repeating: 0x08, count: 64))
        }
        return buffer
    }

    /// Frames the message once, then writes the same bytes to every recipient.
    private func send(_ envelope: CastEnvelope, to recipients: [ConnectionID]) {
        let frame: ByteBuffer
        do {
            frame = try CastFraming.frame(envelope)
        } catch {
            logger.error("not sent: \(error)", metadata: ["namespace": "\(envelope.namespace)"])
            return
        }
        if logger.logLevel <= .trace {
            logger.trace("← \(Self.describe(envelope))", metadata: ["connections": "\(recipients)"])
        }
        for id in recipients {
            guard let sink = connections[id] else { continue }
            // A sender that stops reading must not hold the others back: once its queue
            // passes the limit it is disconnected.
            if sink.queuedBytes + frame.readableBytes > outboundQueueLimit {
                logger.warning("sender is not reading: \(sink.queuedBytes) bytes queued, over the \(outboundQueueLimit)-byte limit; disconnecting",
                               metadata: ["connection": "\(id)"])
                connections.removeValue(forKey: id)
                sink.channel.drop()
                closeUpstream(of: id, because: "the sender is not reading")
                serially { [self] in
                    if !subscribers.isEmpty {
                        publishMessages()
                        publish(.disconnected(id, how: .device, at: now))
                    }
                    apply(session.connectionClosed(id, now: now))
                }
                continue
            }
            enqueue(frame, on: sink)
        }
    }

    // MARK: Relay

    /// Connects the sender's own link to the upstream; what the sender sends meanwhile waits.
    private func openUpstream(for id: ConnectionID) {
        guard let relay, connections[id] != nil else { return }
        let link = UpstreamLink(connection: id, configuration: relay, callbacks: .init(
            connected: { [weak self] link in self?.serially { self?.upstreamConnected(link) } },
            received: { [weak self] link, envelopes in
                guard let self else { return }
                batch { serially { [self] in relayDownstream(envelopes, over: link) } }
            },
            ended: { [weak self] link, reason, level in self?.serially { self?.upstreamEnded(link, reason: reason, level: level) } }))
        upstreams[id] = link
        switch upstreamTLS {
        case .success(let context)?:
            link.start(on: loop, tls: context)
        case .failure(let error)?:
            upstreamEnded(link, reason: "no TLS client for the upstream: \(error)", level: .error)
        case nil:
            break
        }
    }

    private func upstreamConnected(_ link: UpstreamLink) {
        let id = link.connection
        guard upstreams[id] === link else { return }
        logger.info("upstream \(link.configuration.hostAndPort) connected", metadata: ["connection": "\(id)"])
        publish(.upstream(id, connected: true, reason: nil))
        for frame in link.takePending() { forward(frame, over: link) }
    }

    /// A sender's message on its way upstream: journalled, then written (or held until
    /// the link is up).
    private func forwardUpstream(_ envelope: CastEnvelope, from id: ConnectionID) {
        // No link: it failed and the sender's connection is closing.
        guard let link = upstreams[id] else { return }
        let frame: ByteBuffer
        do {
            frame = try CastFraming.frame(envelope)
        } catch {
            logger.error("not relayed: \(error)", metadata: ["connection": "\(id)", "namespace": "\(envelope.namespace)"])
            return
        }
        session.relayed(.inbound, envelope, connections: [id], now: now)
        if !subscribers.isEmpty { publishMessages() }
        forward(frame, over: link)
    }

    private func forward(_ frame: ByteBuffer, over link: UpstreamLink) {
        switch link.state {
        case .connecting:
            if link.pendingBytes + frame.readableBytes > outboundQueueLimit {
                upstreamEnded(link, reason: "upstream \(link.configuration.hostAndPort) is not up yet and \(link.pendingBytes) bytes wait for it, over the \(outboundQueueLimit)-byte limit",
                              level: .warning)
                link.close()
                return
            }
            link.hold(frame)
        case .open(let sink):
            if sink.queuedBytes + frame.readableBytes > outboundQueueLimit {
                upstreamEnded(link, reason: "upstream \(link.configuration.hostAndPort) is not reading: \(sink.queuedBytes) bytes queued, over the \(outboundQueueLimit)-byte limit",
                              level: .warning)
                link.close()
                return
            }
            enqueue(frame, on: sink)
        case .closed:
            break
        }
    }

    /// The upstream's messages to its sender: journalled as the device's, and written to
    /// that one connection as the device's replies are.
    private func relayDownstream(_ envelopes: [CastEnvelope], over link: UpstreamLink) {
        let id = link.connection
        guard upstreams[id] === link, connections[id] != nil else { return }
        for envelope in envelopes {
            session.relayed(.outbound, envelope, connections: [id], now: now)
            send(envelope, to: [id])
        }
        if !subscribers.isEmpty { publishMessages() }
    }

    /// The upstream closed or failed (or the link could not go on): the sender's
    /// connection closes too, after what the upstream sent before.
    private func upstreamEnded(_ link: UpstreamLink, reason: String, level: Logger.Level) {
        let id = link.connection
        guard upstreams[id] === link else { return }
        upstreams[id] = nil
        logger.log(level: level, "closing connection: \(LogText.escape(reason, limit: 300))", metadata: ["connection": "\(id)"])
        if !subscribers.isEmpty { publishMessages() }
        publish(.upstream(id, connected: false, reason: reason))
        if let sink = connections[id] {
            // The device's side ends it, as a real device that goes away.
            closing[id] = .device
            sink.flush()
            sink.channel.drop()
        }
    }

    /// Closes a sender's upstream link from this side (the sender went, the device resets).
    private func closeUpstream(of id: ConnectionID, because reason: String) {
        guard let link = upstreams.removeValue(forKey: id) else { return }
        link.close()
        logger.debug("upstream link closed: \(reason)", metadata: ["connection": "\(id)"])
        publish(.upstream(id, connected: false, reason: reason))
    }

    /// Wakes the device at its next deadline (heartbeat, end of media ...).
    private func scheduleWakeUp() {
        let target = session.nextDeadline.flatMap { clock.wallDeadline(for: $0) }
        guard target != wakeUpAt else { return }
        wakeUp?.cancel()
        wakeUpAt = target
        guard let target else {
            wakeUp = nil
            return
        }
        wakeUp = loop.assumeIsolated().scheduleTask(deadline: target) { [self] in
            wakeUpAt = nil
            wakeUp = nil
            serially { [self] in apply(session.advance(to: now)) }
        }
    }
}

/// One connection's write side, with the count of bytes written but not yet on the socket.
final class ConnectionSink {
    let channel: any Channel
    private(set) var queuedBytes = 0
    private var needsFlush = false

    init(channel: any Channel) { self.channel = channel }

    /// Writes a frame, to be flushed later; true when the sink was clean until now.
    func enqueue(_ frame: ByteBuffer) -> Bool {
        let size = frame.readableBytes
        queuedBytes += size
        let promise = channel.eventLoop.makePromise(of: Void.self)
        promise.futureResult.assumeIsolated().whenComplete { [self] _ in queuedBytes -= size }
        channel.write(frame, promise: promise)
        defer { needsFlush = true }
        return !needsFlush
    }

    func flush() {
        guard needsFlush else { return }
        needsFlush = false
        channel.flush()
    }
}

extension DeviceLogEvent.Level {
    var loggerLevel: Logger.Level {
        switch self {
        case .debug: .debug
        case .info: .info
        case .warning: .warning
        }
    }
}

/// What the runner tells the control API's subscribers.
public enum SimulatorNews: Sendable {
    /// A typed event of the device (or a fault the scenario applied).
    case event(DeviceEvent)
    /// A message, in either direction, as the journal keeps it.
    case message(JournalEntry)
    /// A manual clock moves from `from` to this time (told before what happens on the way).
    case clock(SimTime, from: SimTime)
    /// The device started again (a reset, or a scenario loaded).
    case reset
    /// A sender's connection opened (`peer`: its address).
    case connected(ConnectionID, peer: String?, at: SimTime)
    /// A sender's connection closed, and how.
    case disconnected(ConnectionID, how: ConnectionEnding, at: SimTime)
    /// An operator input through the control API, as its request wrote it.
    case input(JSONValue, at: SimTime)
    /// In relay mode: a sender connection's link to the upstream came up (TLS done), or
    /// ended, with why (the upstream refused, reset or closed; the sender went).
    case upstream(ConnectionID, connected: Bool, reason: String?)
}
