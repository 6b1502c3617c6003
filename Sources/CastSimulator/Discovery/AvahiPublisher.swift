import CastDevice
import CastDiscovery
import Logging
import NIOConcurrencyHelpers

/// Publishes the device through a running avahi-daemon (libavahi-client over D-Bus, opened
/// at run time: ``AvahiLibrary``), for desktops where Avahi owns mDNS: the same records as
/// castsim's own responder (the Cast service with its TXT, the `_<APPID>._sub` subtypes,
/// and the host `<uuid>.local` with its addresses, Android TV's remote service where the
/// profile has one), renamed by Avahi's rule on a collision.
///
/// `@unchecked Sendable`: Avahi runs its own thread (the threaded poll); every call into
/// Avahi and every read or write of the fields below happens with the poll's lock held,
/// either in ``locked(_:)`` or in Avahi's callbacks, which it calls with the lock held.
final class AvahiPublisher: @unchecked Sendable {
    static let serviceType = "_googlecast._tcp"
    /// IPv4 and IPv6, and every interface: Avahi's "unspecified".
    static let anyProtocol = AvahiLibrary.protoUnspecified
    static let anyInterface = AvahiLibrary.interfaceUnspecified
    private let avahi: AvahiLibrary
    private let poll: OpaquePointer
    private var client: OpaquePointer?
    /// The Cast service and its subtypes.
    private var group: OpaquePointer?
    /// The host's addresses and the device's other services (Android TV's remote): apart,
    /// so that the Cast service can go while they stay.
    private var hostGroup: OpaquePointer?
    private var description: CastServiceDescription
    private var addresses: [String]
    private let interfaceIndexes: [Int32]
    /// The instance name Avahi has it under (a collision changes it).
    private var name: String
    private var withdrawn = false
    private let logger: Logger

    /// Connects to avahi-daemon; throws, saying so, when it is not running.
    init(description: CastServiceDescription, addresses: [String], interfaceIndexes: [Int32], logger: Logger) throws {
        let avahi = try AvahiLibrary.shared.get()
        self.avahi = avahi
        guard let poll = avahi.threadedPollNew() else { throw DiscoveryUnavailable(description: "Avahi: cannot make its event loop") }
        self.poll = poll
        self.description = description
        self.addresses = addresses
        self.interfaceIndexes = interfaceIndexes.isEmpty ? [Self.anyInterface] : interfaceIndexes
        name = description.instanceLabel
        self.logger = logger
        var error: Int32 = 0
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let client = avahi.clientNew(avahi.threadedPollGet(poll), 0, { client, state, context in
            guard let context else { return }
            Unmanaged<AvahiPublisher>.fromOpaque(context).takeUnretainedValue().clientChanged(client, state)
        }, context, &error) else {
            avahi.threadedPollFree(poll)
            throw DiscoveryUnavailable(description: "avahi-daemon is not running or not reachable over D-Bus (\(avahi.message(error)))")
        }
        self.client = client
        _ = avahi.threadedPollStart(poll)
    }

    private func locked<T>(_ body: () -> T) -> T {
        avahi.threadedPollLock(poll)
        defer { avahi.threadedPollUnlock(poll) }
        return body()
    }

    // MARK: What castsim asks

    /// Publishes (or republishes) everything.
    func publish() {
        locked { register() }
    }

    /// The TXT changed (an app started or stopped): updated in place, without a new probe.
    func update(_ changed: CastServiceDescription) {
        locked {
            let port = description.port, dropped = description.castDropped
            description = changed
            guard !withdrawn, let group else { return }
            if changed.port != port || changed.castDropped != dropped {
                registerCast()
                return
            }
            // No Cast service left whose TXT could change.
            guard !changed.castDropped else { return }
            let txt = stringList(changed.txt)
            defer { avahi.stringListFree(txt) }
            for index in interfaceIndexes {
                let result = avahi.entryGroupUpdateServiceTxtStrlst(group, index, Self.anyProtocol, 0, name, Self.serviceType, nil, txt)
                if result < 0 { logger.error("Avahi: TXT update failed: \(avahi.message(result))") }
            }
        }
    }

    /// Goodbye: the entry group is emptied, Avahi sends the TTL-0 records.
    func withdraw() {
        locked {
            withdrawn = true
            if let group { _ = avahi.entryGroupReset(group) }
            if let hostGroup { _ = avahi.entryGroupReset(hostGroup) }
        }
    }

    func restore(_ changed: CastServiceDescription, addresses: [String]) {
        locked {
            description = changed
            self.addresses = addresses
            withdrawn = false
            register()
        }
    }

    func close() {
        _ = avahi.threadedPollStop(poll)
        if let group { _ = avahi.entryGroupFree(group) }
        if let hostGroup { _ = avahi.entryGroupFree(hostGroup) }
        if let client { avahi.clientFree(client) }
        group = nil
        hostGroup = nil
        client = nil
        avahi.threadedPollFree(poll)
    }

    // MARK: Avahi's side (lock held)

    private func clientChanged(_ client: OpaquePointer?, _ state: Int32) {
        switch state {
        case AvahiLibrary.clientRunning:
            // The daemon is up (again): publish unless already done.
            if group == nil, !withdrawn { register(on: client) }
        case AvahiLibrary.clientCollision, AvahiLibrary.clientRegistering:
            // The daemon's own host name is being renamed: ours waits for it.
            if let group { _ = avahi.entryGroupReset(group) }
            if let hostGroup { _ = avahi.entryGroupReset(hostGroup) }
        case AvahiLibrary.clientFailure:
            logger.error("Avahi: lost the daemon (\(avahi.message(avahi.clientErrno(client)))); the device is no longer advertised")
        default:
            break
        }
    }

    private func groupChanged(_ changed: OpaquePointer?, _ state: Int32) {
        if changed != nil, changed == hostGroup {
            if state == AvahiLibrary.groupCollision || state == AvahiLibrary.groupFailure {
                logger.error("Avahi: publishing the host's addresses failed: \(avahi.message(avahi.clientErrno(client)))")
            }
            return
        }
        switch state {
        case AvahiLibrary.groupEstablished:
            logger.info("Avahi: advertising \(name).\(Self.serviceType).local")
        case AvahiLibrary.groupCollision:
            // Another host has the name: Avahi's next one ("Name #2"), and publish again.
            renameAndRegister()
        case AvahiLibrary.groupFailure:
            logger.error("Avahi: publishing failed: \(avahi.message(avahi.clientErrno(client)))")
        default:
            break
        }
    }

    private func renameAndRegister(attempt: Int = 1) {
        guard attempt <= 20, let next = avahi.alternativeServiceName(name) else {
            logger.error("Avahi: no free name after \(attempt - 1) tries; the device is not advertised")
            return
        }
        let renamed = String(cString: next)
        avahi.free(next)
        logger.notice("Avahi: another host claims \"\(name)\"; advertising as \"\(renamed)\"")
        name = renamed
        registerCast(attempt: attempt)
    }

    /// Both groups, from scratch.
    private func register(on client: OpaquePointer? = nil) {
        registerHost(on: client)
        registerCast(on: client)
    }

    /// An entry group of ours, new or emptied for new entries.
    private func entryGroup(_ existing: OpaquePointer?, on client: OpaquePointer) -> OpaquePointer? {
        if let existing {
            _ = avahi.entryGroupReset(existing)
            return existing
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        let made = avahi.entryGroupNew(client, { group, state, context in
            guard let context else { return }
            Unmanaged<AvahiPublisher>.fromOpaque(context).takeUnretainedValue().groupChanged(group, state)
        }, context)
        if made == nil { logger.error("Avahi: cannot make an entry group: \(avahi.message(avahi.clientErrno(client)))") }
        return made
    }

    private var hostName: String { "\(description.hostLabel).local" }

    /// The Cast service with its TXT and subtypes (none while it is dropped).
    private func registerCast(on client: OpaquePointer? = nil, attempt: Int = 0) {
        guard let client = client ?? self.client else { return }
        group = entryGroup(group, on: client)
        guard let group, !description.castDropped else { return }
        let txt = stringList(description.txt)
        defer { avahi.stringListFree(txt) }
        var problems: [String] = []
        func check(_ result: Int32, _ what: String) {
            if result < 0 { problems.append("\(what): \(avahi.message(result))") }
        }
        for index in interfaceIndexes {
            let added = avahi.entryGroupAddServiceStrlst(group, index, Self.anyProtocol, 0, name, Self.serviceType,
                                                          nil, hostName, UInt16(clamping: description.port), txt)
            if added == AvahiLibrary.errorCollision {
                // Someone on this very daemon has the name (the network's say comes later, as
                // a group state).
                renameAndRegister(attempt: attempt + 1)
                return
            }
            check(added, "service")
            for appId in description.appIds {
                check(avahi.entryGroupAddServiceSubtype(group, index, Self.anyProtocol, 0, name,
                                                        Self.serviceType, nil, "_\(appId)._sub.\(Self.serviceType)"), "subtype \(appId)")
            }
        }
        for problem in problems { logger.error("Avahi: \(problem)") }
        check(avahi.entryGroupCommit(group), "commit")
    }

    /// The host's addresses, and Android TV's remote service when the device has one.
    private func registerHost(on client: OpaquePointer? = nil) {
        guard let client = client ?? self.client else { return }
        hostGroup = entryGroup(hostGroup, on: client)
        guard let hostGroup else { return }
        var problems: [String] = []
        func check(_ result: Int32, _ what: String) {
            if result < 0 { problems.append("\(what): \(avahi.message(result))") }
        }
        for index in interfaceIndexes {
            if let remote = description.androidTVRemote {
                let remoteTXT = stringList(["bt=\(remote.mac)"])
                defer { avahi.stringListFree(remoteTXT) }
                check(avahi.entryGroupAddServiceStrlst(hostGroup, index, Self.anyProtocol, 0, description.friendlyName, "_androidtvremote2._tcp",
                                                       nil, hostName, UInt16(clamping: remote.port), remoteTXT), "Android TV remote service")
            }
            for address in addresses {
                var parsed: AvahiLibrary.Address = (0, 0, 0, 0, 0)
                let added = withUnsafeMutableBytes(of: &parsed) { storage -> Int32? in
                    guard avahi.addressParse(address, Self.anyProtocol, storage.baseAddress) != nil else { return nil }
                    // No reverse (PTR) record: the daemon already owns the address's reverse name.
                    return avahi.entryGroupAddAddress(hostGroup, index, Self.anyProtocol, AvahiLibrary.publishNoReverse, hostName,
                                                      UnsafeRawPointer(storage.baseAddress))
                }
                if let added { check(added, "address \(address)") }
            }
        }
        for problem in problems { logger.error("Avahi: \(problem)") }
        check(avahi.entryGroupCommit(hostGroup), "commit")
    }

    /// The TXT entries in order (Avahi prepends, so they go in backwards).
    private func stringList(_ entries: [String]) -> OpaquePointer? {
        var list: OpaquePointer?
        for entry in entries.reversed() { list = avahi.stringListAdd(list, entry) }
        return list
    }
}

/// The Avahi backend at work: publishes once, then follows the device's events as the
/// built-in ``Advertiser`` does (TXT with the running app, withdraw, restore elsewhere).
final class AvahiAdvertiser: Sendable {
    private let publisher: AvahiPublisher
    private let description: NIOLockedValueBox<CastServiceDescription>
    private let interfaces: [MDNSInterface]
    private let host: NIOLockedValueBox<String>

    init(interfaceNames: [String], host: String, description: CastServiceDescription, logger: Logger) throws {
        let interfaces = try MDNSInterface.find(named: interfaceNames)
        self.interfaces = interfaces
        self.host = NIOLockedValueBox(host)
        self.description = NIOLockedValueBox(description)
        publisher = try AvahiPublisher(description: description, addresses: Self.addresses(host: host, on: interfaces),
                                       interfaceIndexes: interfaceNames.isEmpty ? [] : interfaces.map { Int32($0.index) },
                                       logger: logger)
        publisher.publish()
    }

    /// The listening address, or every address of the interfaces when castsim listens on all.
    static func addresses(host: String, on interfaces: [MDNSInterface]) -> [String] {
        if host != "0.0.0.0", host != "::" { return [host] }
        return interfaces.flatMap { $0.ipv4 + $0.ipv6 }.compactMap(\.ipAddress)
    }

    /// The interfaces it publishes on, by name.
    var interfaceNames: [String] { interfaces.map(\.name) }

    func deviceEvent(_ event: DeviceEvent, snapshot: () -> DeviceSnapshot) {
        switch event.kind {
        case .appLaunched, .appStopped:
            let changed = description.withLockedValue { description in
                description = description.following(snapshot().runningApp)
                return description
            }
            publisher.update(changed)
        case .advertisementChanged(.withdraw):
            publisher.withdraw()
        case .advertisementChanged(.dropCast):
            let changed = description.withLockedValue { description in
                description.castDropped = true
                return description
            }
            if changed.androidTVRemote == nil { publisher.withdraw() } else { publisher.update(changed) }
        case .advertisementChanged(.restore(let newHost, let port)):
            if let newHost { host.withLockedValue { $0 = newHost } }
            let changed = description.withLockedValue { description in
                if let port { description.port = port }
                description.castDropped = false
                return description
            }
            publisher.restore(changed, addresses: Self.addresses(host: host.withLockedValue { $0 }, on: interfaces))
        default:
            break
        }
    }

    func shutDown() {
        publisher.withdraw()
        publisher.close()
    }
}
