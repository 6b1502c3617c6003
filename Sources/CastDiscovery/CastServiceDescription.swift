/// What a Cast device publishes over DNS-SD (docs/protocol/castv2.md §5.1–§5.2), as values;
/// ``records(addresses:)`` turns it into the records a real device answers with.
public struct CastServiceDescription: Sendable, Equatable {
    /// 32 lowercase hex digits: the `id` TXT value and, dashed, the host name.
    public var uuid: String
    public var friendlyName: String
    public var modelName: String
    /// The `ca` bitmask: bit 0 video out, bit 2 audio out, bit 5 a multizone group.
    public var capabilities: Int
    /// `st`: 1 while an app other than the idle screen runs ("busy").
    public var busy: Bool
    /// `rs`: the running app's display name; empty when idle.
    public var runningApp: String
    /// Apps the device offers: iOS senders browse `_<APPID>._sub._googlecast._tcp`.
    public var appIds: [String]
    public var port: Int
    /// `cd`, `rm`, `bs`, `nf`, as real devices carry them (opaque to senders).
    public var cloudDeviceId: String
    public var rm: String = ""
    public var bssid: String
    public var nf: Int = 1
    public var iconPath = "/setup/icon.png"
    /// The instance label when a conflict renamed it (nil: the one derived from the model).
    public var instanceOverride: String?
    /// The host label when a conflict renamed it, a group's (its leader's), or a device's
    /// that is not its dashed UUID (a Nest Hub's `fuchsia-…`).
    public var hostOverride: String?
    /// `id` when it is not the UUID (emulators advertise a 12-hex MAC).
    public var idOverride: String?
    /// `st` when it is fixed (a stereo pair's child says 2), not 0 idle / 1 busy.
    public var statusOverride: Int?
    /// `key=value` strings some families add after the usual keys (`ct` on Android TVs).
    public var extraTXT: [String] = []
    /// A speaker group's endpoint (groups.md §1.1), answered by its leader: instance
    /// `Google-Cast-Group-<hex>`, the dashed UUID as `id` and `cd`, SRV to the leader's
    /// host. It claims no host name and has no address records: the leader's own
    /// advertisement answers for its host.
    public private(set) var isGroup = false
    /// Android TV's remote-control service, advertised beside Cast (nil: none).
    public var androidTVRemote: AndroidTVRemote?
    /// The Cast service has left discovery; the other services stay (quirk `dropCastAfter`).
    public var castDropped = false

    /// `_androidtvremote2._tcp`: instance named as the device, port 6466, TXT `bt` with the
    /// MAC, which Home Assistant's Android TV Remote takes as the device's identity.
    public struct AndroidTVRemote: Sendable, Equatable {
        public var port: Int
        public var mac: String

        public init(port: Int = 6466, mac: String) {
            self.port = port
            self.mac = mac
        }
    }

    public init(uuid: String, friendlyName: String, modelName: String, capabilities: Int, busy: Bool = false,
                runningApp: String = "", appIds: [String] = [], port: Int = 8009) {
        self.uuid = uuid
        self.friendlyName = friendlyName
        self.modelName = modelName
        self.capabilities = capabilities
        self.busy = busy
        self.runningApp = runningApp
        self.appIds = appIds
        self.port = port
        // Stable per device, derived from its id: 32 and 12 upper-case hex digits.
        cloudDeviceId = uuid.uppercased()
        bssid = String(uuid.suffix(12)).uppercased()
    }

    /// The description of a speaker group `leader` hosts on `port` (never 8009: senders
    /// tell a group by its port), with the group endpoint's model (`Google Cast Group`) and
    /// capabilities (the leader's `ca` with the multizone bit), and the leader's `rm` and `bs`.
    public static func group(uuid: String, name: String, modelName: String, capabilities: Int, leader: CastServiceDescription,
                             port: Int) -> CastServiceDescription {
        var group = CastServiceDescription(uuid: uuid, friendlyName: name, modelName: modelName, capabilities: capabilities, port: port)
        group.isGroup = true
        group.hostOverride = leader.hostLabel
        group.rm = leader.rm
        group.bssid = leader.bssid
        let dashed = group.dashedUUID
        group.cloudDeviceId = dashed
        return group
    }

    public static let serviceType = DNSName("_googlecast._tcp.local")
    public static let androidTVRemoteType = DNSName("_androidtvremote2._tcp.local")
    public static let servicesEnumeration = DNSName("_services._dns-sd._udp.local")
    /// RFC 6762 §10: 120 s for records tied to a host, 75 minutes for the rest.
    public static let hostTTL: UInt32 = 120
    public static let otherTTL: UInt32 = 4500

    /// `<model with spaces as '-', at most 20 bytes>-<32 hex>`, as Eureka names a device
    /// (Open Screen's CalculateInstanceId): the label fits 63 bytes.
    public var instanceLabel: String {
        if let instanceOverride { return instanceOverride }
        if isGroup { return "Google-Cast-Group-\(uuid)" }
        var model = ""
        for character in modelName.map({ $0 == " " ? "-" : $0 }) {
            // Cut at a character boundary: never half a UTF-8 sequence.
            guard model.utf8.count + String(character).utf8.count <= 20 else { break }
            model.append(character)
        }
        return model.isEmpty ? uuid : "\(model)-\(uuid)"
    }

    /// `<uuid with dashes>.local`: the SRV target, different from the instance name.
    public var hostLabel: String {
        if let hostOverride { return hostOverride }
        return dashedUUID
    }

    /// The UUID with dashes (8-4-4-4-12): a device's host label, a group's `id`.
    public var dashedUUID: String {
        let hex = Array(uuid)
        guard hex.count == 32 else { return uuid }
        var parts: [String] = []
        var start = 0
        for length in [8, 4, 4, 4, 12] {
            parts.append(String(hex[start..<start + length]))
            start += length
        }
        return parts.joined(separator: "-")
    }

    public var instanceName: DNSName { Self.serviceType.prepending(instanceLabel) }
    public var androidTVRemoteInstance: DNSName { Self.androidTVRemoteType.prepending(friendlyName) }
    public var hostName: DNSName { DNSName(labels: [hostLabel, "local"]) }

    /// The TXT strings, in the order real devices send them.
    public var txt: [String] {
        [
            "id=\(idOverride ?? (isGroup ? dashedUUID : uuid))", "cd=\(cloudDeviceId)", "rm=\(rm)", "ve=05", "md=\(modelName)",
            "ic=\(iconPath)", "fn=\(friendlyName)", "ca=\(capabilities)", "st=\(statusOverride ?? (busy ? 1 : 0))", "bs=\(bssid)",
            "nf=\(nf)", "rs=\(runningApp)",
        ] + extraTXT
    }

    /// Every record of the device, for its `addresses` (4 bytes for IPv4, 16 for IPv6).
    public func records(addresses: [[UInt8]]) -> [DNSRecord] {
        let host = hostName
        var records: [DNSRecord] = []
        if !castDropped {
            let instance = instanceName
            records.append(DNSRecord(name: Self.serviceType, data: .ptr(instance), ttl: Self.otherTTL))
            records.append(DNSRecord(name: Self.servicesEnumeration, data: .ptr(Self.serviceType), ttl: Self.otherTTL))
            for appId in appIds where !isGroup {
                let subtype = DNSName(labels: ["_\(appId)", "_sub"] + Self.serviceType.labels)
                records.append(DNSRecord(name: subtype, data: .ptr(instance), ttl: Self.otherTTL))
            }
            records.append(DNSRecord(name: instance, data: .srv(priority: 0, weight: 0, port: UInt16(clamping: port), target: host),
                                     ttl: Self.hostTTL, cacheFlush: true))
            records.append(DNSRecord(name: instance, data: .txt(txt.map { Array($0.utf8.prefix(255)) }), ttl: Self.otherTTL,
                                     cacheFlush: true))
        }
        if let remote = androidTVRemote, !isGroup {
            let instance = androidTVRemoteInstance
            records.append(DNSRecord(name: Self.androidTVRemoteType, data: .ptr(instance), ttl: Self.otherTTL))
            records.append(DNSRecord(name: Self.servicesEnumeration, data: .ptr(Self.androidTVRemoteType), ttl: Self.otherTTL))
            records.append(DNSRecord(name: instance, data: .srv(priority: 0, weight: 0, port: UInt16(clamping: remote.port), target: host),
                                     ttl: Self.hostTTL, cacheFlush: true))
            records.append(DNSRecord(name: instance, data: .txt([Array("bt=\(remote.mac)".utf8)]), ttl: Self.otherTTL, cacheFlush: true))
        }
        for address in addresses where !isGroup {
            switch address.count {
            case 4: records.append(DNSRecord(name: host, data: .a(address), ttl: Self.hostTTL, cacheFlush: true))
            case 16: records.append(DNSRecord(name: host, data: .aaaa(address), ttl: Self.hostTTL, cacheFlush: true))
            default: continue
            }
        }
        return records
    }
}
