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
/// carries out what it says, in one line: writes and closes go to the connections
/// (``ConnectionWriter``), and every message, event and change is news on the device's
/// ``NewsBus``, which the journal, the household, the advertiser, the event streams and the
/// recorder hear.
///
/// Every method runs on `loop`; the connections' channels live on the same loop, so no
/// message ever hops threads on its way through.
package final class DeviceRunner {
    let loop: any EventLoop
    package internal(set) var session: ScenarioSession
    private var clock: SimulationClock
    /// What a reset needs to start the device again as it was started.
    private let authority: (any DeviceAuthority)?
    private let apps: AppRegistry
    let logger: Logger

    /// The messages of both directions, the newest ones: the first subscriber of the news.
    package private(set) var journal: MessageJournal
    let news = NewsBus()
    /// The subscriptions made through ``subscribe(_:)`` (event streams, the recorder).
    private var outsideSubscriptions: Set<Int> = []
    let writer: ConnectionWriter
    private var liveness: ConnectionLiveness
    private var lastConnectionId: UInt64 = 0
    /// The simulation's next event (end of media, a step ...), on the real clock.
    private var wakeUp = WakeUp()
    /// Completed once the scenario's timeline and expectations are all done.
    package let completion: EventLoopPromise<Void>
    private var completed = false
    /// Set by ``shutDown()``: the device sets no timer after it (its loop may be about to go).
    private var stopped = false
    /// True while an input and its outputs are being carried out; see ``serially(_:)``.
    private var busy = false
    private var waitingInputs = CircularBuffer<() -> Void>()
    /// Open ``batch(_:)`` calls: while any is, written replies wait to be flushed.
    private var batchDepth = 0
    /// The household the device is in (a fleet's), once attached (``DeviceRunner+Household``).
    var household: (DeviceHousehold, subscription: Int)?
    /// A fleet's device is in a household from its start; its steps that fire before the
    /// household is attached (a step at 0 fires as the device starts) wait for it.
    var joinsHousehold = false
    var earlyHouseholdSteps: [HouseholdStep] = []
    /// In relay mode, each sender connection's link to the upstream (``DeviceRunner+Relay``).
    var relay: RelayLinks?
    /// The device's address, where its Cast Streaming sessions' UDP sockets listen.
    private let host: String
    /// Cast Streaming's media plane: a UDP socket for each session the mirroring app negotiates.
    private(set) lazy var media = StreamingMedia(loop: loop, host: host, logger: logger, runner: StreamingMedia.Runner(
        report: { [unowned self] report in apply(.streaming(report)) },
        heard: { [unowned self] id in liveness.heard(id, at: loop.now) },
        peer: { [unowned self] id in writer.sinks[id]?.channel.remoteAddress },
        idleTimeout: { [unowned self] in session.scenario.device.idleTimeout }))
    /// Discovery as it was set up (``setDiscovery(_:)``), and its status as last told.
    private var discoverySetup = DiscoveryStatus.notAdvertised(.off, "discovery is off (castsim run --mdns off)")
    private var toldDiscovery: DiscoveryStatus?

    init(loop: any EventLoop, session: ScenarioSession, clock: SimulationClock, logger: Logger, outboundQueueLimit: Int,
         authority: (any DeviceAuthority)? = nil, apps: AppRegistry = .builtIn, journalLimit: Int = MessageJournal.defaultLimit,
         journalByteLimit: Int = MessageJournal.defaultByteLimit,
         relay: RelayConfiguration? = nil, host: String = "127.0.0.1") {
        self.loop = loop
        self.host = host
        self.relay = relay.map(RelayLinks.init)
        self.session = session
        self.clock = clock
        self.authority = authority
        self.apps = apps
        journal = MessageJournal(limit: journalLimit, byteLimit: journalByteLimit)
        writer = ConnectionWriter(queueLimit: outboundQueueLimit)
        liveness = ConnectionLiveness(session.scenario.device, origin: loop.now)
        completion = loop.makePromise(of: Void.self)
        self.logger = logger
        _ = news.subscribe { [unowned self] news in
            switch news {
            case .message(let entry): journal.record(entry)
            case .unhandled(let sequence, let reason): journal.markUnhandled(sequence, reason)
            default: break
            }
        }
    }

    var now: SimTime { clock.now() }

    /// A runner for `configuration` on `loop`, caught up with the clock (steps due at
    /// time 0 have fired). Call on `loop`.
    package static func start(_ configuration: SimulatorConfiguration, authority: (any DeviceAuthority)?, loop: any EventLoop)
        -> DeviceRunner
    {
        let session = ScenarioSession(scenario: configuration.scenario, authority: authority, apps: configuration.apps)
        let runner = DeviceRunner(loop: loop, session: session, clock: SimulationClock(mode: configuration.clock),
                                  logger: configuration.logger, outboundQueueLimit: configuration.outboundQueueLimit,
                                  authority: authority, apps: configuration.apps, journalLimit: configuration.journalLimit,
                                  journalByteLimit: configuration.journalByteLimit,
                                  relay: configuration.relay, host: configuration.host)
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

    /// A fresh id for a new connection. Taken before ``connectionOpened(_:channel:tlsCertificateDER:)``
    /// so the handler knows its id even if the device closes it while it opens.
    func nextConnectionId() -> ConnectionID {
        loop.preconditionInEventLoop()
        lastConnectionId += 1
        return ConnectionID(lastConnectionId)
    }

    func connectionOpened(_ id: ConnectionID, channel: any Channel, tlsCertificateDER: Data? = nil) {
        loop.preconditionInEventLoop()
        guard !stopped else {
            // Accepted as the device stopped: it is gone before it was there.
            channel.drop()
            return
        }
        if relay != nil, refusesAsLoop(channel) {
            channel.drop()
            return
        }
        writer.add(id, channel: channel)
        liveness.opened(id, at: loop.now)
        logger.info("sender connected", metadata: ["connection": "\(id)", "peer": "\(channel.remoteAddress.map { "\($0)" } ?? "in-process")"])
        serially { [self] in
            catchUp()
            news.publish(.connected(id, peer: Self.peer(of: channel), at: now))
            carryOut(session.connectionOpened(id, now: now, tlsCertificateDER: tlsCertificateDER))
        }
        if relay != nil { openUpstream(for: id) }
    }

    /// `how`: as the connection saw its end (`clean`, or `reset` after an error); the
    /// device's own closes are known here and win.
    func connectionClosed(_ id: ConnectionID, how: ConnectionEnding = .clean) {
        loop.preconditionInEventLoop()
        guard let ending = writer.remove(id, seen: how) else { return }
        liveness.closed(id)
        logger.info("sender disconnected", metadata: ["connection": "\(id)", "how": "\(ending.rawValue)"])
        closeUpstream(of: id, because: "the sender disconnected")
        serially { [self] in
            catchUp()
            news.publish(.disconnected(id, how: ending, at: now))
            carryOut(session.connectionClosed(id, now: now))
        }
    }

    func receive(_ envelope: CastEnvelope, from id: ConnectionID) {
        loop.preconditionInEventLoop()
        liveness.heard(id, at: loop.now)
        if logger.logLevel <= .trace {
            logger.trace("→ \(Self.describe(envelope))", metadata: ["connection": "\(id)"])
        }
        if relay != nil, envelope.namespace != CastNamespace.deviceAuth {
            // The device answers device auth with its own credentials; the rest is the upstream's.
            serially { [self] in forwardUpstream(envelope, from: id) }
            return
        }
        guard !busy else {
            serially { [self] in carryOut(session.receive(envelope, on: id, now: now)) }
            return
        }
        // Nearly always nothing else is running: the message is handled at once, without
        // the escaping closure `serially` keeps for later (an allocation a message).
        busy = true
        carryOut(session.receive(envelope, on: id, now: now))
        finishSerially()
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
        news.publish(.clock(now, from: from))
        serially { [self] in carryOut(session.advance(to: now)) }
        return true
    }

    /// The clock's mode and the simulation time now.
    package var clockReading: (mode: ClockMode, time: SimTime) { (clock.mode, now) }

    /// What discovery does for the device now: as set up, unless the device withdrew.
    package var discoveryStatus: DiscoveryStatus {
        discoverySetup.following(withdrawn: !session.device.isAdvertised, castDropped: session.device.castDropped)
    }

    /// Who advertises the device and where (the simulator's discovery once started; a
    /// household's runtime for a speaker group's endpoint).
    package func setDiscovery(_ setup: DiscoveryStatus) {
        loop.preconditionInEventLoop()
        discoverySetup = setup
        tellDiscovery()
    }

    /// News of the discovery status when it differs from what was told last.
    private func tellDiscovery() {
        let status = discoveryStatus
        guard status != toldDiscovery else { return }
        toldDiscovery = status
        news.publish(.discovery(status))
    }

    /// Carries out a timeline action now (the control API's `act`); `json` is how it was
    /// written, for recordings.
    package func act(_ action: TimelineStep.Action, json: JSONValue? = nil) {
        loop.preconditionInEventLoop()
        serially { [self] in
            if let json {
                catchUp()
                news.publish(.input(json, at: now))
            }
            carryOut(session.act(action, now: now))
        }
    }

    /// An operator's input done elsewhere (a household's step), for the recording.
    package func noteInput(_ json: JSONValue) {
        loop.preconditionInEventLoop()
        catchUp()
        news.publish(.input(json, at: now))
    }

    /// Forgets the journal's messages. Expectations keep their own evidence.
    package func clearJournal() {
        loop.preconditionInEventLoop()
        journal.clear()
    }

    /// Starts the device again from the start of `scenario`: a fresh device, an empty
    /// journal, pending expectations, the clock at 0 (in `scenario`'s mode, if it names
    /// one). Open connections are closed, as a device that reboots closes them.
    package func reset(to scenario: Scenario, clockMode: ClockMode) {
        loop.preconditionInEventLoop()
        let wasAdvertised = session.device.snapshot.isAdvertised
        for id in relay?.connections ?? [] { closeUpstream(of: id, because: "the device reset") }
        let open = writer.evictAll()
        for id in open { news.publish(.disconnected(id, how: .device, at: now)) }
        wakeUp.cancel()
        liveness.cancel()
        media.closeAll()
        waitingInputs.removeAll()
        logger.notice("device reset: scenario \"\(scenario.name)\" from its start, \(open.count) connection\(open.count == 1 ? "" : "s") closed")
        session = ScenarioSession(scenario: scenario, authority: authority, apps: apps, numberingAfter: session.lastSequence)
        clock = SimulationClock(mode: clockMode)
        liveness = ConnectionLiveness(scenario.device, origin: loop.now)
        journal.clear()
        if !wasAdvertised {
            // The new device is advertised: whoever advertises it learns it is back.
            news.publish(.event(DeviceEvent(time: now, kind: .advertisementChanged(.restore(host: nil, port: nil)))))
        }
        news.publish(.reset)
        tellDiscovery()
        advanceToNow()
    }

    /// Closes every sender connection from the device's side (it moves, or goes offline);
    /// the device hears of each close as usual.
    func closeEveryConnection(because reason: String) {
        loop.preconditionInEventLoop()
        guard !writer.sinks.isEmpty else { return }
        logger.notice("closing \(writer.sinks.count) connection\(writer.sinks.count == 1 ? "" : "s"): \(reason)")
        writer.dropAll(as: .device)
    }

    /// Lets the device catch up with the clock, so that news stamped `now` comes after
    /// everything that happened before now.
    private func catchUp() {
        carryOut(session.advance(to: now))
    }

    /// `HOST:PORT` of a sender, `[HOST]:PORT` for IPv6; nil when it has no address.
    static func peer(of channel: any Channel) -> String? {
        guard let address = channel.remoteAddress, let ip = address.ipAddress else { return nil }
        return ip.contains(":") ? "[\(ip)]:\(address.port ?? 0)" : "\(ip):\(address.port ?? 0)"
    }

    /// The connections open now, with their peers.
    package var openConnections: [(ConnectionID, String?)] {
        writer.sinks.keys.sorted().map { ($0, Self.peer(of: writer.sinks[$0]!.channel)) }
    }

    /// Adds a subscriber to everything that happens; returns what removes it.
    package func subscribe(_ subscriber: @escaping (SimulatorNews) -> Void) -> Int {
        loop.preconditionInEventLoop()
        let id = news.subscribe(subscriber)
        outsideSubscriptions.insert(id)
        return id
    }

    /// How many subscribers from outside (event streams, the recorder) hear the news now.
    package var subscriberCount: Int { outsideSubscriptions.count }

    package func unsubscribe(_ id: Int) {
        loop.preconditionInEventLoop()
        outsideSubscriptions.remove(id)
        news.unsubscribe(id)
    }

    /// Lets the session catch up with the clock (steps due at the start).
    func advanceToNow() {
        loop.preconditionInEventLoop()
        serially { [self] in carryOut(session.advance(to: now)) }
    }

    package func apply(_ input: OperatorInput) {
        loop.preconditionInEventLoop()
        serially { [self] in carryOut(session.apply(input, now: now)) }
    }

    /// The scenario's report as of now. The session is caught up with the clock first: it
    /// knows the time of its last input, and a run stopped with nothing due since its start
    /// reported a duration of microseconds.
    package func report() -> ScenarioReport {
        loop.preconditionInEventLoop()
        serially { [self] in catchUp() }
        return session.report()
    }

    /// News of the device's speaker groups, from its household.
    func apply(_ input: MultizoneInput) {
        loop.preconditionInEventLoop()
        serially { [self] in carryOut(session.apply(input, now: now)) }
    }

    /// Carries out one input, outputs and all, before the next. Writing an output can call
    /// back into the runner: a close fires the channel's inactive event, a write that drains
    /// a sender's queue lets its handler hand over the messages it held. Such an input
    /// waits for the current one to finish, so every sender sees outputs in the order the
    /// device produced them.
    func serially(_ input: @escaping () -> Void) {
        guard !busy else {
            waitingInputs.append(input)
            return
        }
        busy = true
        input()
        finishSerially()
    }

    /// Runs what came in meanwhile, then flushes the replies unless a batch will.
    private func finishSerially() {
        while let next = waitingInputs.popFirst() { next() }
        busy = false
        if batchDepth == 0 { writer.flushWrites() }
    }

    /// Reads the session in place. `session.isComplete` and the like, getters of another
    /// module on a class's stored property, first copy the whole session, retaining and
    /// releasing every part of it: after every message, 3 % of the device loop's time.
    private func readSession<T>(_ read: (inout ScenarioSession) -> T) -> T { read(&session) }

    /// Runs `body` (a connection handing over the messages of one read) with the replies
    /// it causes flushed once at the end, not once each: pipelined requests then cost one
    /// TLS record and one write(2), as they would in any NIO server that flushes on
    /// read-complete.
    package func batch(_ body: () -> Void) {
        batchDepth += 1
        body()
        batchDepth -= 1
        if batchDepth == 0, !busy { writer.flushWrites() }
    }

    /// Stops the device: its timers, its upstream links and every sender connection (each
    /// close is news as its channel goes, as usual). Returns what completes once every
    /// sender's channel is closed and the device has heard of it; no timer is set after this.
    @discardableResult
    package func shutDown() -> EventLoopFuture<Void> {
        loop.preconditionInEventLoop()
        stopped = true
        wakeUp.cancel()
        liveness.cancel()
        closeEveryUpstream()
        media.closeAll()
        let closed = writer.sinks.values.map { $0.channel.closeFuture }
        writer.dropAll(as: .device)
        if !completed {
            completed = true
            completion.succeed()
        }
        return EventLoopFuture.andAllComplete(closed, on: loop)
    }

    // MARK: Outputs

    /// Carries out what the device said, in order, and tells it as news.
    func carryOut(_ outputs: [ScenarioOutput]) {
        for output in outputs {
            switch output {
            case .message(let entry):
                if entry.direction == .outbound { write(entry.envelope, to: entry.connections) }
                news.publish(.message(entry))
            case .unhandled(let sequence, let reason):
                news.publish(.unhandled(sequence: sequence, reason: reason))
            case .event(let event):
                logger.debug("event: \(LogText.escape(event.description, limit: 500))")
                if case .connectionClosed(let id, .idleTimeout) = event.kind { writer.noteEnding(id, .idleTimeout) }
                news.publish(.event(event))
                if case .advertisementChanged = event.kind { tellDiscovery() }
                if case .streaming(let streaming) = event.kind { media.handle(streaming) }
            case .log(let line):
                // The core escapes what senders supplied: the text is safe as it is.
                logger.log(level: line.level.loggerLevel, "\(line.message)", metadata: line.connection.map { ["connection": "\($0)"] })
            case .close(let id, let reason):
                logger.notice("closing connection: \(reason)", metadata: ["connection": "\(id)"])
                // Bookkeeping happens in connectionClosed, when the channel is really gone.
                writer.drop(id, as: .device)
            case .closeConnection(let id, let reset):
                guard writer.sinks[id] != nil else { continue }
                logger.notice("scenario closes the connection\(reset ? " with a reset" : "")", metadata: ["connection": "\(id)"])
                writer.close(id, reset: reset)
            case .sendRawFrame(let id, let frame):
                guard let sink = writer.sinks[id] else { continue }
                logger.notice("scenario sends a \(frame.rawValue) frame", metadata: ["connection": "\(id)"])
                writer.enqueue(frame.bytes, on: sink)
            case .clockAdvanced(let time):
                clock.jump(to: time)
            case .household(let step):
                perform(step)
            }
        }
        scheduleWakeUps()
        if !completed, readSession({ $0.isComplete }) {
            completed = true
            completion.succeed()
        }
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

    /// Frames the message once, then writes the same bytes to every recipient.
    func write(_ envelope: CastEnvelope, to recipients: some Collection<ConnectionID>) {
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
        for id in recipients where !writer.write(frame, to: id) {
            // A sender that stops reading must not hold the others back: once its queue
            // passes the limit it is disconnected.
            logger.warning("sender is not reading: \(writer.sinks[id]?.queuedBytes ?? 0) bytes queued, over the \(writer.queueLimit)-byte limit; disconnecting",
                           metadata: ["connection": "\(id)"])
            writer.evict(id, flushing: false)
            liveness.closed(id)
            closeUpstream(of: id, because: "the sender is not reading")
            serially { [self] in
                news.publish(.disconnected(id, how: .device, at: now))
                carryOut(session.connectionClosed(id, now: now))
            }
        }
    }

    /// Wakes the device at its next deadline (end of media, a step ...) on the simulation
    /// clock, and at the next heartbeat due on the real one.
    private func scheduleWakeUps() {
        guard !stopped else { return }
        // Each is looked at before its closure is made: after nearly every message neither
        // deadline has moved.
        if !liveness.isWakeUpCurrent {
            liveness.scheduleWakeUp(on: loop) { [self] in
                liveness.wokeUp()
                for (id, due) in liveness.takeDue(at: loop.now) {
                    serially { [self] in carryOut(session.heartbeatDue(due, on: id, now: now)) }
                }
                scheduleWakeUps()
            }
        }
        let deadline = readSession { $0.nextDeadline }.flatMap { clock.wallDeadline(for: $0) }
        if !wakeUp.isSet(for: deadline) {
            wakeUp.set(deadline, on: loop) { [self] in
                wakeUp.fired()
                serially { [self] in carryOut(session.advance(to: now)) }
            }
        }
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
