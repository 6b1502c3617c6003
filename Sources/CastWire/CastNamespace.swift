/// The namespaces castsim speaks, with the names the Cast documentation uses.
public enum CastNamespace {
    /// Virtual connection management (CONNECT / CLOSE / CONNECTED).
    public static let connection = "urn:x-cast:com.google.cast.tp.connection"
    /// PING / PONG keep-alive.
    public static let heartbeat = "urn:x-cast:com.google.cast.tp.heartbeat"
    /// Binary `DeviceAuthMessage` challenges and responses.
    public static let deviceAuth = "urn:x-cast:com.google.cast.tp.deviceauth"
    /// The receiver platform (`receiver-0`): LAUNCH, STOP, GET_STATUS, SET_VOLUME ...
    public static let receiver = "urn:x-cast:com.google.cast.receiver"
    /// The media channel of a media receiver app.
    public static let media = "urn:x-cast:com.google.cast.media"
    public static let debugOverlay = "urn:x-cast:com.google.cast.debugoverlay"
    public static let cac = "urn:x-cast:com.google.cast.cac"
    public static let sse = "urn:x-cast:com.google.cast.sse"
    public static let remoteControl = "urn:x-cast:com.google.cast.remotecontrol"
    /// Speaker groups on `receiver-0` of every device and group endpoint: MULTIZONE_STATUS,
    /// DEVICE_ADDED / DEVICE_UPDATED / DEVICE_REMOVED, SET_DEVICE_VOLUME
    /// (docs/protocol/groups.md §4).
    public static let multizone = "urn:x-cast:com.google.cast.multizone"

    /// Transport namespaces are routed with or without a prior CONNECT
    /// (docs/protocol/castv2.md §1.5).
    public static func isTransport(_ namespace: String) -> Bool {
        namespace.hasPrefix("urn:x-cast:com.google.cast.tp.")
    }
}

/// Well-known endpoint ids (castv2.md §1.4).
public enum CastEndpoint {
    /// The receiver platform.
    public static let platformReceiver = "receiver-0"
    /// The conventional platform sender id.
    public static let platformSender = "sender-0"
    /// Destination of broadcasts.
    public static let broadcast = "*"
    /// Source and destination of the PINGs a real device sends.
    public static let transport = "Tr@n$p0rt-0"
}
