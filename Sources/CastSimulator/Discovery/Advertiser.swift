import CastDevice
import CastDiscovery
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// One device's advertisement in castsim's own mDNS responder: one ``MDNSResponder`` per
/// interface, fed the device's typed events (an app starts or stops: `st` and `rs` change;
/// the advertisement is withdrawn or restored). The sockets, the timer and the datagrams
/// are the ``MDNSHub``'s, shared by every device on the loop. Lives on the device's event
/// loop, like the ``DeviceRunner``.
final class Advertiser: MDNSHub.Member {
    private let hub: MDNSHub
    private let id: Int
    private let logger: Logger
    private var responders: [Int: MDNSResponder] = [:]
    private var description: CastServiceDescription
    private var host: String
    /// After ``shutDown()``: no more answers.
    private var stopped = false

    private init(hub: MDNSHub, id: Int, logger: Logger, description: CastServiceDescription, host: String) {
        self.hub = hub
        self.id = id
        self.logger = logger
        self.description = description
        self.host = host
    }

    /// Joins the loop's responder (opening its sockets if it is the first device there) and
    /// starts probing on every interface; returns the advertiser and the names of the
    /// interfaces it answers on.
    static func start(interfaceNames: [String], host: String, description: CastServiceDescription, loop: any EventLoop,
                      logger: Logger) async throws -> (NIOLoopBound<Advertiser>, interfaces: [String]) {
        let made = NIOLockedValueBox<NIOLoopBound<Advertiser>?>(nil)
        let (hub, id) = try await MDNSHub.join(interfaceNames: interfaceNames, loop: loop, logger: logger) { hub, id in
            let advertiser = Advertiser(hub: hub, id: id, logger: logger, description: description, host: host)
            for (index, interface) in hub.interfaces {
                advertiser.responders[index] = MDNSResponder(description: description, addresses: advertiser.addresses(on: interface))
            }
            made.withLockedValue { $0 = NIOLoopBound(advertiser, eventLoop: loop) }
            return advertiser
        }
        let interfaces = try await loop.submit {
            let hub = hub.value
            let now = MDNSHub.now
            for index in hub.interfaces.keys.sorted() { hub.run(id, on: index) { $0.start(now: now) } }
            hub.settle()
            logger.info("mDNS: advertising \(description.instanceName) on \(hub.interfaces.values.map(\.description).sorted().joined(separator: ", "))")
            return hub.interfaces.keys.sorted().compactMap { hub.interfaces[$0]?.name }
        }.get()
        return (made.withLockedValue { $0 }!, interfaces)
    }

    // MARK: What the hub asks

    func withResponder(on interface: Int, _ body: (inout MDNSResponder) -> [MDNSResponder.Output]) -> [MDNSResponder.Output]? {
        guard !stopped, var responder = responders[interface] else { return nil }
        let outputs = body(&responder)
        responders[interface] = responder
        return outputs
    }

    var nextDeadline: Double? { stopped ? nil : responders.values.compactMap(\.nextDeadline).min() }

    func log(_ event: MDNSResponder.Event, on interface: Int) {
        let name = hub.interfaces[interface]?.description ?? "#\(interface)"
        switch event {
        case .announced(let instance): logger.info("mDNS: announced \(instance) on \(name)")
        case .renamed(let from, let to): logger.notice("mDNS: another host claims \"\(from)\"; advertising as \"\(to)\"")
        case .malformed(let problem): logger.debug("mDNS: ignored a packet: \(problem)")
        }
    }

    /// The addresses the device has on `interface`: its own when castsim listens on every
    /// address, else the one it listens on.
    private func addresses(on interface: MDNSInterface) -> [[UInt8]] {
        if host != "0.0.0.0", host != "::", let address = try? SocketAddress(ipAddress: host, port: 0) {
            return [Self.bytes(of: address)].compactMap { $0 }
        }
        return (interface.ipv4 + interface.ipv6).compactMap(Self.bytes(of:))
    }

    static func bytes(of address: SocketAddress) -> [UInt8]? {
        switch address {
        case .v4(let v4):
            return withUnsafeBytes(of: v4.address.sin_addr) { Array($0) }
        case .v6(let v6):
            return withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
        default:
            return nil
        }
    }

    // MARK: Inputs

    /// The device's events that change what it advertises.
    func deviceEvent(_ event: DeviceEvent, snapshot: () -> DeviceSnapshot) {
        guard !stopped else { return }
        switch event.kind {
        case .appLaunched, .appStopped:
            update(description.following(snapshot().runningApp))
        case .advertisementChanged(.withdraw):
            each { responder, _, now in responder.withdraw(now: now) }
            logger.info("mDNS: withdrew \(description.instanceName)")
        case .advertisementChanged(.dropCast):
            guard description.androidTVRemote != nil else {
                // Nothing else to keep: the whole advertisement goes.
                each { responder, _, now in responder.withdraw(now: now) }
                logger.info("mDNS: withdrew \(description.instanceName)")
                return
            }
            var changed = description
            changed.castDropped = true
            update(changed)
            logger.info("mDNS: withdrew \(description.instanceName); \(description.androidTVRemoteInstance) stays")
        case .advertisementChanged(.restore(let newHost, let port)):
            description.castDropped = false
            if let newHost { host = newHost }
            if let port { description.port = port }
            let description = description
            each { responder, interface, now in responder.restore(description, addresses: addresses(on: interface), now: now) }
            logger.info("mDNS: restored \(description.instanceName) at \(host) port \(description.port)")
        default:
            break
        }
    }

    private func update(_ changed: CastServiceDescription) {
        guard changed != description else { return }
        description = changed
        each { responder, interface, now in responder.update(changed, addresses: addresses(on: interface), now: now) }
    }

    /// Goodbyes on every interface; the hub closes its sockets when the last device leaves.
    func shutDown() -> EventLoopFuture<Void> {
        guard !stopped else { return hub.loop.makeSucceededVoidFuture() }
        each { responder, _, now in responder.shutdown(now: now) }
        stopped = true
        return hub.leave(id)
    }

    /// `body` on the device's responder of every interface, then what they said is sent.
    private func each(_ body: (inout MDNSResponder, MDNSInterface, Double) -> [MDNSResponder.Output]) {
        let now = MDNSHub.now
        for (index, interface) in hub.interfaces.sorted(by: { $0.key < $1.key }) {
            hub.run(id, on: index) { body(&$0, interface, now) }
        }
        hub.settle()
    }
}

extension CastServiceDescription {
    /// `st` and `rs` for what runs: busy with an app's name, idle on the idle screen.
    func following(_ running: RunningAppSnapshot?) -> CastServiceDescription {
        var changed = self
        changed.busy = running.map { !$0.isIdleScreen } ?? false
        changed.runningApp = changed.busy ? running?.displayName ?? "" : ""
        return changed
    }
}
