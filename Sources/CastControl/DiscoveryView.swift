import CastSimulator
import CastWire

/// What discovery does for the device, in `GET /api/v1/state` (`discovery`) and the event
/// stream's `discovery` events.
enum DiscoveryView {
    static func json(_ status: DiscoveryStatus) -> JSONValue {
        [
            "mode": .string(status.mode.rawValue), "advertised": .bool(status.advertised),
            "reason": status.reason.map(JSONValue.string) ?? nil,
            "interfaces": .array(status.interfaces.map(JSONValue.string)),
        ]
    }
}
