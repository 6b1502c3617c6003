import CastDevice
import CastWire

/// What a `streaming` expectation waits for: one stream of a Cast Streaming session whose
/// figures meet every predicate (`{"kind": "video", "framesReceived": {"$gte": 100}}`). The
/// keys are those of the state's `mirroring.streaming.streams[]`; they are tested each time
/// the media plane reports (once a second), so "within" is met to the second.
public struct StreamingCondition: Sendable, Equatable {
    public var fields: [(key: String, predicate: FieldPredicate)]

    public init(fields: [(key: String, predicate: FieldPredicate)]) {
        self.fields = fields
    }

    public static func == (lhs: StreamingCondition, rhs: StreamingCondition) -> Bool {
        lhs.fields.map(\.key) == rhs.fields.map(\.key) && lhs.fields.map(\.predicate) == rhs.fields.map(\.predicate)
    }

    /// The keys a condition may test: a stream's settings and its figures.
    public static let keys: Set<String> = StreamingStream.keys.union(StreamingFigures.Stream.keys)

    /// How many predicates `stream` (one of ``StreamingFigures/streamsJSON(_:)``) meets.
    func score(_ stream: JSONValue) -> Int {
        fields.count { $0.predicate.holds(for: stream[$0.key]) }
    }

    func matches(_ stream: JSONValue) -> Bool { score(stream) == fields.count }
}
