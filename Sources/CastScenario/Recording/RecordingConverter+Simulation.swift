import CastDevice
import CastWire

// Playing the recorded senders into a simulated device, and comparing what it sent with
// what the recorded device sent, request by request.

extension RecordingConverter {
    // MARK: Simulation

    /// One message the device sent, to one connection.
    struct Sent: Equatable {
        var connection: ConnectionID
        var namespace: String
        var source: String
        var destination: String
        /// The payload as JSON text with sorted keys, so two writings of one object compare equal.
        var payload: String
        /// Seconds after the request it follows (or since the start, before any request).
        var offset: Double
        var time: Double

        func same(as other: Sent) -> Bool {
            connection == other.connection && namespace == other.namespace && source == other.source
                && destination == other.destination && payload == other.payload
                && abs(offset - other.offset) <= RecordingConverter.timingTolerance
        }
    }

    struct Simulation {
        /// What the simulated device sent, by segment: before the first request, then after each.
        var segments: [[Sent]]
        var closed: Set<ConnectionID>
    }

    /// The scenario as it stands, without expectations.
    func scenarioSoFar() throws(RecordingConversionError) -> Scenario {
        var document = base
        document["timeline"] = .array(timeline())
        document["rules"] = .array((base["rules"]?.arrayValue ?? []) + rules.sorted { $0.inbound < $1.inbound }.map(\.json))
        do {
            return try Scenario.parse(.object(document))
        } catch {
            throw RecordingConversionError(message: "the recording's scenario does not validate: \(error)")
        }
    }

    /// Plays the recorded senders into a simulated device.
    func simulate() throws(RecordingConversionError) -> Simulation {
        let scenario = try scenarioSoFar()
        var session = ScenarioSession(scenario: scenario)
        // What the simulated device said, as a journal keeps it.
        var journal = MessageJournal(limit: events.count * 4 + 1000)
        var open = Set<ConnectionID>()
        var seen = Set<ConnectionID>()
        var closed = Set<ConnectionID>()
        func take(_ outputs: [ScenarioOutput], _ session: inout ScenarioSession) {
            for output in outputs {
                journal.hear(output)
                switch output {
                case .close(let connection, _), .closeConnection(let connection, _):
                    guard open.remove(connection) != nil else { continue }
                    closed.insert(connection)
                    take(session.connectionClosed(connection, now: session.now), &session)
                default:
                    continue
                }
            }
        }
        for event in events {
            take(session.advance(to: max(session.now, event.time)), &session)
            let now = max(session.now, event.time)
            switch event.kind {
            case .connected(let connection, _):
                seen.insert(connection)
                open.insert(connection)
                take(session.connectionOpened(connection, now: now), &session)
            case .disconnected(let connection, _):
                guard open.remove(connection) != nil else { continue }
                take(session.connectionClosed(connection, now: now), &session)
            case .message(let message) where message.direction == .inbound:
                guard let connection = message.connections.first, !closed.contains(connection) else { continue }
                if !open.contains(connection), !seen.contains(connection) {
                    // Open before the recording started: it opens now.
                    open.insert(connection)
                    take(session.connectionOpened(connection, now: now), &session)
                }
                seen.insert(connection)
                guard open.contains(connection) else { continue }
                take(session.receive(message.envelope, on: connection, now: now), &session)
            default:
                continue
            }
        }
        if let last = events.last { take(session.advance(to: max(session.now, last.time)), &session) }
        return Simulation(segments: Self.segments(of: journal.entries.map {
            (time: $0.time.seconds, direction: $0.direction, connections: Array($0.connections), envelope: $0.envelope)
        }), closed: closed)
    }

    /// What the recorded device sent, by segment.
    func recordedSegments() -> [[Sent]] {
        Self.segments(of: events.compactMap { event in
            guard case .message(let message) = event.kind else { return nil }
            return (event.time.seconds, message.direction, Array(message.connections), message.envelope)
        })
    }

    /// Splits what the device sent by the request it answers: a reply carrying a request's
    /// `requestId` belongs to that request even when the sender's next request came first
    /// (a sender pipelines, a real device answers over a network); anything else belongs to
    /// the last request before it, or before the first request. Device-auth is left out:
    /// castsim answers challenges with its own credentials.
    static func segments(of messages: [(time: Double, direction: JournalEntry.Direction, connections: [ConnectionID], envelope: CastEnvelope)])
        -> [[Sent]]
    {
        var segments: [[Sent]] = [[]]
        var requestTimes = [0.0]
        var requests: [ConnectionID: [Int: Int]] = [:]
        for message in messages {
            let payload = message.envelope.utf8.flatMap { try? JSONValue.parse($0) }
            let requestId = payload?["requestId"]?.intValue ?? 0
            if message.direction == .inbound {
                segments.append([])
                requestTimes.append(message.time)
                if requestId != 0, let connection = message.connections.first { requests[connection, default: [:]][requestId] = segments.count - 1 }
                continue
            }
            guard message.envelope.namespace != CastNamespace.deviceAuth else { continue }
            let answered = requestId == 0 ? nil : message.connections.lazy.compactMap { requests[$0]?[requestId] }.first
            let segment = answered ?? segments.count - 1
            let text: String
            switch message.envelope.payload {
            case .string(let string): text = payload?.jsonText() ?? string
            case .binary(let data): text = "binary:" + data.base64EncodedString()
            }
            for connection in message.connections.sorted() {
                segments[segment].append(Sent(
                    connection: connection, namespace: message.envelope.namespace, source: message.envelope.sourceId,
                    destination: message.envelope.destinationId, payload: text,
                    offset: message.time - requestTimes[segment], time: message.time))
            }
        }
        return segments
    }

    /// Every segment where castsim sends other than the recording shows.
    func differences(_ simulation: Simulation, _ recorded: [[Sent]], skipping accepted: Set<Int>)
        -> [(segment: Int, recorded: [Sent], produced: [Sent])]
    {
        recorded.indices.compactMap { segment in
            guard !accepted.contains(segment) else { return nil }
            let produced = segment < simulation.segments.count ? simulation.segments[segment] : []
            let wanted = recorded[segment]
            let same = produced.count == wanted.count && zip(produced, wanted).allSatisfy { $0.same(as: $1) }
            return same ? nil : (segment, wanted, produced)
        }
    }

    /// True when every message castsim sends is among the recorded ones, in order, on time.
    func isSubsequence(_ produced: [Sent], of recorded: [Sent]) -> Bool {
        var next = recorded.startIndex
        for message in produced {
            guard let found = recorded[next...].firstIndex(where: { $0.same(as: message) }) else { return false }
            next = found + 1
        }
        return true
    }
}
