import CastDevice
import CastWire

/// What a scenario asks the runtime to do, beyond the device's own outputs.
public enum ScenarioOutput: Sendable, Equatable {
    case device(DeviceOutput)
    /// Close a connection: cleanly, or with a TCP reset.
    case closeConnection(ConnectionID, reset: Bool)
    /// Write bytes that are not a valid frame.
    case sendRawFrame(ConnectionID, RawFrame)
    /// A manual clock was moved forward by the scenario (`advance` step).
    case clockAdvanced(to: SimTime)
}

/// A message a sender sent, as the scenario saw it.
public struct ReceivedMessage: Sendable, Equatable {
    public var time: SimTime
    public var connection: ConnectionID
    public var envelope: CastEnvelope
    /// The JSON payload, when it is JSON.
    public var payload: JSONValue?
}

/// A simulated device playing out a scenario: timeline steps, rules on incoming
/// messages, faults, and expectations on what the sender sends.
///
/// Like ``SimulatedDevice`` it is a pure state machine: inputs carry `now`, and
/// ``nextDeadline`` says when it wants to be called again.
public struct ScenarioSession: Sendable {
    public let scenario: Scenario
    public private(set) var device: SimulatedDevice
    public private(set) var now: SimTime
    /// Every message the senders sent, in order.
    public private(set) var received: [ReceivedMessage] = []

    private var connections: [ConnectionID] = []
    private var pending: [ScenarioOutput] = []

    // Timeline
    private var stepDue: [Int: SimTime] = [:]
    private(set) var fired: Set<Int> = []
    private var eventCounts: [ScenarioEvent: Int] = [:]

    // Rules
    private var ruleUses: [Int: Int] = [:]
    private var heldInbound: [(release: SimTime, connection: ConnectionID, envelope: CastEnvelope)] = []

    // Faults
    private var heartbeatsStoppedUntil: SimTime?
    private var unresponsiveUntil: SimTime?
    private var replyDelay: (by: Double, until: SimTime)?
    private var heldOutbound: [(release: SimTime, output: DeviceOutput)] = []

    // Expectations
    private(set) var progress: [ExpectationProgress]

    // What the device looked like, to turn its changes into events.
    private var observedApp: String?
    private var observedMediaSession: Int?
    private var observedItem: Int?

    public init(scenario: Scenario, authority: (any DeviceAuthority)? = nil, now: SimTime = .zero) {
        self.scenario = scenario
        self.now = now
        device = SimulatedDevice(configuration: scenario.device, authority: authority, now: now)
        progress = scenario.expectations.map { _ in ExpectationProgress() }
        for (index, step) in scenario.timeline.enumerated() {
            if case .at(let seconds) = step.trigger { stepDue[index] = SimTime(seconds: seconds) }
        }
        observe()
    }

    // MARK: Inputs

    public mutating func connectionOpened(_ connection: ConnectionID, now: SimTime) -> [ScenarioOutput] {
        catchUp(to: now)
        connections.append(connection)
        emitDevice(device.connectionOpened(connection, now: self.now))
        happened(.connected)
        settle()
        return drain()
    }

    public mutating func connectionClosed(_ connection: ConnectionID, now: SimTime) -> [ScenarioOutput] {
        catchUp(to: now)
        guard connections.contains(connection) else { return drain() }
        connections.removeAll { $0 == connection }
        heldInbound.removeAll { $0.connection == connection }
        emitDevice(device.connectionClosed(connection, now: self.now))
        happened(.disconnected)
        settle()
        return drain()
    }

    public mutating func receive(_ envelope: CastEnvelope, on connection: ConnectionID, now: SimTime) -> [ScenarioOutput] {
        catchUp(to: now)
        let payload = envelope.utf8.flatMap { try? JSONValue.parse($0) }
        let message = ReceivedMessage(time: self.now, connection: connection, envelope: envelope, payload: payload)
        received.append(message)
        observeExpectations(message)
        deliver(envelope, on: connection, payload: payload)
        if let type = payload?["type"]?.stringValue { happened(.message(type)) }
        settle()
        return drain()
    }

    /// Lets time pass up to `target`, handling everything due on the way, in order.
    public mutating func advance(to target: SimTime) -> [ScenarioOutput] {
        catchUp(to: target)
        return drain()
    }

    /// The next time something is due: a device deadline, a step, a held message, the
    /// end of an expectation's window.
    public var nextDeadline: SimTime? {
        var times: [SimTime] = []
        if let deadline = device.nextDeadline { times.append(deadline) }
        times += stepDue.filter { !fired.contains($0.key) }.map(\.value)
        times += heldInbound.map(\.release) + heldOutbound.map(\.release)
        for (index, expectation) in scenario.expectations.enumerated() where progress[index].status == .pending {
            if let within = expectation.within { times.append(SimTime(seconds: within)) }
        }
        return times.min()
    }

    /// Every step has fired and every expectation is decided (a `never` without a window
    /// counts as decided: it holds until something breaks it).
    public var isComplete: Bool {
        fired.count == scenario.timeline.count && scenario.expectations.indices.allSatisfy { index in
            if progress[index].status != .pending { return true }
            if case .never = scenario.expectations[index].kind, scenario.expectations[index].within == nil { return true }
            return false
        }
    }

    /// Applies an operator input (the control surface, tests) at `now`.
    public mutating func apply(_ input: OperatorInput, now: SimTime) -> [ScenarioOutput] {
        catchUp(to: now)
        emitDevice(device.apply(input, now: self.now))
        settle()
        return drain()
    }

    // MARK: Time

    /// Handles everything due up to `target`. An `advance` step fired on the way only
    /// records how far to go next; ``drain()`` carries that out.
    private mutating func catchUp(to target: SimTime) {
        var steps = 0
        var previous: SimTime?
        while let deadline = nextDeadline, deadline <= target, steps < 1_000_000 {
            // A deadline that handling did not move would spin here forever: a bug, logged.
            if deadline == previous, deadline <= now {
                log("deadline \(deadline) did not pass; skipping to \(target)", nil)
                break
            }
            previous = deadline
            now = max(now, deadline)
            tick()
            steps += 1
        }
        now = max(now, target)
        tick()
    }

    /// Set by an `advance` step: how far the manual clock jumps.
    private var extendedTarget: SimTime?

    private mutating func tick() {
        // Messages a rule held back reach the device now.
        let dueInbound = heldInbound.filter { $0.release <= now }
        heldInbound.removeAll { $0.release <= now }
        for held in dueInbound where connections.contains(held.connection) {
            emitDevice(device.receive(held.envelope, on: held.connection, now: now))
        }
        let dueOutbound = heldOutbound.filter { $0.release <= now }
        heldOutbound.removeAll { $0.release <= now }
        pending += dueOutbound.map { .device($0.output) }
        emitDevice(device.advance(to: now))
        decideExpiredExpectations()
        settle()
    }

    // MARK: Delivery and rules

    private mutating func deliver(_ envelope: CastEnvelope, on connection: ConnectionID, payload: JSONValue?) {
        if let until = unresponsiveUntil, now < until {
            log("unresponsive: ignored \(payload?["type"]?.stringValue ?? envelope.namespace) from \(envelope.sourceId)", connection)
            return
        }
        if let until = heartbeatsStoppedUntil, now < until, envelope.namespace == CastNamespace.heartbeat {
            log("heartbeats stopped: ignored \(payload?["type"]?.stringValue ?? "heartbeat")", connection)
            return
        }
        for (index, rule) in scenario.rules.enumerated() where rule.pattern.matches(envelope, payload: payload) {
            if let times = rule.times, ruleUses[index, default: 0] >= times { continue }
            ruleUses[index, default: 0] += 1
            log("rule \"\(rule.name)\" matched \(payload?["type"]?.stringValue ?? envelope.namespace)", connection)
            switch rule.action {
            case .drop:
                return
            case .delay(let seconds):
                heldInbound.append((now + seconds, connection, envelope))
                return
            case .reply(let reply):
                emitDevice([ruleReply(reply, to: envelope, on: connection, payload: payload)])
                return
            case .replyAlso(let reply):
                emitDevice(device.receive(envelope, payload: payload, on: connection, now: now))
                emitDevice([ruleReply(reply, to: envelope, on: connection, payload: payload)])
                return
            }
        }
        emitDevice(device.receive(envelope, payload: payload, on: connection, now: now))
    }

    /// A rule's reply: unicast back to the sender, carrying the request's id unless the
    /// reply sets its own.
    private func ruleReply(_ reply: JSONValue, to request: CastEnvelope, on connection: ConnectionID, payload: JSONValue?)
        -> DeviceOutput
    {
        var body = reply
        if reply["requestId"] == nil, let requestId = payload?["requestId"] {
            body = reply.replacing("requestId", with: requestId)
        }
        return .send(request.reply(.string(body.jsonText())), to: [connection])
    }

    /// Passes device outputs on, through the faults in force.
    private mutating func emitDevice(_ outputs: [DeviceOutput]) {
        for output in outputs {
            if case .send(let envelope, _) = output {
                if let until = unresponsiveUntil, now < until { continue }
                if let until = heartbeatsStoppedUntil, now < until, envelope.namespace == CastNamespace.heartbeat { continue }
                if let delay = replyDelay, now < delay.until {
                    heldOutbound.append((now + delay.by, output))
                    continue
                }
            }
            pending.append(.device(output))
        }
    }

    // MARK: Timeline

    private mutating func happened(_ event: ScenarioEvent) {
        eventCounts[event, default: 0] += 1
        let count = eventCounts[event]!
        for (index, step) in scenario.timeline.enumerated() where stepDue[index] == nil {
            if case .after(let wanted, let delay, let occurrence) = step.trigger, wanted == event, occurrence == count {
                stepDue[index] = now + delay
            }
        }
    }

    /// Fires due steps and turns device changes into events, until nothing more is due now.
    private mutating func settle() {
        for _ in 0..<1000 {
            observe()
            guard let (index, _) = stepDue.filter({ !fired.contains($0.key) && $0.value <= now })
                .min(by: { ($0.value, $0.key) < ($1.value, $1.key) }) else { return }
            fired.insert(index)
            perform(scenario.timeline[index])
        }
    }

    private mutating func perform(_ step: TimelineStep) {
        log("\(step.path): \(step.action)", nil)
        switch step.action {
        case .device(let input):
            emitDevice(device.apply(input, now: now))
        case .emit(let namespace, let source, let selector, let payload):
            if selector == .all {
                emitDevice(device.apply(.sendMessage(namespace: namespace, source: source, connection: nil, payload: payload), now: now))
            } else {
                for connection in select(selector) {
                    emitDevice(device.apply(.sendMessage(namespace: namespace, source: source, connection: connection, payload: payload), now: now))
                }
            }
        case .closeConnection(let selector, let reset):
            for connection in select(selector) { pending.append(.closeConnection(connection, reset: reset)) }
        case .sendFrame(let selector, let frame):
            for connection in select(selector) { pending.append(.sendRawFrame(connection, frame)) }
        case .stopHeartbeats(let seconds):
            heartbeatsStoppedUntil = now + seconds
        case .unresponsive(let seconds):
            unresponsiveUntil = now + seconds
        case .delayReplies(let by, let seconds):
            replyDelay = (by, now + seconds)
        case .advance(let seconds):
            let target = now + seconds
            extendedTarget = max(extendedTarget ?? target, target)
            pending.append(.clockAdvanced(to: target))
        }
    }

    private func select(_ selector: TimelineStep.ConnectionSelector) -> [ConnectionID] {
        switch selector {
        case .all: connections
        case .first: Array(connections.prefix(1))
        case .last: Array(connections.suffix(1))
        }
    }

    /// Compares the device with what it was, raising app, session and item events.
    private mutating func observe() {
        let app = device.runningApp.flatMap { $0.definition.behaviour == .idleScreen ? nil : $0.sessionId }
        if app != observedApp {
            if observedApp != nil { happened(.appStopped) }
            if app != nil { happened(.appLaunched) }
            observedApp = app
        }
        let session = device.runningApp?.media?.session
        let sessionId = session?.pendingLoad?.isInitial == true ? nil : session?.mediaSessionId
        if sessionId != observedMediaSession {
            if observedMediaSession != nil { happened(.sessionEnded) }
            if sessionId != nil { happened(.sessionStarted) }
            observedMediaSession = sessionId
            observedItem = session?.currentItemId
        } else if let item = session?.currentItemId, item != observedItem, session?.pendingLoad == nil {
            observedItem = item
            happened(.itemChanged)
        }
    }

    // MARK: Expectations

    private mutating func observeExpectations(_ message: ReceivedMessage) {
        for (index, expectation) in scenario.expectations.enumerated() where progress[index].status == .pending {
            if let within = expectation.within, message.time.seconds > within, !expectation.isNever { continue }
            switch expectation.kind {
            case .message(let pattern):
                if pattern.matches(message.envelope, payload: message.payload) {
                    progress[index].decide(.passed, at: now, evidence: [message], reason: nil)
                }
            case .sequence(let patterns):
                let next = progress[index].matched.count
                if patterns[next].matches(message.envelope, payload: message.payload) {
                    progress[index].matched.append(message)
                    if progress[index].matched.count == patterns.count {
                        progress[index].decide(.passed, at: now, evidence: progress[index].matched, reason: nil)
                    }
                }
            case .never(let pattern):
                if pattern.matches(message.envelope, payload: message.payload) {
                    progress[index].decide(.failed, at: now, evidence: [message], reason: "a matching message arrived")
                }
            }
        }
    }

    private mutating func decideExpiredExpectations() {
        for (index, expectation) in scenario.expectations.enumerated() where progress[index].status == .pending {
            guard let within = expectation.within, now.seconds >= within else { continue }
            if expectation.isNever {
                progress[index].decide(.passed, at: now, evidence: [], reason: nil)
            } else {
                progress[index].decide(.failed, at: now, evidence: progress[index].matched,
                                       reason: "no matching message within \(ScenarioDuration.format(within))")
            }
        }
    }

    // MARK: Output

    private mutating func drain() -> [ScenarioOutput] {
        // An `advance` step fired by this input moves the clock before we answer.
        while let target = extendedTarget {
            extendedTarget = nil
            catchUp(to: target)
        }
        defer { pending.removeAll(keepingCapacity: true) }
        return pending
    }

    private mutating func log(_ message: String, _ connection: ConnectionID?) {
        pending.append(.device(.log(DeviceLogEvent(.info, connection, "scenario: \(message)"))))
    }
}

/// How far an expectation has got.
struct ExpectationProgress: Sendable, Equatable {
    enum Status: String, Sendable { case pending, passed, failed }
    var status = Status.pending
    var decidedAt: SimTime?
    var matched: [ReceivedMessage] = []
    var evidence: [ReceivedMessage] = []
    var reason: String?

    mutating func decide(_ status: Status, at time: SimTime, evidence: [ReceivedMessage], reason: String?) {
        self.status = status
        decidedAt = time
        self.evidence = evidence
        self.reason = reason
    }
}

extension Expectation {
    var isNever: Bool { if case .never = kind { true } else { false } }
}
