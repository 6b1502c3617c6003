import CastDevice
import CastDiscovery
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// castsim's own mDNS responder at work: one ``MDNSResponder`` per interface, fed the
/// datagrams of its sockets and the device's typed events (an app starts or stops: `st`
/// and `rs` change; the advertisement is withdrawn or restored), woken at its deadlines.
/// Lives on the device's event loop, like the ``DeviceRunner``.
final class Advertiser {
    private let loop: any EventLoop
    private let logger: Logger
    private let sockets: MDNSSockets
    private var responders: [Int: MDNSResponder] = [:]
    private var interfaces: [Int: MDNSInterface] = [:]
    private var description: CastServiceDescription
    private var host: String
    private var timer: Scheduled<Void>?
    /// After ``shutDown()``: no more timers or answers (the sockets are closing, and the
    /// loop may go next).
    private var stopped = false
    /// Where the datagram being answered came from, with its IPv6 scope: unicast replies go there.
    private var replyAddresses: [MDNSResponder.Peer: SocketAddress] = [:]

    private init(loop: any EventLoop, logger: Logger, sockets: MDNSSockets, description: CastServiceDescription, host: String) {
        self.loop = loop
        self.logger = logger
        self.sockets = sockets
        self.description = description
        self.host = host
    }

    /// Opens the sockets and starts probing on every interface; returns the advertiser and
    /// the names of the interfaces it answers on.
    static func start(interfaceNames: [String], host: String, description: CastServiceDescription, loop: any EventLoop,
                      logger: Logger) async throws -> (NIOLoopBound<Advertiser>, interfaces: [String]) {
        let interfaces = try MDNSInterface.find(named: interfaceNames)
        guard !interfaces.isEmpty else { throw MDNSError.noInterfaces }
        let box = NIOLockedValueBox<NIOLoopBound<Advertiser>?>(nil)
        let (sockets, problems) = try await MDNSSockets.open(on: interfaces, loop: loop) { datagram in
            box.withLockedValue { $0 }?.value.received(datagram)
        }
        for problem in problems { logger.warning("\(problem)") }
        let advertiser = try await loop.submit {
            let advertiser = Advertiser(loop: loop, logger: logger, sockets: sockets, description: description, host: host)
            let now = Self.now
            for interface in interfaces where sockets.endpoints.contains(where: { $0.interface == interface }) {
                advertiser.interfaces[interface.index] = interface
                var responder = MDNSResponder(description: description, addresses: advertiser.addresses(on: interface))
                advertiser.carryOut(responder.start(now: now), on: interface.index)
                advertiser.responders[interface.index] = responder
            }
            advertiser.reschedule()
            logger.info("mDNS: advertising \(description.instanceName) on \(interfaces.map(\.description).joined(separator: ", "))")
            return NIOLoopBound(advertiser, eventLoop: loop)
        }.get()
        box.withLockedValue { $0 = advertiser }
        let answering = interfaces.filter { interface in sockets.endpoints.contains { $0.interface == interface } }
        return (advertiser, answering.map(\.name))
    }

    static var now: Double { Double(NIODeadline.now().uptimeNanoseconds) / 1e9 }

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

    func received(_ datagram: MDNSSockets.Datagram) {
        guard !stopped, var responder = responders[datagram.interfaceIndex], let address = Self.bytes(of: datagram.source),
              let port = datagram.source.port else { return }
        let peer = MDNSResponder.Peer(address: address, port: port)
        let outputs = responder.received(datagram.bytes, from: peer, now: Self.now)
        responders[datagram.interfaceIndex] = responder
        replyAddresses = [peer: datagram.source]
        carryOut(outputs, on: datagram.interfaceIndex)
        replyAddresses = [:]
        reschedule()
    }

    /// The device's events that change what it advertises.
    func deviceEvent(_ event: DeviceEvent, snapshot: () -> DeviceSnapshot) {
        guard !stopped else { return }
        switch event.kind {
        case .appLaunched, .appStopped:
            update(description.following(snapshot().runningApp))
        case .advertisementChanged(.withdraw):
            each { responder, now in responder.withdraw(now: now) }
            logger.info("mDNS: withdrew \(description.instanceName)")
        case .advertisementChanged(.dropCast):
            guard description.androidTVRemote != nil else {
                // Nothing else to keep: the whole advertisement goes.
                each { responder, now in responder.withdraw(now: now) }
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
            for (index, interface) in interfaces {
                guard var responder = responders[index] else { continue }
                carryOut(responder.restore(description, addresses: addresses(on: interface), now: Self.now), on: index)
                responders[index] = responder
            }
            reschedule()
            logger.info("mDNS: restored \(description.instanceName) at \(host) port \(description.port)")
        default:
            break
        }
    }

    private func update(_ changed: CastServiceDescription) {
        guard changed != description else { return }
        description = changed
        for (index, interface) in interfaces {
            guard var responder = responders[index] else { continue }
            carryOut(responder.update(changed, addresses: addresses(on: interface), now: Self.now), on: index)
            responders[index] = responder
        }
        reschedule()
    }

    /// Goodbyes on every interface, then the sockets close.
    func shutDown() -> EventLoopFuture<Void> {
        guard !stopped else { return loop.makeSucceededVoidFuture() }
        each { responder, now in responder.shutdown(now: now) }
        stopped = true
        timer?.cancel()
        timer = nil
        let sockets = self.sockets
        // The goodbyes are written before the sockets close: both go through the same loop.
        let promise = loop.makePromise(of: Void.self)
        promise.completeWithTask { await sockets.close() }
        return promise.futureResult
    }

    // MARK: Outputs and time

    private func each(_ body: (inout MDNSResponder, Double) -> [MDNSResponder.Output]) {
        let now = Self.now
        for index in responders.keys.sorted() {
            guard var responder = responders[index] else { continue }
            carryOut(body(&responder, now), on: index)
            responders[index] = responder
        }
        reschedule()
    }

    private func carryOut(_ outputs: [MDNSResponder.Output], on index: Int) {
        for output in outputs {
            switch output {
            case .send(let packet):
                let bytes = packet.message.encoded()
                switch packet.destination {
                case .multicast(let ipv6):
                    if ipv6 != true { sockets.send(bytes, interfaceIndex: index, family: .inet, to: nil) }
                    if ipv6 != false { sockets.send(bytes, interfaceIndex: index, family: .inet6, to: nil) }
                case .unicast(let peer):
                    guard let address = replyAddresses[peer] else { continue }
                    sockets.send(bytes, interfaceIndex: index, family: peer.address.count == 16 ? .inet6 : .inet, to: address)
                }
            case .event(.announced(let instance)):
                logger.info("mDNS: announced \(instance) on \(interfaces[index]?.description ?? "#\(index)")")
            case .event(.renamed(let from, let to)):
                logger.notice("mDNS: another host claims \"\(from)\"; advertising as \"\(to)\"")
            case .event(.malformed(let problem)):
                logger.debug("mDNS: ignored a packet: \(problem)")
            }
        }
    }

    private func reschedule() {
        timer?.cancel()
        timer = nil
        guard !stopped, let next = responders.values.compactMap(\.nextDeadline).min() else { return }
        let delay = max(0, next - Self.now)
        // The task runs on this loop, where the advertiser lives.
        let bound = NIOLoopBound(self, eventLoop: loop)
        timer = loop.scheduleTask(in: .nanoseconds(Int64(delay * 1e9))) {
            bound.value.each { responder, now in responder.advance(now: now) }
        }
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
