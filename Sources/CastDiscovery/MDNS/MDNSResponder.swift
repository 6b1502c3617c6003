/// An mDNS responder for one Cast device on one network interface (RFC 6762, RFC 6763),
/// as a pure state machine: inputs carry `now` (seconds on a monotonic clock), outputs
/// are packets to send and events to log, and ``nextDeadline`` says when to call
/// ``advance(now:)``. Randomness (the probe and response delays) is injected, so tests
/// replay it exactly.
public struct MDNSResponder: Sendable {
    /// Who sent a packet, or who gets a unicast reply.
    public struct Peer: Sendable, Hashable {
        /// 4 bytes (IPv4) or 16 (IPv6).
        public var address: [UInt8]
        public var port: Int

        public init(address: [UInt8], port: Int) {
            self.address = address
            self.port = port
        }
    }

    public enum Destination: Sendable, Equatable {
        /// The mDNS group of both families, or of one (`ipv6` true or false).
        case multicast(ipv6: Bool?)
        case unicast(Peer)
    }

    public struct Packet: Sendable, Equatable {
        public var message: DNSMessage
        public var destination: Destination

        public init(message: DNSMessage, destination: Destination) {
            self.message = message
            self.destination = destination
        }
    }

    public enum Event: Sendable, Equatable {
        /// Probing found the names free and the records went out.
        case announced(instance: String)
        /// Another host claims a name: the device takes the next one and probes again.
        case renamed(from: String, to: String)
        /// A packet that is no DNS message.
        case malformed(String)
    }

    public enum Output: Sendable, Equatable {
        case send(Packet)
        case event(Event)
    }

    enum State: Sendable, Equatable {
        case stopped
        case waitingToProbe(until: Double)
        case probing(sent: Int, next: Double)
        case announcing(sent: Int, next: Double)
        case announced
        case withdrawn
    }

    public private(set) var description: CastServiceDescription
    public private(set) var addresses: [[UInt8]]
    private(set) var records: [DNSRecord]
    private(set) var state: State = .stopped
    /// When each record last went out by multicast, for the 1-second rule and QU answers.
    private var lastMulticast: [DNSRecord: Double] = [:]
    /// Shared answers waiting out their 20–120 ms delay, aggregated (RFC 6762 §6).
    private var delayed: (due: Double, answers: [DNSRecord], ipv6: Bool?)?
    private var conflicts = 0
    /// The records before the last restore or update, still ours until `until`: our own
    /// multicast comes back to us (loopback), and a copy sent a moment before the change
    /// may arrive after it. Without this, a device that moves renames itself.
    private var previous: (records: [DNSRecord], until: Double)?
    static let echoWindow = 2.0
    /// What the current announcement repeats: the changed records after an update, all
    /// of them (nil) after probing.
    private var announcing: [DNSRecord]?
    private let baseInstance: String
    private let baseHost: String
    private let random: @Sendable (ClosedRange<Double>) -> Double

    /// mDNS's port (RFC 6762 §5.1): a query from any other is a legacy unicast one.
    public static let port = 5353
    public static let probeInterval = 0.25
    public static let announceInterval = 1.0
    public static let legacyTTL: UInt32 = 10

    public init(description: CastServiceDescription, addresses: [[UInt8]],
                random: @escaping @Sendable (ClosedRange<Double>) -> Double = { Double.random(in: $0) }) {
        self.description = description
        self.addresses = addresses
        self.random = random
        baseInstance = description.instanceLabel
        baseHost = description.hostLabel
        records = description.records(addresses: addresses)
    }

    public var isAnnounced: Bool { state == .announced }

    public var nextDeadline: Double? {
        let stateDeadline: Double? = switch state {
        case .waitingToProbe(let until): until
        case .probing(_, let next), .announcing(_, let next): next
        case .stopped, .announced, .withdrawn: nil
        }
        switch (stateDeadline, delayed?.due) {
        case (let a?, let b?): return min(a, b)
        case (let a?, nil): return a
        case (nil, let b?): return b
        case (nil, nil): return nil
        }
    }

    // MARK: Inputs

    /// Starts probing after a random 0–250 ms (RFC 6762 §8.1), so devices started together
    /// do not probe in lockstep.
    public mutating func start(now: Double) -> [Output] {
        state = .waitingToProbe(until: now + random(0...Self.probeInterval))
        return []
    }

    public mutating func advance(now: Double) -> [Output] {
        var outputs: [Output] = []
        switch state {
        case .waitingToProbe(let until) where now >= until:
            outputs.append(.send(probe()))
            state = .probing(sent: 1, next: now + Self.probeInterval)
        case .probing(let sent, let next) where now >= next:
            if sent < 3 {
                outputs.append(.send(probe()))
                state = .probing(sent: sent + 1, next: now + Self.probeInterval)
            } else {
                announcing = nil
                outputs.append(.send(announcement(records, now: now)))
                state = .announcing(sent: 1, next: now + Self.announceInterval)
            }
        case .announcing(let sent, let next) where now >= next:
            outputs.append(.send(announcement(announcing ?? records, now: now)))
            if sent + 1 >= 2 {
                state = .announced
                outputs.append(.event(.announced(instance: description.instanceLabel)))
            } else {
                state = .announcing(sent: sent + 1, next: now + Self.announceInterval)
            }
        default:
            break
        }
        if let pending = delayed, now >= pending.due {
            delayed = nil
            let fresh = pending.answers.filter { recentlyMulticast($0, now: now, within: 1) == false }
            if !fresh.isEmpty {
                outputs.append(.send(response(answers: fresh, additionals: additionals(for: fresh), to: .multicast(ipv6: pending.ipv6), now: now)))
            }
        }
        return outputs
    }

    /// One datagram from the network.
    public mutating func received(_ bytes: [UInt8], from peer: Peer, now: Double) -> [Output] {
        let message: DNSMessage
        do {
            message = try DNSMessage(decoding: bytes)
        } catch {
            return [.event(.malformed("from \(peer): \(error)"))]
        }
        return received(message, from: peer, now: now)
    }

    /// One message from the network, decoded once for every device a process advertises.
    /// A message that names none of ``answerableNames`` in its questions and none of
    /// ``claimedNames`` in its records changes nothing and gets no answer.
    public mutating func received(_ message: DNSMessage, from peer: Peer, now: Double) -> [Output] {
        // Only standard queries and responses (RFC 6762 §18.3, §18.11).
        guard message.opcode == 0, message.rcode == 0 else { return [] }
        var outputs: [Output] = []
        if message.isResponse {
            if conflicts(in: message.answers + message.additionals, now: now) { outputs += rename(now: now) }
            return outputs
        }
        switch state {
        case .probing, .waitingToProbe:
            if losesTieBreak(against: message.authorities) {
                // The other prober wins: try again in a second (RFC 6762 §8.2).
                state = .waitingToProbe(until: now + 1)
            }
        case .announcing, .announced:
            outputs += answer(message, from: peer, now: now)
        case .stopped, .withdrawn:
            break
        }
        return outputs
    }

    /// The device changed (an app started, the port moved): what changed is announced,
    /// twice; records it no longer has are said goodbye to.
    public mutating func update(_ description: CastServiceDescription, addresses: [[UInt8]], now: Double) -> [Output] {
        var description = description
        description.instanceOverride = self.description.instanceOverride
        description.hostOverride = self.description.hostOverride
        let old = records
        self.description = description
        self.addresses = addresses
        records = description.records(addresses: addresses)
        previous = (old, now + Self.echoWindow)
        guard state == .announced || isAnnouncing else { return [] }
        let gone = old.filter { record in !records.contains { $0.sameRecord(as: record) } }
        let changed = records.filter { record in !old.contains { $0.sameRecord(as: record) } }
        var outputs: [Output] = []
        // Unique records that changed replace the old at once (cache-flush); a shared
        // record that went away needs its goodbye.
        let goodbyes = gone.filter { record in !record.cacheFlush || !changed.contains { $0.name == record.name && $0.type == record.type } }
        if !goodbyes.isEmpty { outputs.append(.send(announcement(goodbyes.map { $0.with(ttl: 0) }, now: now))) }
        if !changed.isEmpty {
            // During a first announcement, the second still says everything.
            announcing = state == .announced ? changed : nil
            outputs.append(.send(announcement(changed, now: now)))
            state = .announcing(sent: 1, next: now + Self.announceInterval)
        }
        return outputs
    }

    /// Goodbye (every record with TTL 0, RFC 6762 §10.1): browsers drop the device.
    public mutating func withdraw(now: Double) -> [Output] {
        defer {
            state = .withdrawn
            delayed = nil
        }
        guard state != .withdrawn, state != .stopped else { return [] }
        return [.send(announcement(records.map { $0.with(ttl: 0) }, now: now))]
    }

    /// Back after a withdrawal (maybe at another address or port): probe and announce again.
    public mutating func restore(_ description: CastServiceDescription, addresses: [[UInt8]], now: Double) -> [Output] {
        var description = description
        description.instanceOverride = self.description.instanceOverride
        description.hostOverride = self.description.hostOverride
        self.description = description
        self.addresses = addresses
        previous = (records, now + Self.echoWindow)
        records = description.records(addresses: addresses)
        lastMulticast = [:]
        return start(now: now)
    }

    /// The device stops: goodbyes, then silence.
    public mutating func shutdown(now: Double) -> [Output] {
        let outputs = withdraw(now: now)
        state = .stopped
        return outputs
    }

    // MARK: Probing and conflicts

    private var isAnnouncing: Bool {
        if case .announcing = state { return true }
        return false
    }

    /// The names this device claims: its instance and its host (a group: its instance;
    /// the host is its leader's). Only records of these names can conflict with it.
    public var claimedNames: Set<DNSName> { Set(claimedNameList) }
    private var uniqueNames: Set<DNSName> { claimedNames }
    private var claimedNameList: [DNSName] { description.isGroup ? [description.instanceName] : [description.instanceName, description.hostName] }

    /// The names of the records it has: a question about any other name is not for it.
    public var answerableNames: Set<DNSName> { Set(records.map(\.name)) }

    private func probe() -> Packet {
        let questions = claimedNameList.map {
            DNSQuestion(name: $0, type: .any, unicastResponse: true)
        }
        let message = DNSMessage(questions: questions, authorities: records.filter { uniqueNames.contains($0.name) })
        return Packet(message: message, destination: .multicast(ipv6: nil))
    }

    /// Another host answers for one of our names with data that is not ours.
    private func conflicts(in records: [DNSRecord], now: Double) -> Bool {
        let names = uniqueNames
        let echoes = previous.flatMap { now < $0.until ? $0.records : nil } ?? []
        return records.contains { record in
            names.contains(record.name) && [DNSType.srv, .txt, .a, .aaaa].contains(record.type) && record.ttl > 0
                && !self.records.contains { $0.sameRecord(as: record) }
                && !echoes.contains { $0.sameRecord(as: record) }
                // Our own TXT, announced a moment ago and still on its way, is no rival.
                && !(record.type == .txt && state == .announced)
        }
    }

    /// RFC 6762 §8.2: compare the two probes' authority records for each name we both
    /// claim, sorted; the lexicographically later set wins. Identical sets are our own
    /// probe come back (multicast loopback): no conflict.
    private func losesTieBreak(against theirs: [DNSRecord]) -> Bool {
        for name in uniqueNames {
            let rival = theirs.filter { $0.name == name }
            guard !rival.isEmpty else { continue }
            let ours = records.filter { $0.name == name }
            let order = Self.compare(ours, rival)
            if order < 0 { return true }
        }
        return false
    }

    static func compare(_ lhs: [DNSRecord], _ rhs: [DNSRecord]) -> Int {
        let left = lhs.map(sortKey).sorted(by: lexicographicallyPrecedes)
        let right = rhs.map(sortKey).sorted(by: lexicographicallyPrecedes)
        for (a, b) in zip(left, right) where a != b {
            return lexicographicallyPrecedes(a, b) ? -1 : 1
        }
        return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
    }

    /// Class, type, then the uncompressed rdata (RFC 6762 §8.2.1).
    private static func sortKey(_ record: DNSRecord) -> [UInt8] {
        var writer = DNSWriter()
        writer.written = [:]
        writer.u16(record.recordClass)
        writer.u16(record.type.rawValue)
        var rdata = DNSWriter()
        rdata.record(DNSRecord(name: DNSName(labels: []), data: record.data, ttl: 0))
        // Skip the empty owner (1), type, class, TTL (8) and length (2): the rdata alone.
        return writer.bytes + Array(rdata.bytes.dropFirst(11))
    }

    private static func lexicographicallyPrecedes(_ a: [UInt8], _ b: [UInt8]) -> Bool { a.lexicographicallyPrecedes(b) }

    /// The next free-looking names: `Model-id (2)` and `uuid-2.local`, and probing again.
    private mutating func rename(now: Double) -> [Output] {
        let old = description.instanceLabel
        conflicts += 1
        let number = conflicts + 1
        if description.isGroup {
            // As real groups are renamed: `Google-Cast-Group-<hex>-1`; the host stays the leader's.
            description.instanceOverride = "\(baseInstance)-\(number - 1)"
        } else {
            description.instanceOverride = "\(baseInstance) (\(number))"
            description.hostOverride = "\(baseHost)-\(number)"
        }
        records = description.records(addresses: addresses)
        delayed = nil
        // Fifteen conflicts in a row: back off 5 s between tries (RFC 6762 §8.1).
        let wait = conflicts >= 15 ? 5 : random(0...Self.probeInterval)
        state = .waitingToProbe(until: now + wait)
        return [.event(.renamed(from: old, to: description.instanceLabel))]
    }

    // MARK: Answering

    private mutating func answer(_ query: DNSMessage, from peer: Peer, now: Double) -> [Output] {
        let legacy = peer.port != Self.port
        var unicast: [DNSRecord] = []
        var multicast: [DNSRecord] = []
        let isProbe = !query.authorities.isEmpty
        for question in query.questions where question.recordClass == 1 || question.recordClass == 255 {
            var matches = records.filter { $0.name == question.name && (question.type == .any || $0.type == question.type) }
            if matches.isEmpty, let negative = negativeAnswer(for: question) { matches = [negative] }
            // Known-answer suppression (RFC 6762 §7.1): the asker already has it, fresh enough.
            matches = matches.filter { record in
                !query.answers.contains { $0.sameRecord(as: record) && $0.ttl >= record.ttl / 2 }
            }
            for record in matches {
                if legacy {
                    unicast.append(record)
                } else if question.unicastResponse, recentlyMulticast(record, now: now, within: Double(record.ttl) / 4) {
                    unicast.append(record)
                } else {
                    multicast.append(record)
                }
            }
        }
        var outputs: [Output] = []
        if !unicast.isEmpty {
            let unique = Array(Set(unicast))
            if legacy {
                // RFC 6762 §6.7: the query's id and questions, short TTLs, no cache-flush bits.
                let shorten = { (record: DNSRecord) -> DNSRecord in
                    var copy = record.with(ttl: min(record.ttl, Self.legacyTTL))
                    copy.cacheFlush = false
                    return copy
                }
                let message = DNSMessage(id: query.id, flags: DNSMessage.responseFlags, questions: query.questions,
                                         answers: unique.map(shorten), additionals: additionals(for: unique).map(shorten))
                outputs.append(.send(Packet(message: message, destination: .unicast(peer))))
            } else {
                outputs.append(.send(Packet(message: DNSMessage(flags: DNSMessage.responseFlags, answers: unique,
                                                                additionals: additionals(for: unique)),
                                            destination: .unicast(peer))))
            }
        }
        let ipv6 = peer.address.count == 16
        // A record multicast less than a second ago is not sent again, unless a prober asks.
        let due = Array(Set(multicast)).filter { isProbe || !recentlyMulticast($0, now: now, within: 1) }
        let shared = due.filter { !$0.cacheFlush }
        let uniqueNow = due.filter(\.cacheFlush)
        if !uniqueNow.isEmpty {
            outputs.append(.send(response(answers: uniqueNow, additionals: additionals(for: uniqueNow), to: .multicast(ipv6: ipv6), now: now)))
        }
        if !shared.isEmpty {
            // Shared records wait 20–120 ms, so that several responders do not collide.
            if var pending = delayed {
                pending.answers = Array(Set(pending.answers + shared))
                if pending.ipv6 != ipv6 { pending.ipv6 = nil }
                delayed = pending
            } else {
                delayed = (now + random(0.02...0.12), shared, ipv6)
            }
        }
        return outputs
    }

    /// RFC 6762 §6.1: "this name has no record of that type" as an NSEC, for our names.
    private func negativeAnswer(for question: DNSQuestion) -> DNSRecord? {
        guard uniqueNames.contains(question.name) else { return nil }
        let types = Set(records.filter { $0.name == question.name }.map(\.type))
        guard !types.isEmpty, !types.contains(question.type) else { return nil }
        let ttl = question.name == description.hostName ? CastServiceDescription.hostTTL : CastServiceDescription.otherTTL
        return DNSRecord(name: question.name, data: .nsec(next: question.name, types: types.sorted { $0.rawValue < $1.rawValue }),
                         ttl: ttl, cacheFlush: true)
    }

    /// RFC 6763 §12: a PTR answer brings the instance's SRV and TXT and the host's
    /// addresses; an SRV answer the addresses.
    private func additionals(for answers: [DNSRecord]) -> [DNSRecord] {
        var extra: [DNSRecord] = []
        func add(_ record: DNSRecord) {
            if !answers.contains(record), !extra.contains(record) { extra.append(record) }
        }
        for answer in answers {
            switch answer.data {
            case .ptr(let target) where records.contains { $0.name == target && $0.type == .srv }:
                // One of our instances (Cast's, or Android TV's remote).
                for record in records where record.name == target && (record.type == .srv || record.type == .txt) { add(record) }
                for record in records where record.name == description.hostName { add(record) }
            case .srv(_, _, _, let target):
                for record in records where record.name == target { add(record) }
            default:
                break
            }
        }
        return extra
    }

    private func recentlyMulticast(_ record: DNSRecord, now: Double, within seconds: Double) -> Bool {
        guard let last = lastMulticast[record.with(ttl: record.ttl)] else { return false }
        return now - last < seconds
    }

    private mutating func announcement(_ records: [DNSRecord], now: Double) -> Packet {
        response(answers: records, additionals: [], to: .multicast(ipv6: nil), now: now)
    }

    private mutating func response(answers: [DNSRecord], additionals: [DNSRecord], to destination: Destination, now: Double) -> Packet {
        if case .multicast = destination {
            for record in answers + additionals where record.ttl > 0 { lastMulticast[record] = now }
        }
        return Packet(message: DNSMessage(flags: DNSMessage.responseFlags, answers: answers, additionals: additionals),
                      destination: destination)
    }
}
