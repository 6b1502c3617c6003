// The device and messages the benchmarks of every target start from.

import CastDevice
import CastWire

package let deviceUUID = "0123456789abcdef0123456789abcdef"

/// A device's configuration; without heartbeats unless asked (most benchmarks measure
/// one request, not the liveness around it).
package func deviceConfiguration(heartbeats: Bool = false) -> DeviceConfiguration {
    var configuration = DeviceConfiguration(identity: try! DeviceIdentity(uuid: deviceUUID))
    if !heartbeats {
        configuration.heartbeatInterval = nil
        configuration.idleTimeout = nil
    }
    return configuration
}

package func envelope(_ source: String, _ destination: String, _ namespace: String, _ payload: JSONValue) -> CastEnvelope {
    CastEnvelope(sourceId: source, destinationId: destination, namespace: namespace, payload: .string(payload.jsonText()))
}
