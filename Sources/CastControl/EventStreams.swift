import CastScenario
import CastSimulator
import CastWire
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore

/// `GET /api/v1/events`: Server-Sent Events of what happens on the device. Each stream
/// subscribes to the simulator's news with a bounded buffer: a client that reads too
/// slowly loses the oldest events and never holds the device back.
final class EventStreams: Sendable {
    /// The streams: a slot per stream from its request on, its queue once its body runs;
    /// `stopping` once the server stops (no new stream then).
    private struct Streams {
        var open: [Int: FrameQueue?] = [:]
        var lastId = 0
        var stopping = false
    }

    private let streams = NIOLockedValueBox(Streams())
    static let kinds: Set<String> = ["device", "message", "clock", "reset", "upstream", "discovery"]
    static let keepAliveInterval: Duration = .seconds(15)
    static let buffer = 4096
    /// Streams open at once: each holds up to `buffer` events for a slow reader.
    static let maximumOpen = 64

    func open(_ request: Request, simulator: CastSimulator) async throws -> Response {
        let query = ControlRoutes.query(request)
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
        let lease = try reserve()
        let now = try await simulator.clock().time
        let headers: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-store"]
        return Response(status: .ok, headers: headers, body: ResponseBody { [self] writer in
            // The lease lives as long as the body runs.
            defer { withExtendedLifetime(lease) {} }
            do {
                let frames = FrameQueue(limit: Self.buffer)
                guard attach(frames, to: lease.id) else { return try await writer.finish(nil) }
                // Subscribed only now: a response that is never written holds nothing.
                let news = simulator.news(buffering: Self.buffer)
                let forward = Task {
                    for await item in news {
                        if let frame = Self.frame(item, wanted: kinds) { frames.yield(frame) }
                    }
                    frames.finish()
                }
                let keepAlive = Task {
                    while !Task.isCancelled {
                        try await Task.sleep(for: Self.keepAliveInterval)
                        frames.yield(ByteBuffer(string: ": keep-alive\n\n"))
                    }
                }
                // However the response ends (a write to a client that has gone throws),
                // its subscription and keep-alive go with it.
                defer {
                    forward.cancel()
                    keepAlive.cancel()
                    frames.finish()
                }
                try await writer.write(Self.frame("hello", ["time": .number(now.seconds)]))
                // What waits goes in one write: a busy device's events are not a flush each.
                while let waiting = await frames.next() {
                    var batch = waiting[0]
                    for frame in waiting.dropFirst() { batch.writeImmutableBuffer(frame) }
                    try await writer.write(batch)
                }
                try await writer.finish(nil)
            }
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

    private func reserve() throws -> Lease {
        let id = try streams.withLockedValue { streams in
            if streams.stopping { throw ControlError(status: .serviceUnavailable, message: "the control server is stopping") }
            guard streams.open.count < Self.maximumOpen else {
                throw ControlError(status: .tooManyRequests, message: "\(Self.maximumOpen) event streams are open already; close one first")
            }
            streams.lastId += 1
            streams.open[streams.lastId] = .some(nil)
            return streams.lastId
        }
        return Lease(id: id) { [streams] id in streams.withLockedValue { _ = $0.open.removeValue(forKey: id) } }
    }

    /// Files the stream's queue in its slot; false when the server stops meanwhile.
    private func attach(_ frames: FrameQueue, to id: Int) -> Bool {
        streams.withLockedValue { streams in
            guard !streams.stopping else { return false }
            streams.open[id] = frames
            return true
        }
    }

    /// How many streams hold a slot (open, or answered and not yet written).
    var openCount: Int { streams.withLockedValue { $0.open.count } }

    /// Ends every open stream and refuses new ones (the server is stopping).
    func finishAll() {
        let open = streams.withLockedValue { streams in
            streams.stopping = true
            return streams.open.values.compactMap { $0 }
        }
        for frames in open { frames.finish() }
    }

    static func frame(_ news: SimulatorNews, wanted: Set<String>) -> ByteBuffer? {
        switch news {
        case .event(let event) where wanted.contains("device"): frame("device", EventView.json(event))
        case .message(let entry) where wanted.contains("message"): messageFrame(entry)
        case .clock(let time, _) where wanted.contains("clock"): frame("clock", ["mode": "manual", "speed": nil, "time": .number(time.seconds)])
        case .reset where wanted.contains("reset"): frame("reset", [:])
        case .upstream(let connection, let connected, let reason) where wanted.contains("upstream"):
            frame("upstream", ["connection": .number(Double(connection.rawValue)), "connected": .bool(connected),
                               "reason": reason.map(JSONValue.string) ?? .null])
        case .discovery(let status) where wanted.contains("discovery"): frame("discovery", DiscoveryView.json(status))
        default: nil
        }
    }

    /// One event: its name and its JSON on one `data:` line (the JSON text has no newline).
    static func frame(_ name: String, _ data: JSONValue) -> ByteBuffer {
        ByteBuffer(string: "event: \(name)\ndata: \(data.jsonText())\n\n")
    }

    /// A message's event, its JSON written straight into the frame: a follower gets one for
    /// every message, and the device's own payloads (most of the bytes) are copied, not
    /// parsed and encoded again.
    static func messageFrame(_ entry: JournalEntry) -> ByteBuffer {
        var bytes = Array("event: message\ndata: ".utf8)
        bytes.reserveCapacity(entry.envelope.payloadByteCount + 256)
        JournalView.appendJSON(entry, to: &bytes)
        bytes.append(contentsOf: "\n\n".utf8)
        return ByteBuffer(bytes: bytes)
    }
}
