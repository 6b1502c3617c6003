import CastDevice
import CastWire

/// A recording: what happened between a device and its senders, as `docs/recording.md`
/// specifies it (JSON Lines: ``RecordingHeader`` first, then one ``RecordedEvent`` a line).
public struct Recording: Sendable, Equatable {
    public var header: RecordingHeader
    public var events: [RecordedEvent]

    public init(header: RecordingHeader, events: [RecordedEvent]) {
        self.header = header
        self.events = events
    }
}

/// Line 1 of a recording: who recorded what, on which device, under which clock.
public struct RecordingHeader: Sendable, Equatable {
    /// The format's version; a reader refuses others.
    public static let version = 1
    public static let format = "castsim-recording"

    public enum Source: String, Sendable, Equatable, CaseIterable {
        /// castsim simulated the device.
        case device
        /// A real device behind `castsim relay`.
        case relay
    }

    /// The version of castsim that wrote it.
    public var castsim: String
    /// Wall time of the first line, milliseconds since 1970.
    public var recordedAt: Int64
    public var source: Source
    /// `HOST:PORT` of the relayed device.
    public var upstream: String?
    /// The identity senders saw.
    public var device: DeviceIdentity
    public var host: String?
    public var castPort: Int?
    public var clock: Scenario.ClockSetting
    /// The scenario file castsim ran, as it was loaded.
    public var scenario: JSONValue?
    /// The payload paths written as `"<redacted>"`.
    public var redacted: [String]

    public init(castsim: String, recordedAt: Int64, source: Source, upstream: String? = nil, device: DeviceIdentity,
                host: String? = nil, castPort: Int? = nil, clock: Scenario.ClockSetting, scenario: JSONValue? = nil, redacted: [String] = []) {
        self.castsim = castsim
        self.recordedAt = recordedAt
        self.source = source
        self.upstream = upstream
        self.device = device
        self.host = host
        self.castPort = castPort
        self.clock = clock
        self.scenario = scenario
        self.redacted = redacted
    }
}

/// How a sender's connection ended.
public enum ConnectionEnding: String, Sendable, Equatable, CaseIterable {
    /// The sender closed it.
    case clean
    /// A TCP reset or a TLS error.
    case reset
    /// The device's idle timeout closed it.
    case idleTimeout
    /// The device (or a scenario, or a stalled-reader limit) closed it.
    case device
}

/// One line after the header.
public struct RecordedEvent: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case message(RecordedMessage)
        case connected(ConnectionID, peer: String?)
        case disconnected(ConnectionID, how: ConnectionEnding)
        /// An operator input: a timeline action in the scenario syntax.
        case input(JSONValue)
        case fault(Fault)
        /// A manual clock moved forward to this time.
        case clock(to: SimTime)
        /// The device started again: with this scenario (its JSON), or the same one (nil).
        case reset(scenario: JSONValue?)
        /// Relay: the relay's own connection to the real device for this sender.
        case upstream(ConnectionID, connected: Bool, reason: String?)
        /// Events the writer lost because it fell behind.
        case dropped(count: Int)
        /// What happened to a Cast Streaming session (its phase, and once a second its
        /// figures), as the event stream tells it: the media plane is not in the messages.
        case streaming(JSONValue)

        /// The `event` member of its line.
        public var name: String {
            switch self {
            case .message: "message"
            case .connected: "connected"
            case .disconnected: "disconnected"
            case .input: "input"
            case .fault: "fault"
            case .clock: "clock"
            case .reset: "reset"
            case .upstream: "upstream"
            case .dropped: "dropped"
            case .streaming: "streaming"
            }
        }

        /// Every `event` name the format has.
        public static let names = ["message", "connected", "disconnected", "input", "fault", "clock", "reset", "upstream", "dropped", "streaming"]
    }

    /// Scenario time.
    public var time: SimTime
    /// Wall time, milliseconds since 1970.
    public var wall: Int64
    public var kind: Kind

    public init(time: SimTime, wall: Int64, kind: Kind) {
        self.time = time
        self.wall = wall
        self.kind = kind
    }
}

/// A Cast message, in either direction.
public struct RecordedMessage: Sendable, Equatable {
    public var direction: JournalEntry.Direction
    /// The sender's connection (inbound), or every connection the device wrote it to: as
    /// the journal keeps them, so recording a message makes no array.
    public var connections: ConnectionList
    public var envelope: CastEnvelope
    /// Why no handler took an inbound message.
    public var unhandled: String?

    public init(direction: JournalEntry.Direction, connections: ConnectionList, envelope: CastEnvelope, unhandled: String? = nil) {
        self.direction = direction
        self.connections = connections
        self.envelope = envelope
        self.unhandled = unhandled
    }

    public init(_ entry: JournalEntry) {
        self.init(direction: entry.direction, connections: entry.connections, envelope: entry.envelope, unhandled: entry.unhandled)
    }

    /// The JSON payload, when it is JSON.
    public var payload: JSONValue? { envelope.utf8.flatMap { try? JSONValue.parse($0) } }

    /// The payload's `type`.
    public var type: String? { payload?["type"]?.stringValue }
}
