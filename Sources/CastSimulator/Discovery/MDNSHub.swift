import CastDiscovery
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// The one mDNS responder of every device a process advertises on one loop and one set of
/// interfaces: one socket per interface and family, one timer, each datagram decoded once
/// and handed only to the devices it names, and what they answer at one moment sent in as
/// few packets as fit (``MDNSPacker``). Each device keeps its own ``MDNSResponder`` per
/// interface, so probing, conflicts, renames and goodbyes stay per device.
///
/// A fleet's devices share a loop, so a household of a thousand has one responder; a
/// device started alone has its own loop and so its own.
final class MDNSHub {
    /// What the hub asks of a device it answers for (``Advertiser``).
    protocol Member: AnyObject {
        /// The device's responder on `interface`, to run `body` on; nil once it has none.
        func withResponder(on interface: Int, _ body: (inout MDNSResponder) -> [MDNSResponder.Output]) -> [MDNSResponder.Output]?
        /// What a responder's event means to the device's log.
        func log(_ event: MDNSResponder.Event, on interface: Int)
        /// The earliest deadline of its responders.
        var nextDeadline: Double? { get }
    }

    let loop: any EventLoop
    let interfaces: [Int: MDNSInterface]
    private let sockets: MDNSSockets
    private let key: Key
    private let logger: Logger
    private var members: [Int: any Member] = [:]
    private var nextMemberID = 0
    /// Which members have a record of a name (questions go to them) and which claim it
    /// (records of it may conflict with theirs), with the names each had when last looked at.
    private var answering: [DNSName: Set<Int>] = [:]
    private var claiming: [DNSName: Set<Int>] = [:]
    private var indexed: [Int: (answerable: Set<DNSName>, claimed: Set<DNSName>)] = [:]
    /// What the members want sent, until ``flush()``.
    private var outbox: [Int: [MDNSResponder.Packet]] = [:]
    /// Where the datagram being answered came from, with its IPv6 scope: unicast replies go there.
    private var replyAddresses: [MDNSResponder.Peer: SocketAddress] = [:]
    private var timer: (task: Scheduled<Void>, due: Double)?
    private var closed = false

    private init(loop: any EventLoop, interfaces: [Int: MDNSInterface], sockets: MDNSSockets, key: Key, logger: Logger) {
        self.loop = loop
        self.interfaces = interfaces
        self.sockets = sockets
        self.key = key
        self.logger = logger
    }

    static var now: Double { Double(NIODeadline.now().uptimeNanoseconds) / 1e9 }

    // MARK: The process's hubs

    private struct Key: Hashable {
        let loop: ObjectIdentifier
        let interfaces: [String]
    }

    private static let hubs = NIOLockedValueBox<[Key: Task<NIOLoopBound<MDNSHub>, any Error>]>([:])

    /// The hub of `loop` for `interfaceNames` (all multicast interfaces when empty),
    /// opening its sockets if it is the first device there; on the loop, `join` makes the
    /// member of the id it is given, and the hub is returned with that id.
    static func join(interfaceNames: [String], loop: any EventLoop, logger: Logger,
                     _ join: @escaping @Sendable (MDNSHub, _ id: Int) -> any Member) async throws -> (NIOLoopBound<MDNSHub>, id: Int) {
        let interfaces = try MDNSInterface.find(named: interfaceNames)
        guard !interfaces.isEmpty else { throw MDNSError.noInterfaces }
        let key = Key(loop: ObjectIdentifier(loop), interfaces: interfaces.map(\.name).sorted())
        // A hub closing as this device arrives is gone from the table by the second try.
        for _ in 0..<2 {
            let opening = hubs.withLockedValue { hubs in
                if let existing = hubs[key] { return existing }
                let opening = Task { try await open(interfaces, key: key, loop: loop, logger: logger) }
                hubs[key] = opening
                return opening
            }
            let hub: NIOLoopBound<MDNSHub>
            do {
                hub = try await opening.value
            } catch {
                hubs.withLockedValue { if $0[key] == opening { $0[key] = nil } }
                throw error
            }
            let id = try await loop.submit { () -> Int? in
                let value = hub.value
                guard !value.closed else { return nil }
                let id = value.nextMemberID
                value.nextMemberID += 1
                value.members[id] = join(value, id)
                value.reindex(id)
                return id
            }.get()
            if let id { return (hub, id) }
        }
        throw MDNSError.bindFailed("the mDNS responder was closing")
    }

    private static func open(_ interfaces: [MDNSInterface], key: Key, loop: any EventLoop, logger: Logger) async throws
        -> NIOLoopBound<MDNSHub>
    {
        let box = NIOLockedValueBox<NIOLoopBound<MDNSHub>?>(nil)
        let (sockets, problems) = try await MDNSSockets.open(on: interfaces, loop: loop) { datagram in
            box.withLockedValue { $0 }?.value.received(datagram)
        }
        for problem in problems { logger.warning("\(problem)") }
        let answering = interfaces.filter { interface in sockets.endpoints.contains { $0.interface == interface } }
        let hub = try await loop.submit {
            NIOLoopBound(MDNSHub(loop: loop, interfaces: Dictionary(uniqueKeysWithValues: answering.map { ($0.index, $0) }),
                                 sockets: sockets, key: key, logger: logger), eventLoop: loop)
        }.get()
        box.withLockedValue { $0 = hub }
        return hub
    }

    /// The member is gone (its goodbyes already in the outbox, sent now); the last one out
    /// closes the sockets.
    func leave(_ id: Int) -> EventLoopFuture<Void> {
        flush()
        members[id] = nil
        unindex(id)
        guard members.isEmpty, !closed else { return loop.makeSucceededVoidFuture() }
        closed = true
        timer?.task.cancel()
        timer = nil
        let key = key
        Self.hubs.withLockedValue { $0[key] = nil }
        let sockets = sockets
        // The goodbyes are written before the sockets close: both go through the same loop.
        let promise = loop.makePromise(of: Void.self)
        promise.completeWithTask { await sockets.close() }
        return promise.futureResult
    }

    // MARK: Inputs

    private func received(_ datagram: MDNSSockets.Datagram) {
        guard !closed, let address = Advertiser.bytes(of: datagram.source), let port = datagram.source.port else { return }
        let peer = MDNSResponder.Peer(address: address, port: port)
        let message: DNSMessage
        do {
            message = try DNSMessage(decoding: datagram.bytes)
        } catch {
            logger.debug("mDNS: ignored a packet from \(datagram.source): \(error)")
            return
        }
        let now = Self.now
        replyAddresses = [peer: datagram.source]
        for id in addressees(of: message).sorted() {
            run(id, on: datagram.interfaceIndex) { $0.received(message, from: peer, now: now) }
        }
        settle()
        replyAddresses = [:]
    }

    /// The members a message can concern: those with a record of a name it asks about, and
    /// those claiming a name its records (a rival's answer or probe) have.
    private func addressees(of message: DNSMessage) -> Set<Int> {
        var ids = Set<Int>()
        if !message.isResponse {
            for question in message.questions {
                ids.formUnion(answering[question.name] ?? [])
                ids.formUnion(claiming[question.name] ?? [])
            }
        }
        for record in message.answers + message.authorities + message.additionals {
            ids.formUnion(claiming[record.name] ?? [])
        }
        return ids
    }

    /// Runs `body` on member `id`'s responder on `interface`, keeps what it wants sent and
    /// logs what happened; its names are looked at again when it changed (a rename, an
    /// update, a withdrawal).
    func run(_ id: Int, on interface: Int, _ body: (inout MDNSResponder) -> [MDNSResponder.Output]) {
        guard let member = members[id] else { return }
        var renamed = false
        let outputs = member.withResponder(on: interface) { responder in
            let before = responder.description
            defer { renamed = responder.description != before }
            return body(&responder)
        }
        for output in outputs ?? [] {
            switch output {
            case .send(let packet): outbox[interface, default: []].append(packet)
            case .event(let event): member.log(event, on: interface)
            }
        }
        if renamed { reindex(id) }
    }

    // MARK: Outputs and time

    /// After the members were run: what they said goes out, and the timer follows their deadlines.
    func settle() {
        flush()
        reschedule()
    }

    /// Sends what the members have said since the last flush, packed.
    private func flush() {
        guard !outbox.isEmpty else { return }
        let pending = outbox
        outbox = [:]
        for (index, packets) in pending.sorted(by: { $0.key < $1.key }) {
            for packet in MDNSPacker.pack(packets) {
                let bytes = packet.message.encoded()
                switch packet.destination {
                case .multicast(let ipv6):
                    if ipv6 != true { sockets.send(bytes, interfaceIndex: index, family: .inet, to: nil) }
                    if ipv6 != false { sockets.send(bytes, interfaceIndex: index, family: .inet6, to: nil) }
                case .unicast(let peer):
                    guard let address = replyAddresses[peer] else { continue }
                    sockets.send(bytes, interfaceIndex: index, family: peer.address.count == 16 ? .inet6 : .inet, to: address)
                }
            }
        }
    }

    /// One timer for every member, at the earliest deadline. When it fires, every member
    /// due within the next 10 ms is advanced too, so that devices started together probe
    /// and announce in a few packets rather than one each.
    private func reschedule() {
        guard !closed, let next = members.values.compactMap(\.nextDeadline).min() else {
            timer?.task.cancel()
            timer = nil
            return
        }
        if let timer, timer.due == next { return }
        timer?.task.cancel()
        let bound = NIOLoopBound(self, eventLoop: loop)
        let delay = max(0, next - Self.now)
        timer = (loop.scheduleTask(in: .nanoseconds(Int64(delay * 1e9))) { bound.value.fire() }, next)
    }

    private func fire() {
        timer = nil
        let now = Self.now
        for id in members.keys.sorted() {
            guard let member = members[id], let due = member.nextDeadline, due <= now + Self.coalescing else { continue }
            for interface in interfaces.keys.sorted() {
                run(id, on: interface) { $0.advance(now: max(now, due)) }
            }
        }
        settle()
    }

    static let coalescing = 0.01

    // MARK: Who answers for which name

    private func reindex(_ id: Int) {
        guard let member = members[id] else { return }
        var answerable = Set<DNSName>()
        var claimed = Set<DNSName>()
        for interface in interfaces.keys {
            _ = member.withResponder(on: interface) { responder in
                answerable.formUnion(responder.answerableNames)
                claimed.formUnion(responder.claimedNames)
                return []
            }
        }
        if let old = indexed[id], old.answerable == answerable, old.claimed == claimed { return }
        unindex(id)
        indexed[id] = (answerable, claimed)
        for name in answerable { answering[name, default: []].insert(id) }
        for name in claimed { claiming[name, default: []].insert(id) }
    }

    private func unindex(_ id: Int) {
        guard let old = indexed.removeValue(forKey: id) else { return }
        for name in old.answerable {
            answering[name]?.remove(id)
            if answering[name]?.isEmpty == true { answering[name] = nil }
        }
        for name in old.claimed {
            claiming[name]?.remove(id)
            if claiming[name]?.isEmpty == true { claiming[name] = nil }
        }
    }
}
