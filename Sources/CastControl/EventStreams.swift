import CastSimulator
import CastWire
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore

/// `GET /api/v1/events`: Server-Sent Events of what happens on the device. Each stream
/// subscribes to the simulator's news with a bounded buffer: a client that reads too
/// slowly loses the oldest events and never holds the device back.
final class EventStreams: Sendable {
    /// Every stream open now, finished when the server stops.
    private let open = NIOLockedValueBox<[Int: AsyncStream<ByteBuffer>.Continuation]>([:])
    private let lastId = NIOLockedValueBox(0)
    static let kinds: Set<String> = ["device", "message", "clock", "reset"]
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
        guard open.withLockedValue({ $0.count }) < Self.maximumOpen else {
            throw ControlError(status: .tooManyRequests, message: "\(Self.maximumOpen) event streams are open already; close one first")
        }
        let now = try await simulator.clock().time
        let (frames, continuation) = AsyncStream.makeStream(of: ByteBuffer.self, bufferingPolicy: .bufferingNewest(Self.buffer))
        let id = lastId.withLockedValue { $0 += 1; return $0 }
        open.withLockedValue { $0[id] = continuation }
        let news = simulator.news(buffering: Self.buffer)
        let forward = Task {
            for await item in news {
                if let frame = Self.frame(item, wanted: wanted) { continuation.yield(frame) }
            }
            continuation.finish()
        }
        let keepAlive = Task {
            while !Task.isCancelled {
                try await Task.sleep(for: Self.keepAliveInterval)
                continuation.yield(ByteBuffer(string: ": keep-alive\n\n"))
            }
        }
        continuation.onTermination = { [open] _ in
            forward.cancel()
            keepAlive.cancel()
            open.withLockedValue { $0[id] = nil }
        }
        let hello = Self.frame("hello", ["time": .number(now.seconds)])
        let headers: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-store"]
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            // However the response ends (a write to a client that has gone throws), the
            // stream ends with it: its news subscription and keep-alive go.
            defer { continuation.finish() }
            try await writer.write(hello)
            for await frame in frames { try await writer.write(frame) }
            try await writer.finish(nil)
        })
    }

    /// Ends every open stream (the server is stopping).
    func finishAll() {
        for continuation in open.withLockedValue({ $0.values }) { continuation.finish() }
    }

    static func frame(_ news: SimulatorNews, wanted: Set<String>) -> ByteBuffer? {
        switch news {
        case .event(let event) where wanted.contains("device"): frame("device", EventView.json(event))
        case .message(let entry) where wanted.contains("message"): frame("message", JournalView.json(entry))
        case .clock(let time) where wanted.contains("clock"): frame("clock", ["mode": "manual", "speed": nil, "time": .number(time.seconds)])
        case .reset where wanted.contains("reset"): frame("reset", [:])
        default: nil
        }
    }

    /// One event: its name and its JSON on one `data:` line (the JSON text has no newline).
    static func frame(_ name: String, _ data: JSONValue) -> ByteBuffer {
        ByteBuffer(string: "event: \(name)\ndata: \(data.jsonText())\n\n")
    }
}
