import CastDevice
import CastWire

// `device.quirks`: what a real device does that castsim's ideal one does not
// (docs/profiles.md, quirks). Each key given turns a switch on or off over the profile's.

extension ScenarioKeys {
    package static let quirks: Set<String> = ["eureka", "mdns", "volume", "apps", "groupMember"]
    package static let eurekaQuirks: Set<String> = ["https", "http", "hostCheck", "crashAfterPolls", "macAddress", "productName", "deviceDesc", "multizoneKeys"]
    package static let mdnsQuirks: Set<String> = ["host", "id", "status", "txt", "dropCastAfter", "androidTVRemote"]
    package static let volumeQuirks: Set<String> = ["ignoreSet", "relativeOnly"]
    package static let appQuirks: Set<String> = ["unavailable", "refuse", "idleTimeout"]
    /// The LAUNCH_ERROR reasons `apps.refuse` may give.
    package static let launchRefusals = [LaunchErrorReason.notAllowed, .cancelled, .notFound, .systemError, .badParameter].map(\.rawValue)
}

extension ScenarioParser {
    func quirks(_ value: JSONReader, over start: DeviceQuirks) -> DeviceQuirks {
        var quirks = start
        guard reader.members(value, allowed: ScenarioKeys.quirks) != nil else { return quirks }
        if let eureka = value["eureka"], reader.members(eureka, allowed: ScenarioKeys.eurekaQuirks) != nil {
            quirks.eureka.https = reader.read(eureka["https"]) { try $0.oneOf(DeviceQuirks.Eureka.HTTPS.self) } ?? quirks.eureka.https
            quirks.eureka.http = reader.read(eureka["http"]) { try $0.oneOf(DeviceQuirks.Eureka.HTTP.self) } ?? quirks.eureka.http
            quirks.eureka.hostCheck = reader.read(eureka["hostCheck"]) { try $0.bool() } ?? quirks.eureka.hostCheck
            quirks.eureka.deviceDesc = reader.read(eureka["deviceDesc"]) { try $0.bool() } ?? quirks.eureka.deviceDesc
            quirks.eureka.multizoneKeys = reader.read(eureka["multizoneKeys"]) { try $0.oneOf(DeviceQuirks.Eureka.MultizoneKeys.self) }
                ?? quirks.eureka.multizoneKeys
            if let member = eureka["crashAfterPolls"] {
                // 0 turns a profile's lock-up off.
                quirks.eureka.crashAfterPolls = reader.read { try member.int(minimum: 0) }.flatMap { $0 == 0 ? nil : $0 }
            }
            if let member = eureka["macAddress"], let mac = reader.read({ try member.string() }) {
                if Self.isMACAddress(mac) {
                    quirks.eureka.macAddress = mac
                } else {
                    reader.fail(member, "expected a MAC address such as \"00:00:00:00:00:00\", got \(JSONReader.describe(member.value))")
                }
            }
            quirks.eureka.productName = reader.read(eureka["productName"]) { try $0.string(nonEmpty: true) } ?? quirks.eureka.productName
        }
        if let mdns = value["mdns"], reader.members(mdns, allowed: ScenarioKeys.mdnsQuirks) != nil {
            if let member = mdns["host"], let host = reader.read({ try member.string(nonEmpty: true) }) {
                if Self.isHostLabel(host.replacingOccurrences(of: "{mac}", with: "0000-0000-0000")) {
                    quirks.mdns.host = host
                } else {
                    reader.fail(member, "expected a host label (letters, digits and '-', at most 63), \"{mac}\" allowed, got \(JSONReader.describe(member.value))")
                }
            }
            quirks.mdns.id = reader.read(mdns["id"]) { try $0.string(nonEmpty: true) } ?? quirks.mdns.id
            quirks.mdns.status = reader.read(mdns["status"]) { try $0.int(in: 0...9) } ?? quirks.mdns.status
            quirks.mdns.androidTVRemote = reader.read(mdns["androidTVRemote"]) { try $0.bool() } ?? quirks.mdns.androidTVRemote
            if let member = mdns["dropCastAfter"], let seconds = reader.read({ try member.duration() }) {
                quirks.mdns.dropCastAfter = seconds == 0 ? nil : seconds
            }
            if let txt = mdns["txt"], let members = reader.read({ try txt.object() }) {
                var entries = quirks.mdns.txt
                for key in members.keys.sorted() {
                    guard let text = reader.read({ try txt[key]!.string() }) else { continue }
                    if key.isEmpty || key.contains("=") || Self.standardTXTKeys.contains(key) {
                        reader.fail(txt[key]!, "expected a TXT key of its own (not empty, no '=', not one of \(Self.standardTXTKeys.sorted().joined(separator: ", ")))")
                        continue
                    }
                    entries.removeAll { $0.key == key }
                    entries.append(DeviceQuirks.TXTEntry(key, text))
                }
                quirks.mdns.txt = entries
            }
        }
        quirks.groupMember = reader.read(value["groupMember"]) { try $0.bool() } ?? quirks.groupMember
        if let volume = value["volume"], reader.members(volume, allowed: ScenarioKeys.volumeQuirks) != nil {
            quirks.volume.ignoreSet = reader.read(volume["ignoreSet"]) { try $0.bool() } ?? quirks.volume.ignoreSet
            quirks.volume.relativeOnly = reader.read(volume["relativeOnly"]) { try $0.bool() } ?? quirks.volume.relativeOnly
        }
        if let apps = value["apps"], reader.members(apps, allowed: ScenarioKeys.appQuirks) != nil {
            if let unavailable = apps["unavailable"] {
                quirks.apps.unavailable = elements(unavailable) { element in reader.read { try element.string(nonEmpty: true) } }
            }
            if let member = apps["idleTimeout"], let seconds = reader.read({ try member.duration() }) {
                // "0s" turns a profile's timeout off.
                quirks.apps.idleTimeout = seconds == 0 ? nil : seconds
            }
            if let refuse = apps["refuse"], let members = reader.read({ try refuse.object() }) {
                for appId in members.keys.sorted() {
                    if let reason = reader.read({ try refuse[appId]!.oneOf(ScenarioKeys.launchRefusals) }) { quirks.apps.refuse[appId] = reason }
                }
            }
        }
        return quirks
    }

    /// The keys castsim itself writes; a quirk adds others.
    static let standardTXTKeys: Set<String> = ["id", "cd", "rm", "ve", "md", "ic", "fn", "ca", "st", "bs", "nf", "rs"]

    static func isMACAddress(_ text: String) -> Bool {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 6 && parts.allSatisfy { $0.count == 2 && $0.allSatisfy(\.isASCIIHexDigit) }
    }

    static func isHostLabel(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 63 && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
    }
}
