import CastWire

/// Everything that shapes the simulated device's behaviour, fixed at start.
///
/// Plain data all the way down (the media catalog included), so a configuration can be
/// written into a recording's header, read back and compared.
public struct DeviceConfiguration: Sendable, Equatable, Codable {
    public var identity: DeviceIdentity
    /// Device (receiver) volume at start.
    public var initialVolume: Double = 1.0
    public var initiallyMuted = false
    /// How often the device PINGs each connection from `Tr@n$p0rt-0`; nil turns it off.
    public var heartbeatInterval: Double? = 5
    /// A connection that sends nothing for this long is closed; nil turns it off.
    public var idleTimeout: Double? = 60
    /// Duration given to BUFFERED media whose LOAD carries no `duration`.
    public var defaultMediaDuration: Double = 600
    /// Accepted `playbackRate` range for SET_PLAYBACK_RATE.
    public var playbackRateRange: ClosedRange<Double> = 0.5...2.0
    /// Real devices broadcast the status that answers a request with that request's id to every
    /// sender (docs/protocol/platform.md §6.4). pychromecast completes *any* pending request
    /// whose id matches, and every instance counts from 1, so several pychromecast senders can
    /// complete each other's requests. With isolation on, the requester gets the reply (with
    /// its id) and everyone else a copy with requestId 0 — not what a device does, but what a
    /// test of several independent senders may want.
    public var isolateRequestIds = false
    /// Length of the seekable window of LIVE media (`liveSeekableRange`).
    public var liveWindow: Double = 1800
    /// How loads go, per content id (failures, delays, what the media really is).
    public var mediaCatalog = MediaCatalog()
    /// The apps this device can run, by app id: unless a scenario says otherwise, every
    /// built-in app's (``AppPlugin/definitions``).
    public var apps: [CastAppDefinition] = AppRegistry.builtIn.definitions
    /// The scenario sections apps read (``AppPlugin/sections``), by key, as the file wrote
    /// them: the app reads its own when it launches.
    public var appSections: [String: JSONValue] = [:]
    /// The app shown when nothing else runs (video devices show Backdrop). nil: none.
    public var idleScreenAppId: String? = CastAppDefinition.backdrop.appId
    /// How device-auth challenges are answered at start.
    public var deviceAuth: DeviceAuthMode = .devRoot
    /// A device's own endpoint, or a speaker group's (``MultizoneRole``).
    public var multizone: MultizoneRole = .device
    /// The volume's control type and step; nil: a speaker's (attenuation, 0.05). Optional so
    /// that recordings written before it read back unchanged.
    public var volumeControl: VolumeControl?
    /// What this device does that an ideal one does not (``DeviceQuirks``); nil: none.
    /// Optional so that recordings written before it read back unchanged.
    public var quirks: DeviceQuirks?
    /// What the device can decode (a profile's); nil: anything.
    public var mediaSupport: MediaSupport?

    public init(identity: DeviceIdentity) {
        self.identity = identity
        if !identity.supportsVideo { idleScreenAppId = nil }
    }

    /// What RECEIVER_STATUS says about the volume control.
    public var effectiveVolumeControl: VolumeControl { volumeControl ?? .attenuation }

    /// The quirks turned on, none when nil.
    public var effectiveQuirks: DeviceQuirks { quirks ?? DeviceQuirks() }

    public func app(withId appId: String) -> CastAppDefinition? {
        apps.first { $0.appId == appId }
    }
}
