import CastDiscovery
import Testing

@Suite("A speaker group's records, as its leader answers them (docs/protocol/groups.md §1)")
struct GroupAdvertisementTests {
    static let leader = CastServiceDescription(uuid: "1a2b3c4d000011112222333344445555", friendlyName: "Kitchen", modelName: "Google Home",
                                               capabilities: 198660, appIds: ["CC1AD845"])
    static let groupUUID = "6f1c0e2a9b3d4c5e8f7a1b2c3d4e5f60"
    static var group: CastServiceDescription {
        .group(uuid: groupUUID, name: "Upstairs", modelName: "Google Cast Group", capabilities: 198660 | 32, leader: leader, port: 32162)
    }

    @Test("Instance Google-Cast-Group-<hex>, SRV to the leader's host on the group's port, TXT with the dashed id, md, ca, the leader's bs; no address or subtype records")
    func records() {
        let group = Self.group
        let instance = DNSName(labels: ["Google-Cast-Group-\(Self.groupUUID)", "_googlecast", "_tcp", "local"])
        #expect(group.instanceName == instance)
        #expect(group.hostName == Self.leader.hostName)
        let txt = ["id=6f1c0e2a-9b3d-4c5e-8f7a-1b2c3d4e5f60", "cd=6f1c0e2a-9b3d-4c5e-8f7a-1b2c3d4e5f60", "rm=", "ve=05",
                   "md=Google Cast Group", "ic=/setup/icon.png", "fn=Upstairs", "ca=198692", "st=0", "bs=\(Self.leader.bssid)", "nf=1", "rs="]
        #expect(group.records(addresses: [[10, 0, 0, 1]]) == [
            DNSRecord(name: DNSName("_googlecast._tcp.local"), data: .ptr(instance), ttl: 4500),
            DNSRecord(name: DNSName("_services._dns-sd._udp.local"), data: .ptr(DNSName("_googlecast._tcp.local")), ttl: 4500),
            DNSRecord(name: instance, data: .srv(priority: 0, weight: 0, port: 32162, target: Self.leader.hostName), ttl: 120, cacheFlush: true),
            DNSRecord(name: instance, data: .txt(txt.map { Array($0.utf8) }), ttl: 4500, cacheFlush: true),
        ])
    }

    @Test("The group's responder probes for its instance alone; a conflict renames it with -1, as real groups are, and keeps the leader's host")
    func conflict() throws {
        var responder = MDNSResponder(description: Self.group, addresses: [[10, 0, 0, 1]]) { range in (range.lowerBound + range.upperBound) / 2 }
        _ = responder.start(now: 0)
        let probe = try #require(responder.advance(now: 0.125).compactMap { if case .send(let packet) = $0 { packet } else { nil } }.first)
        #expect(probe.message.questions.map(\.name) == [Self.group.instanceName])
        let rival = DNSMessage(flags: DNSMessage.responseFlags, answers: [
            DNSRecord(name: Self.group.instanceName, data: .srv(priority: 0, weight: 0, port: 32162, target: DNSName("other.local")),
                      ttl: 120, cacheFlush: true),
        ])
        let outputs = responder.received(rival.encoded(), from: MDNSResponder.Peer(address: [10, 0, 0, 2], port: 5353), now: 0.2)
        let events = outputs.compactMap { if case .event(let event) = $0 { event } else { nil } }
        #expect(events == [.renamed(from: "Google-Cast-Group-\(Self.groupUUID)", to: "Google-Cast-Group-\(Self.groupUUID)-1")])
        #expect(responder.description.hostName == Self.leader.hostName)
    }
}
