import CastDevice
import CastWire

extension DeviceConfiguration {
    /// The settings a scenario's `device` section can make, as one writes them: what a
    /// recording's header carries for a run without a scenario file (`castsim run
    /// --idle-timeout 0 --audio-only ...`), so its replay is the same device.
    public var scenarioJSON: JSONValue {
        func duration(_ seconds: Double?) -> JSONValue { .string(ScenarioDuration.format(seconds ?? 0)) }
        return [
            "name": .string(identity.friendlyName), "model": .string(identity.modelName), "manufacturer": .string(identity.manufacturer),
            "uuid": .string(identity.uuid),
            "capabilities": ["video": .bool(identity.supportsVideo), "audio": .bool(identity.supportsAudio)],
            "volume": ["level": .number(initialVolume), "muted": .bool(initiallyMuted)],
            "heartbeatInterval": duration(heartbeatInterval), "idleTimeout": duration(idleTimeout),
            "defaultMediaDuration": duration(defaultMediaDuration), "liveWindow": duration(liveWindow),
            "playbackRateRange": [.number(playbackRateRange.lowerBound), .number(playbackRateRange.upperBound)],
            "isolateRequestIds": .bool(isolateRequestIds), "deviceAuth": .string(deviceAuth.rawValue),
        ]
    }
}
