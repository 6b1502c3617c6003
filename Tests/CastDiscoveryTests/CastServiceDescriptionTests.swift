import CastDiscovery
import Testing

@Suite("The records of a Cast device, as a real one publishes them (docs/protocol/castv2.md §5)")
struct CastServiceDescriptionTests {
    static let uuid = "1930a236896105d6f9026ddc5e85e3a8"

    @Test("PTR, subtypes, SRV to the dashed-UUID host, TXT in a real device's order, A and AAAA; TTLs and cache-flush bits")
    func records() {
        let description = CastServiceDescription(uuid: Self.uuid, friendlyName: "Living Room TV", modelName: "Chromecast Ultra",
                                                 capabilities: 5, appIds: ["CC1AD845", "0F5096E8"])
        let instance = DNSName(labels: ["Chromecast-Ultra-\(Self.uuid)", "_googlecast", "_tcp", "local"])
        let host = DNSName(labels: ["1930a236-8961-05d6-f902-6ddc5e85e3a8", "local"])
        #expect(description.instanceName == instance && description.hostName == host)
        let ipv6: [UInt8] = [0xFE, 0x80] + [UInt8](repeating: 0, count: 13) + [7]
        let records = description.records(addresses: [[192, 168, 1, 23], ipv6])
        let txt = ["id=\(Self.uuid)", "cd=\(Self.uuid.uppercased())", "rm=", "ve=05", "md=Chromecast Ultra", "ic=/setup/icon.png",
                   "fn=Living Room TV", "ca=5", "st=0", "bs=6DDC5E85E3A8", "nf=1", "rs="]
        #expect(records == [
            DNSRecord(name: DNSName("_googlecast._tcp.local"), data: .ptr(instance), ttl: 4500),
            DNSRecord(name: DNSName("_services._dns-sd._udp.local"), data: .ptr(DNSName("_googlecast._tcp.local")), ttl: 4500),
            DNSRecord(name: DNSName("_CC1AD845._sub._googlecast._tcp.local"), data: .ptr(instance), ttl: 4500),
            DNSRecord(name: DNSName("_0F5096E8._sub._googlecast._tcp.local"), data: .ptr(instance), ttl: 4500),
            DNSRecord(name: instance, data: .srv(priority: 0, weight: 0, port: 8009, target: host), ttl: 120, cacheFlush: true),
            DNSRecord(name: instance, data: .txt(txt.map { Array($0.utf8) }), ttl: 4500, cacheFlush: true),
            DNSRecord(name: host, data: .a([192, 168, 1, 23]), ttl: 120, cacheFlush: true),
            DNSRecord(name: host, data: .aaaa(ipv6), ttl: 120, cacheFlush: true),
        ])
    }

    @Test("Open Screen's receiver_info rules hold for the TXT: ve 2–99, ca numeric, st 0 or 1, fn and id present")
    func txtRules() {
        var description = CastServiceDescription(uuid: Self.uuid, friendlyName: "Kitchen", modelName: "Google Home", capabilities: 4)
        for busy in [false, true] {
            description.busy = busy
            description.runningApp = busy ? "Default Media Receiver" : ""
            let pairs = Dictionary(uniqueKeysWithValues: description.txt.map { entry -> (String, String) in
                let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
            })
            #expect(Int(pairs["ve"] ?? "").map { (2...99).contains($0) } == true)
            #expect(Int(pairs["ca"] ?? "") == 4)
            #expect(pairs["st"] == (busy ? "1" : "0"))
            #expect(pairs["rs"] == (busy ? "Default Media Receiver" : ""))
            #expect(pairs["fn"] == "Kitchen" && pairs["id"]?.count == 32 && pairs["id"]?.allSatisfy(\.isHexDigit) == true)
        }
    }

    @Test("The model part of the instance name is at most 20 bytes, cut between characters; spaces become dashes")
    func longModel() {
        let ascii = CastServiceDescription(uuid: Self.uuid, friendlyName: "x", modelName: "BRAVIA 4K UR3 Extra Long Name", capabilities: 5)
        #expect(ascii.instanceLabel == "BRAVIA-4K-UR3-Extra--\(Self.uuid)")
        let multibyte = CastServiceDescription(uuid: Self.uuid, friendlyName: "x", modelName: "Téléviseur Salon Été", capabilities: 5)
        let model = String(multibyte.instanceLabel.dropLast(33))
        #expect(model.utf8.count <= 20 && "Téléviseur-Salon-Été".hasPrefix(model) && model == "Téléviseur-Salon-")
        #expect(multibyte.instanceLabel.utf8.count <= 63)
    }
}
