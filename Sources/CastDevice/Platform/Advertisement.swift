/// The device's presence in senders' device pickers (mDNS), which the runtime publishes.
/// The core only says when it changes, so that a scenario step, the control API and a
/// recording all see one typed event, and the runtime's discovery follows that event.
public enum AdvertisementChange: Sendable, Equatable, CustomStringConvertible {
    /// Goodbye: the device vanishes from browsers (its connections stay up).
    case withdraw
    /// Goodbye for the Cast service only: the device's other services (Android TV's
    /// remote) stay advertised, as a Chromecast with Google TV's after hours.
    case dropCast
    /// Advertised again, optionally at another address or Cast port (the runtime listens
    /// there from then on), as a device back from a reboot or a DHCP renewal.
    case restore(host: String?, port: Int?)

    public var description: String {
        switch self {
        case .withdraw: "withdrawn"
        case .dropCast: "withdrawn for Cast (other services stay)"
        case .restore(let host, let port):
            "restored" + (host.map { " at \($0)" } ?? "") + (port.map { " port \($0)" } ?? "")
        }
    }
}

extension SimulatedDevice {
    mutating func changeAdvertisement(_ change: AdvertisementChange) {
        switch change {
        case .withdraw, .dropCast:
            guard isAdvertised else { return }
            isAdvertised = false
        case .restore(let host, let port):
            // A restore that moves the device is news even while it is advertised.
            guard !isAdvertised || host != nil || port != nil else { return }
            isAdvertised = true
        }
        log(.info, nil, "advertisement \(change)")
        raise(.advertisementChanged(change))
    }
}
