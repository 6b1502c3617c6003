import CastDevice
import Foundation
import CastWire

/// What a device playing a scenario says, in order: the news every subscriber hears (the
/// journal, the event streams, the recorder, the household) and what the runtime carries
/// out (writes, closes, the clock).
package enum ScenarioOutput: Sendable, Equatable {
    /// A message in either direction, numbered: the runtime writes an outbound one to its
    /// connections, and the journal keeps both.
    case message(JournalEntry)
    /// The inbound message numbered `sequence`, told before, turned out to be unhandled
    /// when it reached the device (a rule had held it back).
    case unhandled(sequence: Int, reason: String)
    /// The device closes a connection (the idle timeout ...).
    case close(ConnectionID, reason: String)
    /// The scenario closes a connection: cleanly, or with a TCP reset.
    case closeConnection(ConnectionID, reset: Bool)
    /// Write bytes that are not a valid frame.
    case sendRawFrame(ConnectionID, RawFrame)
    /// Something worth a log line.
    case log(DeviceLogEvent)
    /// Something happened, at its own simulated time (a fault the scenario applied included).
    case event(DeviceEvent)
    /// A manual clock was moved forward by the scenario (`advance` step).
    case clockAdvanced(to: SimTime)
    /// A step for the household the device is in: the runtime that holds the household does it.
    case household(HouseholdStep)
}

/// A simulated device playing out a scenario: timeline steps, rules on incoming
/// messages, faults, and expectations on what the sender sends.
///
/// Like ``SimulatedDevice`` it is a pure state machine: inputs carry `now`, and
/// ``nextDeadline`` says when it wants to be called again. Timeline steps fire on the
/// device's typed events as they are raised, each at its own simulated time.
package struct ScenarioSession: Sendable, DeadlineDriven {
    package let scenario: Scenario
    package private(set) var device: SimulatedDevice
    package var now: SimTime
    /// The number of the last message told (``ScenarioOutput/message(_:)``), in either direction.
    package private(set) var lastSequence: Int
    /// How many messages the senders sent (what the report counts).
    private(set) var receivedCount = 0

    private var connections = OpenConnections()
    private var pending: [ScenarioOutput] = []

    // Timeline
    private var stepDue: [Int: SimTime] = [:]
    private(set) var fired: Set<Int> = []
    private var eventCounts: [ScenarioEvent: Int] = [:]
    /// Message types some `after` trigger waits for: only these are counted, so a sender
    /// inventing types cannot grow the table.
    private let watchedMessageTypes: Set<String>
    /// Set by an `advance` step: how far the manual clock jumps.
    private var extendedTarget: SimTime?

    // Rules
    private var ruleUses: [Int: Int] = [:]
    /// How many messages each rule with an `occurrence` has matched.
    private var ruleMatches: [Int: Int] = [:]
    private var heldInbound: [(release: SimTime, connection: ConnectionID, envelope: CastEnvelope, sequence: Int)] = []
    /// The inbound message the device is handling, so that the device saying no handler
    /// took it marks that message: in `pending` while it is still there, else by number.
    private var handling: (sequence: Int, pendingIndex: Int?)?

    // Faults
    private var heartbeatsStoppedUntil: SimTime?
    private var unresponsiveUntil: SimTime?
    /// Replies held back to every connection (a `delayReplies` without `which`).
    private var replyDelay: (by: Double, until: SimTime)?
    /// Replies held back to chosen connections, each on its own terms.
    private var connectionReplyDelays: [ConnectionID: (by: Double, until: SimTime)] = [:]
    private var heldOutbound: [(release: SimTime, output: DeviceOutput)] = []

    // Expectations
    private(set) var progress: [ExpectationProgress]

    /// `numberingAfter`: the last number a session before this one gave (a reset), so
    /// that message numbers are never reused while the process runs.
    package init(scenario: Scenario, authority: (any DeviceAuthority)? = nil, apps: AppRegistry = .builtIn,
                 numberingAfter sequence: Int = 0, now: SimTime = .zero) {
        self.scenario = scenario
        self.now = now
        lastSequence = max(0, sequence)
        device = SimulatedDevice(configuration: scenario.device, authority: authority, apps: apps, now: now)
        progress = scenario.expectations.map { _ in ExpectationProgress() }
        var watched = Set<String>()
        for (index, step) in scenario.timeline.enumerated() {
            switch step.trigger {
            case .at(let seconds): stepDue[index] = SimTime(seconds: seconds)
            case .after(.message(let type), _, _): watched.insert(type)
            case .after: break
            }
        }
        watchedMessageTypes = watched
        // What the device did as it started (its idle screen launching) comes out first.
        emitDevice(device.advance(to: now))
    }

    // MARK: Inputs

    package mutating func connectionOpened(_ connection: ConnectionID, now: SimTime, tlsCertificateDER: Data? = nil)
        -> [ScenarioOutput]
    {
        catchUp(to: now)
        connections.opened(connection)
        emitDevice(device.connectionOpened(connection, now: self.now, tlsCertificateDER: tlsCertificateDER))
        settle()
        return drain()
    }

    package mutating func connectionClosed(_ connection: ConnectionID, now: SimTime) -> [ScenarioOutput] {
        catchUp(to: now)
        emitDevice(device.connectionClosed(connection, now: self.now))
        settle()
        return drain()
    }

    package mutating func receive(_ envelope: CastEnvelope, on connection: ConnectionID, now: SimTime) -> [ScenarioOutput] {
        catchUp(to: now)
        let payload = envelope.utf8.flatMap { try? JSONValue.parse($0) }
        let message = ReceivedMessage(time: self.now, connection: connection, envelope: envelope)
        receivedCount += 1
        let sequence = tell(.inbound, envelope, connections: ConnectionList(connection), json: payload != nil)
        observeExpectations(message, payload: payload)
        handling = (sequence, pending.count - 1)
        deliver(envelope, on: connection, payload: payload, sequence: sequence)
        handling = nil
        // Looked up only when a step waits for a message type (a hash of the type each time).
        if !watchedMessageTypes.isEmpty, let type = payload?["type"]?.stringValue, watchedMessageTypes.contains(type) {
            happened(.message(type), at: self.now)
        }
        settle()
        return drain()
    }

    /// A message a relay passes on, without the device seeing it: `.inbound` from a sender
    /// on its way upstream, `.outbound` from the upstream to `connections` (which the
    /// runtime writes, as any outbound message). It is told and numbered as any message;
    /// rules, faults and expectations do not look at it.
    package mutating func relayed(_ direction: JournalEntry.Direction, _ envelope: CastEnvelope, connections: [ConnectionID],
                                  now: SimTime) -> [ScenarioOutput] {
        self.now = max(self.now, now)
        if direction == .inbound { receivedCount += 1 }
        tell(direction, envelope, connections: ConnectionList(connections))
        return drain()
    }

    /// A connection's heartbeat is due on its own (real) clock: the device PINGs it, or
    /// closes it as idle. Faults in force apply as to any message.
    package mutating func heartbeatDue(_ due: HeartbeatSchedule.Due, on connection: ConnectionID, now: SimTime) -> [ScenarioOutput] {
        catchUp(to: now)
        emitDevice(device.heartbeatDue(due, on: connection, now: self.now))
        settle()
        return drain()
    }

    /// Lets time pass up to `target`, handling everything due on the way, in order.
    package mutating func advance(to target: SimTime) -> [ScenarioOutput] {
        catchUp(to: target)
        return drain()
    }

    /// Applies an operator input (the control surface, tests) at `now`.
    package mutating func apply(_ input: OperatorInput, now: SimTime) -> [ScenarioOutput] {
        catchUp(to: now)
        emitDevice(device.apply(input, now: self.now))
        settle()
        return drain()
    }

    /// Applies news of the device's speaker groups (from the household's coordinator) at `now`.
    package mutating func apply(_ input: MultizoneInput, now: SimTime) -> [ScenarioOutput] {
        catchUp(to: now)
        emitDevice(device.apply(input, now: self.now))
        settle()
        return drain()
    }

    /// Carries out a timeline action now, as if a step had fired (the control API's `act`).
    package mutating func act(_ action: TimelineStep.Action, now: SimTime) -> [ScenarioOutput] {
        catchUp(to: now)
        perform(TimelineStep(trigger: .at(self.now.seconds), action: action, path: "control"))
        settle()
        return drain()
    }

    /// The next time something is due: a device deadline, a step, a held message, the
    /// end of an expectation's window.
    package var nextDeadline: SimTime? {
        var next = device.nextDeadline
        func consider(_ time: SimTime) { next = next.map { min($0, time) } ?? time }
        for (index, due) in stepDue where !fired.contains(index) { consider(due) }
        for held in heldInbound { consider(held.release) }
        for held in heldOutbound { consider(held.release) }
        for (index, expectation) in scenario.expectations.enumerated() where progress[index].status == .pending {
            if let within = expectation.within { consider(SimTime(seconds: within)) }
        }
        return next
    }

    /// Every step has fired and every expectation is decided (a `never` without a window
    /// counts as decided: it holds until something breaks it).
    package var isComplete: Bool {
        fired.count == scenario.timeline.count && scenario.expectations.indices.allSatisfy { index in
            if progress[index].status != .pending { return true }
            if case .never = scenario.expectations[index].kind, scenario.expectations[index].within == nil { return true }
            return false
        }
    }

    // MARK: Time

    /// Handles everything due up to `target`. An `advance` step fired on the way only
    /// records how far to go next; ``drain()`` carries that out.
    private mutating func catchUp(to target: SimTime) {
        runDeadlines(until: target)
    }

    package mutating func handleDue() {
        // Messages a rule held back reach the device now.
        let dueInbound = heldInbound.filter { $0.release <= now }
        heldInbound.removeAll { $0.release <= now }
        for held in dueInbound where connections.contains(held.connection) {
            handling = (held.sequence, nil)
            emitDevice(device.receive(held.envelope, on: held.connection, now: now))
            handling = nil
        }
        let dueOutbound = heldOutbound.filter { $0.release <= now }
        heldOutbound.removeAll { $0.release <= now }
        for held in dueOutbound { pass(held.output) }
        emitDevice(device.advance(to: now))
        decideExpiredExpectations()
        settle()
    }

    package mutating func warn(_ message: LogMessage) {
        pending.append(.log(DeviceLogEvent(.warning, nil, "scenario: \(message)")))
    }

    // MARK: Delivery and rules

    private mutating func deliver(_ envelope: CastEnvelope, on connection: ConnectionID, payload: JSONValue?, sequence: Int) {
        // Rules waiting for their Nth match count every message that arrives, answered or not.
        for (index, rule) in scenario.rules.enumerated() where rule.occurrence != nil && rule.pattern.matches(envelope, payload: payload) {
            ruleMatches[index, default: 0] += 1
        }
        if let until = unresponsiveUntil, now < until {
            log("unresponsive: ignored \(payload?["type"]?.stringValue ?? envelope.namespace) from \(envelope.sourceId)", connection)
            return
        }
        if let until = heartbeatsStoppedUntil, now < until, envelope.namespace == CastNamespace.heartbeat {
            log("heartbeats stopped: ignored \(payload?["type"]?.stringValue ?? "heartbeat")", connection)
            return
        }
        var chosen: Rule?
        for (index, rule) in scenario.rules.enumerated() where chosen == nil {
            if let occurrence = rule.occurrence, ruleMatches[index] != occurrence { continue }
            guard rule.pattern.matches(envelope, payload: payload) else { continue }
            if let times = rule.times, ruleUses[index, default: 0] >= times { continue }
            ruleUses[index, default: 0] += 1
            chosen = rule
        }
        if let rule = chosen {
            log("rule \"\(rule.name)\" matched \(payload?["type"]?.stringValue ?? envelope.namespace)", connection)
            switch rule.action {
            case .drop:
                return
            case .delay(let seconds):
                heldInbound.append((now + seconds, connection, envelope, sequence))
                return
            case .reply(let reply):
                emitDevice([ruleReply(reply, to: envelope, on: connection, payload: payload)])
                return
            case .replyAlso(let reply):
                emitDevice(device.receive(envelope, payload: payload, on: connection, now: now))
                emitDevice([ruleReply(reply, to: envelope, on: connection, payload: payload)])
                return
            case .respond(let responses):
                for response in responses {
                    var body = response.payload
                    if body["requestId"] == Rule.Response.requestIdPlaceholder {
                        body = payload?["requestId"].map { body.replacing("requestId", with: $0) } ?? body.removing("requestId")
                    }
                    let message = CastEnvelope(sourceId: response.source ?? envelope.destinationId,
                                               destinationId: response.destination ?? envelope.sourceId,
                                               namespace: response.namespace ?? envelope.namespace, payload: .string(body.jsonText()))
                    let output = DeviceOutput.send(message, to: response.toAll ? connections.all : [connection])
                    if response.after > 0 {
                        heldOutbound.append((now + response.after, output))
                    } else {
                        emitDevice([output])
                    }
                }
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

    /// Passes device outputs on, through the faults in force, and fires the steps that
    /// wait for the device's events.
    private mutating func emitDevice(_ outputs: [DeviceOutput]) {
        for output in outputs {
            switch output {
            case .send where !faultMayHoldMessages:
                // Nearly always: the message passes as it is, without a copy of its parts
                // to look at. Asked for each output, as the checks below are: an output
                // before it may change the faults (a closed connection's reply delay goes).
                break
            case .send(let envelope, let recipients):
                if let until = unresponsiveUntil, now < until { continue }
                if let until = heartbeatsStoppedUntil, now < until, envelope.namespace == CastNamespace.heartbeat { continue }
                if let delay = replyDelay, now < delay.until {
                    heldOutbound.append((now + delay.by, output))
                    continue
                }
                if !connectionReplyDelays.isEmpty {
                    // The stalled connections get it later, each on its own terms; the
                    // others now.
                    var others: [ConnectionID] = []
                    for recipient in recipients {
                        if let delay = connectionReplyDelays[recipient], now < delay.until {
                            heldOutbound.append((now + delay.by, .send(envelope, to: [recipient])))
                        } else {
                            others.append(recipient)
                        }
                    }
                    if others.count < recipients.count {
                        if !others.isEmpty { pass(.send(envelope, to: others)) }
                        continue
                    }
                }
            case .event(let event):
                if case .messageUnhandled(_, _, let reason) = event.kind, let handling {
                    markUnhandled(handling, reason)
                }
                if case .connectionClosed(let connection, _) = event.kind {
                    // Messages a rule holds for it are dropped when they come due.
                    connections.closed(connection)
                    connectionReplyDelays[connection] = nil
                }
                if let happening = ScenarioEvent(event.kind) { happened(happening, at: event.time) }
                if case .streaming(.measured(let plan, let figures)) = event.kind { observeStreaming(plan, figures) }
            case .close, .log:
                break
            }
            pass(output)
        }
    }

    /// Whether a fault was applied that may hold back or drop the device's messages (it
    /// may have ended: the checks below compare its end with now).
    private var faultMayHoldMessages: Bool {
        unresponsiveUntil != nil || heartbeatsStoppedUntil != nil || replyDelay != nil || !connectionReplyDelays.isEmpty
    }

    /// Hands a device output on: a message is numbered and told.
    private mutating func pass(_ output: DeviceOutput) {
        switch output {
        case .send(let envelope, let recipients): tell(.outbound, envelope, connections: ConnectionList(recipients), ownJSON: true)
        case .close(let connection, let reason): pending.append(.close(connection, reason: reason))
        case .log(let line): pending.append(.log(line))
        case .event(let event): pending.append(.event(event))
        }
    }

    /// Numbers a message and tells it; returns its number.
    @discardableResult
    /// `ownJSON`: the device's own output, whose payload its outbox encoded; `json`: a
    /// payload the session parsed as JSON.
    private mutating func tell(_ direction: JournalEntry.Direction, _ envelope: CastEnvelope, connections: ConnectionList,
                               ownJSON: Bool = false, json: Bool = false) -> Int {
        lastSequence += 1
        pending.append(.message(JournalEntry(sequence: lastSequence, time: now, direction: direction, connections: connections,
                                             envelope: envelope, unhandled: nil, payloadIsOwnJSON: ownJSON, payloadIsJSON: json)))
        return lastSequence
    }

    /// Notes on an inbound message that no handler took it: on the message itself while it
    /// has not gone out yet, else as news of its own.
    private mutating func markUnhandled(_ handling: (sequence: Int, pendingIndex: Int?), _ reason: String) {
        if let index = handling.pendingIndex, pending.indices.contains(index), case .message(var entry) = pending[index],
           entry.sequence == handling.sequence {
            entry.unhandled = reason
            pending[index] = .message(entry)
        } else {
            pending.append(.unhandled(sequence: handling.sequence, reason: reason))
        }
    }

    // MARK: Timeline

    private mutating func happened(_ event: ScenarioEvent, at time: SimTime) {
        eventCounts[event, default: 0] += 1
        let count = eventCounts[event]!
        for (index, step) in scenario.timeline.enumerated() where stepDue[index] == nil {
            if case .after(let wanted, let delay, let occurrence) = step.trigger, wanted == event, occurrence == count {
                stepDue[index] = time + delay
            }
        }
    }

    /// Fires due steps, until nothing more is due now.
    private mutating func settle() {
        for _ in 0..<1000 {
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
        case .emit(let namespace, let source, let selector, let destination, let payload):
            if selector == .all {
                emitDevice(device.apply(.sendMessage(namespace: namespace, source: source, connection: nil, destination: destination,
                                                     payload: payload), now: now))
            } else {
                for connection in select(selector) {
                    emitDevice(device.apply(.sendMessage(namespace: namespace, source: source, connection: connection,
                                                         destination: destination, payload: payload), now: now))
                }
            }
        case .closeConnection(let selector, let reset):
            for connection in select(selector) {
                pending.append(.closeConnection(connection, reset: reset))
                fault(.closeConnection(connection, reset: reset))
                // The device is done with it now, not when the runtime reports the socket
                // gone: nothing more is sent to it, whatever the clock does next.
                emitDevice(device.connectionClosed(connection, now: now))
            }
        case .sendFrame(let selector, let frame):
            for connection in select(selector) {
                pending.append(.sendRawFrame(connection, frame))
                fault(.sendFrame(connection, frame))
            }
        case .stopHeartbeats(let seconds):
            heartbeatsStoppedUntil = now + seconds
            fault(.stopHeartbeats(until: now + seconds))
        case .unresponsive(let seconds):
            unresponsiveUntil = now + seconds
            fault(.unresponsive(until: now + seconds))
        case .delayReplies(let by, let seconds, let selector):
            if let selector {
                for connection in select(selector) {
                    connectionReplyDelays[connection] = (by, now + seconds)
                    fault(.delayReplies(by: by, until: now + seconds, connection: connection))
                }
            } else {
                replyDelay = (by, now + seconds)
                fault(.delayReplies(by: by, until: now + seconds, connection: nil))
            }
        case .advance(let seconds):
            let target = now + seconds
            extendedTarget = max(extendedTarget ?? target, target)
            pending.append(.clockAdvanced(to: target))
        case .household(let step):
            pending.append(.household(step))
        }
    }

    private mutating func fault(_ fault: Fault) {
        pending.append(.event(DeviceEvent(time: now, kind: .faultApplied(fault))))
    }

    private func select(_ selector: TimelineStep.ConnectionSelector) -> [ConnectionID] {
        switch selector {
        case .all: connections.all
        case .first: connections.first.map { [$0] } ?? []
        case .last: connections.last.map { [$0] } ?? []
        case .connection(let id): connections.contains(id) ? [id] : []
        }
    }

    /// True when `selector` names at least one open connection.
    package func selects(_ selector: TimelineStep.ConnectionSelector) -> Bool { !select(selector).isEmpty }

    // MARK: Expectations

    private mutating func observeExpectations(_ message: ReceivedMessage, payload: JSONValue?) {
        for (index, expectation) in scenario.expectations.enumerated() where progress[index].status == .pending {
            if let within = expectation.within, message.time.seconds > within, !expectation.isNever { continue }
            switch expectation.kind {
            case .message(let pattern):
                if pattern.matches(message.envelope, payload: payload) {
                    progress[index].decide(.passed, at: now, evidence: [message], reason: nil)
                } else {
                    progress[index].consider(message, payload: payload, for: pattern)
                }
            case .sequence(let patterns):
                let next = progress[index].matched.count
                if patterns[next].matches(message.envelope, payload: payload) {
                    progress[index].matched.append(message)
                    progress[index].closest = nil
                    progress[index].closestScore = -1
                    if progress[index].matched.count == patterns.count {
                        progress[index].decide(.passed, at: now, evidence: progress[index].matched, reason: nil)
                    }
                } else {
                    progress[index].consider(message, payload: payload, for: patterns[next])
                }
            case .never(let pattern):
                if pattern.matches(message.envelope, payload: payload) {
                    progress[index].decide(.failed, at: now, evidence: [message], reason: "a matching message arrived")
                }
            case .streaming:
                break
            }
        }
    }

    /// The media plane's figures against the `streaming` expectations: one stream that
    /// meets a condition passes it; otherwise the nearest stream is kept for the report.
    private mutating func observeStreaming(_ plan: StreamingPlan, _ figures: StreamingFigures) {
        var streams: [JSONValue]?
        for (index, expectation) in scenario.expectations.enumerated() where progress[index].status == .pending {
            guard case .streaming(let condition) = expectation.kind else { continue }
            if let within = expectation.within, now.seconds > within { continue }
            if streams == nil { streams = figures.streamsJSON(plan.streams) }
            for stream in streams ?? [] {
                let measured = MeasuredStream(time: now, connection: plan.connection, stream: stream)
                if condition.matches(stream) {
                    progress[index].decide(.passed, at: now, evidence: [], reason: nil)
                    progress[index].measured = measured
                    break
                }
                let score = condition.score(stream)
                if score > progress[index].closestScore {
                    progress[index].measured = measured
                    progress[index].closestScore = score
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
                let what = if case .streaming = expectation.kind { "no stream's figures met it" } else { "no matching message" }
                progress[index].decide(.failed, at: now, evidence: progress[index].matched,
                                       reason: "\(what) within \(DurationText.format(within))")
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

    private mutating func log(_ message: LogMessage, _ connection: ConnectionID?) {
        pending.append(.log(DeviceLogEvent(.info, connection, "scenario: \(message)")))
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
    /// The message that came nearest to the pattern waited for, and how near: what a
    /// failure report shows. Kept as messages arrive, so no search of old messages is needed.
    var closest: ReceivedMessage?
    var closestScore = -1
    /// A `streaming` expectation's stream: the one that met it, or the nearest miss.
    var measured: MeasuredStream?

    mutating func decide(_ status: Status, at time: SimTime, evidence: [ReceivedMessage], reason: String?) {
        self.status = status
        decidedAt = time
        self.evidence = evidence
        self.reason = reason
    }

    /// Keeps `message` as the nearest miss if it meets more of `pattern` than the last one.
    mutating func consider(_ message: ReceivedMessage, payload: JSONValue?, for pattern: MessagePattern) {
        let score = pattern.score(message.envelope, payload: payload)
        if score > closestScore {
            closest = message
            closestScore = score
        }
    }
}

/// One stream's figures as the media plane measured them, for a streaming expectation's report.
struct MeasuredStream: Sendable, Equatable {
    var time: SimTime
    /// The connection the OFFER came on.
    var connection: ConnectionID
    /// ``StreamingFigures/streamsJSON(_:)``'s object for the stream.
    var stream: JSONValue
}

extension Expectation {
    var isNever: Bool { if case .never = kind { true } else { false } }
}
