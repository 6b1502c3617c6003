/// What discovery does for a running device, as senders' browsers would find it: who
/// advertises it, whether it is advertised now, why not, and on which interfaces.
public struct DiscoveryStatus: Sendable, Equatable {
    /// Who publishes the device's records (``DiscoveryMode``).
    public enum Mode: String, Sendable {
        case builtin, avahi, off
    }

    public var mode: Mode
    /// True while the device is announced: a browser on one of `interfaces` finds it.
    public var advertised: Bool
    /// Why it is not advertised (mDNS off, loopback only, the responder could not start,
    /// withdrawn); nil while it is.
    public var reason: String?
    /// The interfaces discovery runs on (each by name): the built-in responder's, or those
    /// Avahi publishes on. Empty when nothing runs.
    public var interfaces: [String]

    public init(mode: Mode, advertised: Bool, reason: String? = nil, interfaces: [String] = []) {
        self.mode = mode
        self.advertised = advertised
        self.reason = reason
        self.interfaces = interfaces
    }

    /// Nothing advertises the device, for `reason`.
    static func notAdvertised(_ mode: Mode, _ reason: String) -> DiscoveryStatus {
        DiscoveryStatus(mode: mode, advertised: false, reason: reason)
    }

    /// Discovery as it was set up, for a device that has said goodbye (`withdrawn`).
    func following(withdrawn: Bool, castDropped: Bool = false) -> DiscoveryStatus {
        guard withdrawn, advertised else { return self }
        var status = self
        status.advertised = false
        status.reason = castDropped
            ? "the Cast service left discovery (quirks.mdns.dropCastAfter); other services (Android TV's remote) stay; a restore brings it back"
            : "withdrawn: the device said goodbye (a withdraw step, or it went offline); a restore brings it back"
        return status
    }
}

extension DiscoveryMode {
    var statusMode: DiscoveryStatus.Mode {
        switch self {
        case .off: .off
        case .builtin: .builtin
        case .avahi: .avahi
        }
    }
}
