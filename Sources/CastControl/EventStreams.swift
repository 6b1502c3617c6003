import CastScenario
import CastSimulator
import CastWire
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore

/// `GET /api/v1/events`: Server-Sent Events of what happens on the device. Each stream
/// subscribes to the simulator's news with a bounded buffer: a client that reads too
/// slowly loses the oldest events (a `dropped` event says how many) and never holds the
/// device back.
final class EventStreams: Sendable {
    /// The streams: a slot per stream from its request on, its queue once its body runs;
    /// `stopping` once the server stops (no new stream then).
    private struct Streams {
        var open: [Int: Slot] = [:]
        var lastId = 0
        var stopping = false
    }

    private struct Slot {
        /// nil until the stream's body runs.
        var news: BatchQueue<SimulatorNews>?
        /// Writes to the client that succeeded: a request waiting for a slot learns from
        /// them which clients are still there.
        var writes = 0
    }

    private let streams = NIOLockedValueBox(Streams())
    static let kinds: Set<String> = ["device", "message", "clock", "reset", "upstream", "discovery"]
    static let keepAliveInterval: Duration = .seconds(15)
    /// How long a stream's writer lets news gather after a write: at most this late, and at
    /// most this many writes a second.
    static let batchInterval: Duration = .milliseconds(2)
    static let buffer = 4096
    /// What a slow reader's events may hold, whatever their count: 4,096 messages of 60 KB
    /// each were 240 MB a stream.
    static let bufferBytes = 4 << 20
    /// Streams open at once: each holds up to `buffer` events, `bufferBytes`, for a slow reader.
    static let maximumOpen = 64
    /// How long a request for a stream waits at most, when every slot is taken, for the
    /// streams whose clients have gone to find it out (below) before it is refused: for a
    /// stream answered and not yet writing, which cannot show that its client is there.
    static let probeWait: Duration = .seconds(5)

    func open(_ request: Request, simulator: CastSimulator) async throws -> Response {
        let query = try ControlRoutes.query(request)
        if let unknown = query.keys.sorted().first(where: { $0 != "types" && $0 != "token" }) {
            throw ControlError.badRequest("unknown query parameter \"\(unknown)\"; expected types")
        }
        var wanted = Self.kinds
        if let types = query["types"] {
            wanted = Set(types.split(separator: ",").map(String.init))
            if let unknown = wanted.sorted().first(where: { !Self.kinds.contains($0) }) {
                throw ControlError.badRequest("types: unknown event type \"\(unknown)\"; expected a comma-separated list of \(Self.kinds.sorted().joined(separator: ", "))")
            }
        }
        // The slot is taken with the check, under one lock, and given back when the last
        // reference to the lease goes: after the stream, or with a response never sent
        // (Hummingbird drops the body unrun when writing the head fails).
        let kinds = wanted
        let lease = try await reserve()
        let now = try await simulator.clock().time
        let headers: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-store"]
        return Response(status: .ok, headers: headers, body: ResponseBody { [self] writer in
            // The lease lives as long as the body runs.
            defer { withExtendedLifetime(lease) {} }
            // Subscribed only now: a response that is never written holds nothing.
            let news = simulator.newsBatches(buffering: Self.buffer, bytes: Self.bufferBytes) { Self.type(of: $0).map(kinds.contains) ?? false }
            guard attach(news, to: lease.id) else {
                news.finish()
                return try await writer.finish(nil)
            }
            let keepAlive = Task {
                while !Task.isCancelled {
                    try await Task.sleep(for: Self.keepAliveInterval)
                    news.nudge()
                }
            }
            // However the response ends (a write to a client that has gone throws), its
            // subscription and keep-alive go with it.
            defer {
                keepAlive.cancel()
                news.finish()
            }
            try await writer.write(Self.frame("hello", ["time": .number(now.seconds)]))
            wrote(lease.id)
            // The news that piled up since the last write, in one write: a busy device's
            // events are not a wake and a flush each.
            var bytes: [UInt8] = []
            while let batch = await news.next() {
                // A burst's megabytes are let go.
                bytes.removeAll(keepingCapacity: bytes.capacity <= 1 << 20)
                // What the buffer let go came before this batch.
                let dropped = news.takeDropped()
                if dropped > 0 { Self.appendFrame("dropped", ["count": .number(Double(dropped))], to: &bytes) }
                if batch.isEmpty, dropped == 0 { bytes.append(contentsOf: ": keep-alive\n\n".utf8) }
                for item in batch { Self.appendFrame(item, to: &bytes) }
                guard !bytes.isEmpty else { continue }
                try await writer.write(ByteBuffer(bytes: bytes))
                wrote(lease.id)
                // A pause before the next batch: without it, the writer of a busy device's
                // stream came back for each message as it came, and its thread switches
                // (device to writer, writer to the HTTP loop and back) cost more than the
                // device's own work. A cancelled pause ends at once; so does the stream.
                try? await Task.sleep(for: Self.batchInterval)
            }
            // The news ended: the device stopped (castsim stopping, or its group deleted) or
            // this server is stopping. Said, so that a client tells it from a lost connection.
            let reason = streams.withLockedValue { $0.stopping } ? "the control API is stopping" : "the device stopped"
            try await writer.write(Self.frame("end", ["reason": .string(reason)]))
            try await writer.finish(nil)
        })
    }

    /// A stream's slot, given back when the lease goes.
    private final class Lease: Sendable {
        let id: Int
        let release: @Sendable (Int) -> Void
        init(id: Int, release: @escaping @Sendable (Int) -> Void) {
            self.id = id
            self.release = release
        }
        deinit { release(id) }
    }

    /// A slot for a new stream. When every slot is taken, each open stream writes a
    /// keep-alive now and every 50 ms: a stream whose client has gone learns it from those
    /// writes (the first after the client left still succeeds, as TCP learns of the close
    /// from the peer's answer to it; the next fails), not at its next keep-alive up to 15 s
    /// later, and gives its slot back. The request is refused once every stream that held a
    /// slot when it came has written three times since and kept its slot: each client is
    /// there. Three, not two: a write returns once the channel has it, so the second may
    /// return before the loop has read the peer's reset. Counted in writes, not time: on a
    /// loaded machine the writes came later than a fixed 200 ms wait, and a request was
    /// refused while slots of clients gone were about to free. ``probeWait`` bounds the
    /// wait for streams that do not write yet.
    private func reserve() async throws -> Lease {
        let deadline = ContinuousClock.now + Self.probeWait
        var writesBefore: [Int: Int]?
        var waited = 0
        while true {
            // A slot's id, or the streams that hold them all and whether each client has
            // shown it is there.
            let taken = try streams.withLockedValue { streams -> (id: Int?, open: [BatchQueue<SimulatorNews>], allThere: Bool) in
                if streams.stopping { throw ControlError(status: .serviceUnavailable, message: "the control server is stopping") }
                guard streams.open.count < Self.maximumOpen else {
                    let before = writesBefore ?? streams.open.mapValues(\.writes)
                    writesBefore = before
                    let allThere = before.allSatisfy { id, writes in streams.open[id].map { $0.writes >= writes + 3 } ?? true }
                    return (nil, streams.open.values.compactMap(\.news), allThere)
                }
                streams.lastId += 1
                streams.open[streams.lastId] = Slot()
                return (streams.lastId, [], false)
            }
            switch taken {
            case (let id?, _, _):
                return Lease(id: id) { [streams] id in streams.withLockedValue { _ = $0.open.removeValue(forKey: id) } }
            case (nil, let open, let allThere):
                guard !allThere, ContinuousClock.now < deadline else {
                    throw ControlError(status: .tooManyRequests, message: "\(Self.maximumOpen) event streams are open already; close one first")
                }
                if waited % 5 == 0 {
                    for news in open { news.nudge() }
                }
                waited += 1
                try await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    /// Counts a write to the stream's client that succeeded.
    private func wrote(_ id: Int) {
        streams.withLockedValue { $0.open[id]?.writes += 1 }
    }

    /// Files the stream's queue in its slot; false when the server stops meanwhile.
    private func attach(_ news: BatchQueue<SimulatorNews>, to id: Int) -> Bool {
        streams.withLockedValue { streams in
            guard !streams.stopping else { return false }
            streams.open[id]?.news = news
            return true
        }
    }

    /// How many streams hold a slot (open, or answered and not yet written).
    var openCount: Int { streams.withLockedValue { $0.open.count } }

    /// Ends every open stream and refuses new ones (the server is stopping).
    func finishAll() {
        let open = streams.withLockedValue { streams in
            streams.stopping = true
            return streams.open.values.compactMap(\.news)
        }
        for news in open { news.finish() }
    }

    /// The event type `news` is on a stream (what `types` names), if it is one.
    static func type(of news: SimulatorNews) -> String? {
        switch news {
        case .event: "device"
        case .message: "message"
        case .clock: "clock"
        case .reset: "reset"
        case .upstream: "upstream"
        case .discovery: "discovery"
        case .connected, .disconnected, .unhandled, .input: nil
        }
    }

    /// Appends the event frame of `news`, if it is an event of a stream's, named as
    /// ``type(of:)`` names it.
    static func appendFrame(_ news: SimulatorNews, to bytes: inout [UInt8]) {
        guard let name = type(of: news) else { return }
        let data: JSONValue
        switch news {
        case .message(let entry): return appendMessageFrame(entry, to: &bytes)
        case .event(let event): data = EventView.json(event)
        case .clock(let time, _): data = ["mode": "manual", "speed": nil, "time": .number(time.seconds)]
        case .reset: data = [:]
        case .upstream(let connection, let connected, let reason):
            data = ["connection": .number(Double(connection.rawValue)), "connected": .bool(connected),
                    "reason": reason.map(JSONValue.string) ?? .null]
        case .discovery(let status): data = DiscoveryView.json(status)
        case .connected, .disconnected, .unhandled, .input: return
        }
        appendFrame(name, data, to: &bytes)
    }

    /// One event: its name and its JSON on one `data:` line (the JSON text has no newline).
    static func frame(_ name: String, _ data: JSONValue) -> ByteBuffer {
        var bytes: [UInt8] = []
        appendFrame(name, data, to: &bytes)
        return ByteBuffer(bytes: bytes)
    }

    static func appendFrame(_ name: String, _ data: JSONValue, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: "event: \(name)\ndata: ".utf8)
        data.write(to: &bytes)
        bytes.append(contentsOf: "\n\n".utf8)
    }

    /// A message's event, its JSON written straight into the frame: a follower gets one for
    /// every message, and the device's own payloads (most of the bytes) are copied, not
    /// parsed and encoded again.
    static func appendMessageFrame(_ entry: JournalEntry, to bytes: inout [UInt8]) {
        bytes.reserveCapacity(bytes.count + entry.envelope.payloadByteCount + 256)
        bytes.append(contentsOf: "event: message\ndata: ".utf8)
        JournalView.appendJSON(entry, to: &bytes)
        bytes.append(contentsOf: "\n\n".utf8)
    }
}
