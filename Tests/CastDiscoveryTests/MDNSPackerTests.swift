import CastDiscovery
import Testing

/// Many devices' responders answering at once, as one process's responder sends them.
@Suite("Packing the answers of many devices into few packets")
struct MDNSPackerTests {
    static let ptrQuery = DNSMessage(questions: [DNSQuestion(name: DNSName("_googlecast._tcp.local"), type: .ptr, unicastResponse: false)])
    static let browser = MDNSResponder.Peer(address: [10, 0, 0, 2], port: 5353)

    /// `count` announced devices on 10.0.1.x, each with its own UUID and name.
    static func devices(_ count: Int) -> [MDNSResponder] {
        (0..<count).map { index in
            let hex = String(index + 1, radix: 16)
            let description = CastServiceDescription(uuid: String(repeating: "0", count: 32 - hex.count) + hex, friendlyName: "Room \(index)",
                                                     modelName: "Chromecast", capabilities: 5, appIds: [], port: 8009)
            var responder = MDNSResponder(description: description, addresses: [[10, 0, 1, UInt8(index + 1)]]) { $0.lowerBound }
            _ = responder.start(now: 0)
            while let next = responder.nextDeadline, next <= 3 { _ = responder.advance(now: next) }
            return responder
        }
    }

    @Test("Forty devices' answers to one PTR query: every answer and its SRV, TXT and A, in packets of at most 1,440 bytes, three or so devices to a packet")
    func answersShareAPacket() throws {
        var responders = Self.devices(40)
        var packets: [MDNSResponder.Packet] = []
        for index in responders.indices {
            // Shared records wait 20-120 ms (here the least): the query, then the delay's end.
            _ = responders[index].received(Self.ptrQuery, from: Self.browser, now: 10)
            packets += responders[index].advance(now: 10.02).compactMap { if case .send(let packet) = $0 { packet } else { nil } }
        }
        #expect(packets.count == 40)
        let packed = MDNSPacker.pack(packets)
        // About 450 bytes a device (PTR, SRV, TXT, A): three to a packet.
        #expect(packed.count <= 14, "\(packed.count) packets")
        for packet in packed {
            #expect(packet.message.encoded().count <= MDNSPacker.maximumSize)
            let decoded = try DNSMessage(decoding: packet.message.encoded())
            #expect(decoded.isResponse && decoded.answers.allSatisfy { $0.type == .ptr })
        }
        let answered = Set(packed.flatMap(\.message.answers))
        #expect(answered == Set(packets.flatMap(\.message.answers)) && answered.count == 40)
        let additional = Set(packed.flatMap(\.message.additionals))
        #expect(additional == Set(packets.flatMap(\.message.additionals)))
        #expect(additional.filter { $0.type == .srv }.count == 40 && additional.filter { $0.type == .a }.count == 40)
    }

    @Test("Probes go with probes, responses with responses, unicast with its own peer, and a legacy answer with its query's id")
    func onlyLikeWithLike() {
        let record = DNSRecord(name: DNSName("a.local"), data: .a([10, 0, 0, 1]), ttl: 120, cacheFlush: true)
        let other = DNSRecord(name: DNSName("b.local"), data: .a([10, 0, 0, 2]), ttl: 120, cacheFlush: true)
        let probe = DNSMessage(questions: [DNSQuestion(name: DNSName("a.local"), type: .any, unicastResponse: true)], authorities: [record])
        let response = DNSMessage(flags: DNSMessage.responseFlags, answers: [other])
        let peer = MDNSResponder.Peer(address: [10, 0, 0, 9], port: 5353)
        let legacy = MDNSResponder.Peer(address: [10, 0, 0, 9], port: 40000)
        let packets: [MDNSResponder.Packet] = [
            .init(message: probe, destination: .multicast(ipv6: nil)),
            .init(message: response, destination: .multicast(ipv6: nil)),
            .init(message: response, destination: .unicast(peer)),
            .init(message: DNSMessage(id: 7, flags: DNSMessage.responseFlags, answers: [record]), destination: .unicast(legacy)),
            .init(message: DNSMessage(id: 8, flags: DNSMessage.responseFlags, answers: [other]), destination: .unicast(legacy)),
            .init(message: DNSMessage(questions: [DNSQuestion(name: DNSName("b.local"), type: .any, unicastResponse: true)],
                                      authorities: [other]), destination: .multicast(ipv6: nil)),
            .init(message: DNSMessage(flags: DNSMessage.responseFlags, answers: [record], additionals: [other]), destination: .multicast(ipv6: nil)),
        ]
        let packed = MDNSPacker.pack(packets)
        #expect(packed.count == 5)
        // The two probes: one query asking for both names, with both names' records.
        #expect(packed[0].message.questions.map(\.name) == [DNSName("a.local"), DNSName("b.local")])
        #expect(packed[0].message.authorities == [record, other])
        // The two multicast responses: both answers, and no additional that is an answer.
        #expect(packed[1].message.answers == [other, record] && packed[1].message.additionals.isEmpty)
        #expect(packed[2].destination == .unicast(peer))
        #expect(packed[3].message.id == 7 && packed[4].message.id == 8)
    }

    @Test("A packet too big on its own goes alone")
    func oversized() {
        let big = DNSMessage(flags: DNSMessage.responseFlags, answers: (0..<30).map {
            DNSRecord(name: DNSName("host-\($0)-with-a-long-name.local"), data: .a([10, 0, 0, UInt8($0)]), ttl: 120, cacheFlush: true)
        })
        let small = DNSMessage(flags: DNSMessage.responseFlags, answers: [
            DNSRecord(name: DNSName("x.local"), data: .a([10, 0, 0, 200]), ttl: 120, cacheFlush: true),
        ])
        let packed = MDNSPacker.pack([.init(message: small, destination: .multicast(ipv6: nil)),
                                      .init(message: big, destination: .multicast(ipv6: nil))], maximumSize: 300)
        #expect(packed.count == 2 && packed[1].message == big)
    }
}
