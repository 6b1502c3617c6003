import CastDevice
import CastWire

/// A scenario file: the world castsim simulates and what the sender must do in it.
/// Its format is documented in `scenarios/README.md` and `scenarios/scenario.schema.json`.
public struct Scenario: Sendable {
    public var name: String
    public var description: String?
    /// The device, its media catalog included.
    public var device: DeviceConfiguration
    public var clock: ClockSetting?
    public var timeline: [TimelineStep]
    public var rules: [Rule]
    public var expectations: [Expectation]
    /// The JSON it was read from (what a recording's header carries); nil for one made in code.
    public var source: JSONValue?

    /// A scenario's `clock`: the same modes the runtime runs.
    public typealias ClockSetting = ClockMode
}

/// One step of the timeline: when it fires, and what it does.
public struct TimelineStep: Sendable, Equatable {
    public enum Trigger: Sendable, Equatable {
        /// Seconds after the scenario starts.
        case at(Double)
        /// `delay` seconds after the `occurrence`-th time `event` happens.
        case after(event: ScenarioEvent, delay: Double, occurrence: Int)
    }

    /// Which connection a fault or message targets: by order of connection, or by id
    /// (the control API, which shows the ids).
    public enum ConnectionSelector: Sendable, Equatable {
        case all, first, last
        case connection(ConnectionID)

        /// The selectors a scenario names in words.
        static let named: [String: ConnectionSelector] = ["all": .all, "first": .first, "last": .last]
    }

    public enum Action: Sendable, Equatable {
        /// `destination`: one sender endpoint (its id) instead of every sender connected to `source`.
        case emit(namespace: String, source: String?, to: ConnectionSelector, destination: String? = nil, payload: JSONValue)
        case device(OperatorInput)
        case closeConnection(ConnectionSelector, reset: Bool)
        case stopHeartbeats(seconds: Double)
        case unresponsive(seconds: Double)
        /// Replies held back `by` seconds for `seconds`: to the selected connections, or
        /// (nil) to every connection.
        case delayReplies(by: Double, seconds: Double, ConnectionSelector?)
        case sendFrame(ConnectionSelector, RawFrame)
        case advance(seconds: Double)
        /// Something for the household the device is in (a scenario with `devices`).
        case household(HouseholdStep)
    }

    public var trigger: Trigger
    public var action: Action
    /// Where the step is in the file, for reports: `timeline[3]`.
    public var path: String
}

/// Something that happens in a session, for `after` triggers.
public enum ScenarioEvent: Sendable, Hashable, CustomStringConvertible {
    case connected, disconnected, appLaunched, appStopped, sessionStarted, sessionEnded, itemChanged
    /// A message of this type arrived from a sender (`LOAD`, `PLAY`, `SET_VOLUME` ...).
    case message(String)

    static let named: [String: ScenarioEvent] = [
        "connected": .connected, "disconnected": .disconnected, "appLaunched": .appLaunched, "appStopped": .appStopped,
        "sessionStarted": .sessionStarted, "sessionEnded": .sessionEnded, "itemChanged": .itemChanged,
    ]

    public var description: String {
        if case .message(let type) = self { return type }
        return Self.named.first { $0.value == self }?.key ?? "?"
    }

    /// The scenario event a device event is, if any. An idle screen coming and going is
    /// not an app launch or stop for a scenario: the sender did not launch it.
    init?(_ kind: DeviceEvent.Kind) {
        switch kind {
        case .connectionOpened: self = .connected
        case .connectionClosed: self = .disconnected
        case .appLaunched(let app) where !app.isIdleScreen: self = .appLaunched
        case .appStopped(let app) where !app.isIdleScreen: self = .appStopped
        case .mediaSessionStarted: self = .sessionStarted
        case .mediaSessionEnded: self = .sessionEnded
        case .itemChanged: self = .itemChanged
        default: return nil
        }
    }
}

/// What to do with an incoming message that matches.
public struct Rule: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        /// Answer with this payload instead of the device.
        case reply(JSONValue)
        /// Let the device answer, and send this payload too.
        case replyAlso(JSONValue)
        /// Hand the message to the device this many seconds later.
        case delay(Double)
        /// Ignore the message.
        case drop
        /// Answer instead of the device with these messages, each at its own delay: what a
        /// recording showed a device send for this request.
        case respond([Response])
    }

    /// One message of a ``Action/respond(_:)``.
    public struct Response: Sendable, Equatable {
        /// Seconds after the request.
        public var after: Double
        /// nil: the request's namespace.
        public var namespace: String?
        /// nil: the endpoint the request went to.
        public var source: String?
        /// nil: the sender endpoint that sent the request.
        public var destination: String?
        /// To every open connection, not only the requester's.
        public var toAll: Bool
        /// Sent as written, but for a `requestId` of ``requestIdPlaceholder``: that becomes the
        /// request's (a device's answer carries the id of the request it answers).
        public var payload: JSONValue

        /// `"requestId": "$requestId"` in a response: the id of the request being answered.
        public static let requestIdPlaceholder: JSONValue = "$requestId"

        public init(after: Double = 0, namespace: String? = nil, source: String? = nil, destination: String? = nil,
                    toAll: Bool = false, payload: JSONValue) {
            self.after = after
            self.namespace = namespace
            self.source = source
            self.destination = destination
            self.toAll = toAll
            self.payload = payload
        }
    }

    public var name: String
    public var pattern: MessagePattern
    public var action: Action
    /// Only the first N matches; nil: every match.
    public var times: Int?
    /// Only the Nth message the pattern matches (counted whether or not a rule took the
    /// earlier ones); nil: any.
    public var occurrence: Int? = nil
}

/// What the sender must do.
public struct Expectation: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A matching message arrives (within `within` seconds of the start, if given).
        case message(MessagePattern)
        /// Messages matching each pattern arrive in this order.
        case sequence([MessagePattern])
        /// No matching message arrives (for `within` seconds, or the whole run).
        case never(MessagePattern)
        /// A Cast Streaming stream's figures meet the condition (within `within` seconds of
        /// the start, if given).
        case streaming(StreamingCondition)
    }

    public var name: String
    public var kind: Kind
    public var within: Double?
}

extension Scenario {
    /// A run without a script: just the device.
    public static func plain(_ device: DeviceConfiguration, name: String = "castsim") -> Scenario {
        Scenario(name: name, description: nil, device: device, clock: nil, timeline: [], rules: [], expectations: [], source: nil)
    }
}
