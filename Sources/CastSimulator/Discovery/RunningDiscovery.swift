import CastDevice
import NIOCore

/// Who advertises the running device: castsim's own responder, or avahi-daemon.
enum RunningDiscovery: Sendable {
    case builtin(NIOLoopBound<Advertiser>)
    case avahi(AvahiAdvertiser)

    /// On the device's loop: what the device's events change in the advertisement.
    func deviceEvent(_ event: DeviceEvent, snapshot: () -> DeviceSnapshot) {
        switch self {
        case .builtin(let advertiser): advertiser.value.deviceEvent(event, snapshot: snapshot)
        case .avahi(let advertiser): advertiser.deviceEvent(event, snapshot: snapshot)
        }
    }

    /// Goodbyes, then the sockets or the daemon connection close.
    func shutDown() async {
        switch self {
        case .builtin(let advertiser):
            try? await advertiser.eventLoop.flatSubmit { advertiser.value.shutDown() }.get()
        case .avahi(let advertiser):
            advertiser.shutDown()
        }
    }
}
