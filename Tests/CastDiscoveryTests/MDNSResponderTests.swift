import CastDiscovery
import Testing

/// The responder driven without sockets under a manual clock; its random delays are the
/// middle of each range, so every time below is exact.
@Suite("The mDNS responder: probing, announcing, answering, conflicts, goodbyes")
struct MDNSResponderTests {
    static let uuid = "0123456789abcdef0123456789abcdef"
    static let address: [UInt8] = [10, 0, 0, 1]
    static let browser = MDNSResponder.Peer(address: [10, 0, 0, 2], port: 5353)

    static func description(port: Int = 8009) -> CastServiceDescription {
        CastServiceDescription(uuid: uuid, friendlyName: "Den", modelName: "Chromecast", capabilities: 5, appIds: ["CC1AD845"], port: port)
    }

    static func responder() -> MDNSResponder {
        MDNSResponder(description: description(), addresses: [address]) { range in (range.lowerBound + range.upperBound) / 2 }
    }

    static var instance: DNSName { description().instanceName }
    static var host: DNSName { description().hostName }

    static func packets(_ outputs: [MDNSResponder.Output]) -> [MDNSResponder.Packet] {
        outputs.compactMap { if case .send(let packet) = $0 { packet } else { nil } }
    }

    static func events(_ outputs: [MDNSResponder.Output]) -> [MDNSResponder.Event] {
        outputs.compactMap { if case .event(let event) = $0 { event } else { nil } }
    }

    /// A responder that has probed and announced, at t = 2.125.
    static func announced() -> MDNSResponder {
        var responder = responder()
        _ = responder.start(now: 0)
        var now = 0.0
        while let next = responder.nextDeadline, next <= 3 {
            now = next
            _ = responder.advance(now: now)
        }
        return responder
    }

    static func query(_ questions: [DNSQuestion], known: [DNSRecord] = [], authorities: [DNSRecord] = [], id: UInt16 = 0) -> [UInt8] {
        DNSMessage(id: id, questions: questions, answers: known, authorities: authorities).encoded()
    }

    @Test("Start-up: three probes 250 ms apart after a random wait, then two announcements a second apart")
    func startUp() throws {
        var responder = Self.responder()
        #expect(responder.start(now: 0).isEmpty)
        #expect(responder.nextDeadline == 0.125)
        var probes: [MDNSResponder.Packet] = []
        for time in [0.125, 0.375, 0.625] {
            #expect(responder.nextDeadline == time)
            probes += Self.packets(responder.advance(now: time))
        }
        #expect(probes.count == 3)
        let probe = probes[0].message
        #expect(probes[0].destination == .multicast(ipv6: nil) && !probe.isResponse)
        #expect(probe.questions == [DNSQuestion(name: Self.instance, type: .any, unicastResponse: true),
                                    DNSQuestion(name: Self.host, type: .any, unicastResponse: true)])
        #expect(probe.authorities.map(\.type) == [.srv, .txt, .a])
        #expect(responder.nextDeadline == 0.875)
        let first = Self.packets(responder.advance(now: 0.875))
        let announcement = try #require(first.first?.message)
        #expect(announcement.isResponse && announcement.flags == 0x8400 && announcement.questions.isEmpty)
        #expect(announcement.answers.map(\.type) == [.ptr, .ptr, .ptr, .srv, .txt, .a])
        #expect(announcement.answers.filter(\.cacheFlush).map(\.type) == [.srv, .txt, .a])
        #expect(announcement.answers.map(\.ttl) == [4500, 4500, 4500, 120, 4500, 120])
        #expect(!responder.isAnnounced)
        let second = responder.advance(now: 1.875)
        #expect(Self.packets(second).first?.message == announcement)
        #expect(Self.events(second) == [.announced(instance: Self.instance.labels[0])])
        #expect(responder.isAnnounced && responder.nextDeadline == nil)
    }

    @Test("A QM PTR query: the shared answer after 70 ms, with SRV, TXT and A as additionals")
    func ptrQuery() throws {
        var responder = Self.announced()
        let outputs = responder.received(Self.query([DNSQuestion(name: DNSName("_googlecast._tcp.local"), type: .ptr)]),
                                         from: Self.browser, now: 5)
        #expect(outputs.isEmpty && responder.nextDeadline == 5.07)
        let answer = try #require(Self.packets(responder.advance(now: 5.07)).first)
        #expect(answer.destination == .multicast(ipv6: false))
        #expect(answer.message.answers == [DNSRecord(name: DNSName("_googlecast._tcp.local"), data: .ptr(Self.instance), ttl: 4500)])
        #expect(answer.message.additionals.map(\.type) == [.srv, .txt, .a])
    }

    @Test("QU: a record multicast within a quarter of its TTL is answered unicast; one that was not, multicast")
    func unicastQuestion() throws {
        var responder = Self.announced()
        let srv = DNSQuestion(name: Self.instance, type: .srv, unicastResponse: true)
        // The SRV went out in the announcement at 1.875; 30 s is a quarter of its 120.
        let soon = Self.packets(responder.received(Self.query([srv]), from: Self.browser, now: 10))
        #expect(soon.map(\.destination) == [.unicast(Self.browser)])
        #expect(soon.first?.message.answers.map(\.type) == [.srv] && soon.first?.message.additionals.map(\.type) == [.a])
        let later = Self.packets(responder.received(Self.query([srv]), from: Self.browser, now: 40))
        #expect(later.map(\.destination) == [.multicast(ipv6: false)])
    }

    @Test("A legacy unicast query (not from port 5353): its id and questions back, TTL 10, no cache-flush bits")
    func legacyQuery() throws {
        var responder = Self.announced()
        let asker = MDNSResponder.Peer(address: [10, 0, 0, 3], port: 40000)
        let question = DNSQuestion(name: Self.host, type: .a)
        let reply = try #require(Self.packets(responder.received(Self.query([question], id: 0xBEEF), from: asker, now: 5)).first)
        #expect(reply.destination == .unicast(asker))
        #expect(reply.message.id == 0xBEEF && reply.message.questions == [question])
        #expect(reply.message.answers == [DNSRecord(name: Self.host, data: .a(Self.address), ttl: 10)])
    }

    @Test("Known answers at half their TTL or more are not repeated; an AAAA we lack gets an NSEC")
    func knownAnswersAndNegative() throws {
        var responder = Self.announced()
        let ptr = DNSRecord(name: DNSName("_googlecast._tcp.local"), data: .ptr(Self.instance), ttl: 4000)
        #expect(responder.received(Self.query([DNSQuestion(name: ptr.name, type: .ptr)], known: [ptr]), from: Self.browser, now: 5).isEmpty)
        #expect(responder.nextDeadline == nil)
        let stale = ptr.with(ttl: 100)
        _ = responder.received(Self.query([DNSQuestion(name: ptr.name, type: .ptr)], known: [stale]), from: Self.browser, now: 6)
        #expect(responder.nextDeadline != nil)
        let negative = Self.packets(responder.received(Self.query([DNSQuestion(name: Self.host, type: .aaaa)]), from: Self.browser, now: 7))
        #expect(negative.first?.message.answers == [DNSRecord(name: Self.host, data: .nsec(next: Self.host, types: [.a]), ttl: 120,
                                                              cacheFlush: true)])
    }

    @Test("A conflicting answer while probing: the next name, and probing again with it")
    func conflictWhileProbing() throws {
        var responder = Self.responder()
        _ = responder.start(now: 0)
        _ = responder.advance(now: 0.125)
        let rival = DNSMessage(flags: DNSMessage.responseFlags, answers: [
            DNSRecord(name: Self.instance, data: .srv(priority: 0, weight: 0, port: 9000, target: DNSName("other.local")), ttl: 120,
                      cacheFlush: true),
        ])
        let outputs = responder.received(rival.encoded(), from: Self.browser, now: 0.2)
        let renamed = "Chromecast-\(Self.uuid) (2)"
        #expect(Self.events(outputs) == [.renamed(from: "Chromecast-\(Self.uuid)", to: renamed)])
        #expect(responder.description.hostLabel == "01234567-89ab-cdef-0123-456789abcdef-2")
        let probe = try #require(Self.packets(responder.advance(now: 0.325)).first?.message)
        #expect(probe.questions.map(\.name) == [DNSName(labels: [renamed, "_googlecast", "_tcp", "local"]),
                                                DNSName(labels: ["01234567-89ab-cdef-0123-456789abcdef-2", "local"])])
    }

    @Test("A conflicting address for our host after announcing also renames; our own records coming back do not")
    func conflictAfterAnnouncing() {
        var responder = Self.announced()
        let own = DNSMessage(flags: DNSMessage.responseFlags, answers: [DNSRecord(name: Self.host, data: .a(Self.address), ttl: 120, cacheFlush: true)])
        #expect(responder.received(own.encoded(), from: Self.browser, now: 5).isEmpty)
        let other = DNSMessage(flags: DNSMessage.responseFlags, answers: [DNSRecord(name: Self.host, data: .a([10, 0, 0, 9]), ttl: 120, cacheFlush: true)])
        #expect(Self.events(responder.received(other.encoded(), from: Self.browser, now: 6)).count == 1)
        #expect(!responder.isAnnounced && responder.nextDeadline != nil)
    }

    @Test("A device that moves: its own last announcement, arriving after the move, is no rival for 2 s; then it is")
    func moveIsNotAConflictWithItself() throws {
        var responder = Self.announced()
        // What the device multicast just before it moved, as the network hands it back.
        let beforeMove = DNSMessage(flags: DNSMessage.responseFlags, answers: Self.description().records(addresses: [Self.address]))
        _ = responder.restore(Self.description(port: 8010), addresses: [[10, 0, 0, 5]], now: 10)
        #expect(Self.events(responder.received(beforeMove.encoded(), from: Self.browser, now: 10.05)).isEmpty)
        var announcements: [DNSMessage] = []
        while let next = responder.nextDeadline {
            announcements += Self.packets(responder.advance(now: next)).map(\.message).filter(\.isResponse)
        }
        #expect(responder.description.instanceLabel == "Chromecast-\(Self.uuid)")
        #expect(announcements.first?.answers.contains { $0.data == .a([10, 0, 0, 5]) } == true)
        // Long after the move, another host with the old data is a conflict like any other.
        let renamed = Self.events(responder.received(beforeMove.encoded(), from: Self.browser, now: 20))
        #expect(renamed == [.renamed(from: "Chromecast-\(Self.uuid)", to: "Chromecast-\(Self.uuid) (2)")])
    }

    @Test("Simultaneous probes: the lexicographically later records win; ours coming back is no rival")
    func tieBreak() {
        var responder = Self.responder()
        _ = responder.start(now: 0)
        _ = responder.advance(now: 0.125)
        let question = [DNSQuestion(name: Self.instance, type: .any, unicastResponse: true)]
        // Our own probe, looped back.
        let ourProbe = DNSMessage(questions: question, authorities: Self.description().records(addresses: [Self.address])
            .filter { $0.name == Self.instance })
        _ = responder.received(ourProbe.encoded(), from: Self.browser, now: 0.2)
        #expect(responder.nextDeadline == 0.375)
        // The same records but an earlier SRV port (8008 < 8009): we win and go on.
        func rival(port: Int) -> DNSMessage {
            DNSMessage(questions: question, authorities: Self.description(port: port).records(addresses: [Self.address])
                .filter { $0.name == Self.instance })
        }
        _ = responder.received(rival(port: 8008).encoded(), from: Self.browser, now: 0.2)
        #expect(responder.nextDeadline == 0.375)
        // A later one (9000): we lose, and probe again a second later.
        _ = responder.received(rival(port: 9000).encoded(), from: Self.browser, now: 0.2)
        #expect(responder.nextDeadline == 1.2)
    }

    @Test("An app starts: the new TXT (st=1, rs) is announced twice with the cache-flush bit")
    func txtUpdate() throws {
        var responder = Self.announced()
        var busy = Self.description()
        busy.busy = true
        busy.runningApp = "Default Media Receiver"
        let outputs = Self.packets(responder.update(busy, addresses: [Self.address], now: 10))
        let txt = try #require(outputs.first?.message.answers.first)
        #expect(outputs.count == 1 && outputs.first?.message.answers.count == 1)
        #expect(txt.type == .txt && txt.cacheFlush)
        guard case .txt(let strings) = txt.data else { return }
        #expect(strings.contains(Array("st=1".utf8)) && strings.contains(Array("rs=Default Media Receiver".utf8)))
        #expect(Self.packets(responder.advance(now: 11)).first?.message.answers == [txt])
    }

    @Test("Withdraw: every record with TTL 0, then no answers; restore on another port probes and announces the new SRV")
    func withdrawAndRestore() throws {
        var responder = Self.announced()
        let goodbye = try #require(Self.packets(responder.withdraw(now: 10)).first?.message)
        #expect(goodbye.answers.count == 6 && goodbye.answers.allSatisfy { $0.ttl == 0 })
        #expect(responder.received(Self.query([DNSQuestion(name: DNSName("_googlecast._tcp.local"), type: .ptr)]), from: Self.browser, now: 11).isEmpty)
        #expect(responder.nextDeadline == nil)
        _ = responder.restore(Self.description(port: 8010), addresses: [Self.address], now: 20)
        var announcements: [DNSMessage] = []
        while let next = responder.nextDeadline {
            announcements += Self.packets(responder.advance(now: next)).map(\.message).filter(\.isResponse)
        }
        #expect(announcements.count == 2)
        #expect(announcements[0].answers.contains { $0.data == .srv(priority: 0, weight: 0, port: 8010, target: Self.host) })
    }

    @Test("An Android TV's remote service: answered with its SRV, TXT bt and the host's address; when Cast drops, only Cast's records say goodbye")
    func androidTVRemoteStaysWhenCastDrops() throws {
        var tv = Self.description()
        tv.androidTVRemote = .init(mac: "01:23:45:67:89:AB")
        var responder = MDNSResponder(description: tv, addresses: [Self.address]) { range in (range.lowerBound + range.upperBound) / 2 }
        _ = responder.start(now: 0)
        while let next = responder.nextDeadline, next <= 3 { _ = responder.advance(now: next) }
        let remoteType = DNSName("_androidtvremote2._tcp.local"), remote = DNSName("Den._androidtvremote2._tcp.local")
        func ask(at now: Double) throws -> DNSMessage? {
            _ = responder.received(Self.query([DNSQuestion(name: remoteType, type: .ptr)]), from: Self.browser, now: now)
            return Self.packets(responder.advance(now: now + 0.07)).first?.message
        }
        let answer = try #require(try ask(at: 5))
        #expect(answer.answers == [DNSRecord(name: remoteType, data: .ptr(remote), ttl: 4500)])
        #expect(answer.additionals.contains { $0.name == remote && $0.data == .srv(priority: 0, weight: 0, port: 6466, target: Self.host) })
        #expect(answer.additionals.contains { $0.name == remote && $0.data == .txt([Array("bt=01:23:45:67:89:AB".utf8)]) })
        #expect(answer.additionals.contains { $0.name == Self.host && $0.type == .a })

        var dropped = tv
        dropped.castDropped = true
        let goodbye = try #require(Self.packets(responder.update(dropped, addresses: [Self.address], now: 10)).first?.message)
        #expect(goodbye.answers.allSatisfy { $0.ttl == 0 })
        // Cast's PTR, its subtype, its SRV and TXT, and the service type in the enumeration.
        #expect(Set(goodbye.answers.map(\.name)) == [DNSName("_googlecast._tcp.local"), DNSName("_CC1AD845._sub._googlecast._tcp.local"),
                                                     Self.instance, DNSName("_services._dns-sd._udp.local")])
        #expect(goodbye.answers.contains { $0.data == .ptr(DNSName("_googlecast._tcp.local")) })
        #expect(!goodbye.answers.contains { $0.data == .ptr(remoteType) })
        #expect(responder.received(Self.query([DNSQuestion(name: DNSName("_googlecast._tcp.local"), type: .ptr)]), from: Self.browser, now: 12).isEmpty)
        #expect(try ask(at: 20)?.answers == [DNSRecord(name: remoteType, data: .ptr(remote), ttl: 4500)])
    }

    @Test("Shutdown says goodbye; malformed packets are reported, never answered, never a crash")
    func shutdownAndMalformed() throws {
        var responder = Self.announced()
        #expect(Self.events(responder.received([1, 2, 3], from: Self.browser, now: 5)).count == 1)
        #expect(Self.events(responder.received([UInt8](repeating: 0xC0, count: 40), from: Self.browser, now: 5)).count == 1)
        let goodbye = try #require(Self.packets(responder.shutdown(now: 6)).first?.message)
        #expect(goodbye.answers.allSatisfy { $0.ttl == 0 })
        #expect(responder.shutdown(now: 7).isEmpty)
    }
}
