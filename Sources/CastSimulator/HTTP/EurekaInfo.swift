import CastDevice
import CastWire
import Foundation

/// `/setup/eureka_info` (docs/protocol/castv2.md §5.4–§5.5): what pychromecast and catt read to
/// learn a device's model, UUID and name when they connect by IP.
struct EurekaInfo {
    let identity: DeviceIdentity
    let quirks: DeviceQuirks.Eureka
    /// The speaker groups it belongs to now.
    var groups: [EurekaGroup] = []
    let buildVersion = "1.56.500000"

    init(identity: DeviceIdentity, quirks: DeviceQuirks.Eureka = .init(), groups: [EurekaGroup] = []) {
        self.identity = identity
        self.quirks = quirks
        self.groups = groups
    }

    /// `mac_address`: the family's (Android TVs say zeros), else one made from the UUID.
    private var macAddress: String {
        quirks.macAddress ?? identity.derivedMAC
    }

    /// `hotspot_bssid`: the mDNS `bs` value with colons.
    private var hotspotBSSID: String { DeviceIdentity.colonSeparated(String(identity.uuid.suffix(12)).uppercased()) }

    /// The sections this device can describe, by `params` name.
    private var sections: [String: JSONValue] {
        [
            "name": .string(identity.friendlyName),
            "ssdp_udn": .string(identity.dashedUUID),
            "version": 12,
            "build_version": .string(buildVersion),
            "cast_build_revision": .string(buildVersion),
            "device_info": [
                "manufacturer": .string(identity.manufacturer),
                "model_name": .string(identity.modelName),
                "product_name": .string(quirks.productName ?? identity.modelName),
                "ssdp_udn": .string(identity.dashedUUID),
                "cloud_device_id": .string(identity.uuid.uppercased()),
                "mac_address": .string(macAddress),
                "hotspot_bssid": .string(hotspotBSSID),
                "capabilities": [
                    "display_supported": .bool(identity.supportsVideo),
                    "audio_hdr_supported": false,
                    // It answers the multizone namespace, and pychromecast's HostBrowser
                    // reads `params=multizone` of devices that say so.
                    "multizone_supported": true,
                    "stats_supported": false,
                ],
            ],
            "build_info": ["build_type": 2, "cast_build_revision": .string(buildVersion), "system_build_number": "castsim"],
            "multizone": EurekaGroup.section(groups, keys: quirks.multizoneKeys),
            "setup": ["setup_state": 60, "ssid_suffix": "", "stats_opt_in": false],
            "net": ["ethernet_connected": true, "online": true, "ip_address": ""],
        ]
    }

    /// The legacy body current firmware answers on 8008 whatever `params` says: version 12,
    /// top-level keys, no `device_info`, so a sender learns the name and UUID but not the
    /// model or maker.
    var legacy: JSONValue {
        [
            "bssid": "", "build_version": .string(String(buildVersion.split(separator: ".").last ?? "")),
            "cast_build_revision": .string(buildVersion), "closed_caption": [:], "connected": true, "ethernet_connected": true,
            "has_update": false, "hotspot_bssid": .string(hotspotBSSID), "ip_address": "", "locale": "en-US",
            "location": ["country_code": "US", "latitude": 255.0, "longitude": 255.0], "mac_address": .string(macAddress),
            "name": .string(identity.friendlyName), "noise_level": 0,
            "opt_in": ["crash": false, "opencast": false, "stats": false], "public_key": "",
            "release_track": "stable-channel", "setup_state": 60,
            "setup_stats": ["historically_succeeded": true, "num_check_connectivity": 0], "signal_level": 0,
            "ssdp_udn": .string(identity.dashedUUID), "time_format": 1, "timezone": "UTC", "tos_accepted": true,
            "uptime": 0.0, "version": 12, "wpa_configured": false, "wpa_id": 0, "wpa_state": 0,
        ]
    }

    /// `params=device_info,name` selects sections (plus the top-level `ssdp_udn`); without
    /// `params`, the flat form plus `device_info`.
    func json(params: String?) -> JSONValue {
        let all = sections
        guard let params, !params.isEmpty else {
            let flat = ["name", "ssdp_udn", "version", "build_version", "cast_build_revision", "device_info"]
            return .object(all.filter { flat.contains($0.key) })
        }
        // The id is always there: pychromecast and catt need it to connect by IP.
        var selected: [String: JSONValue] = ["ssdp_udn": .string(identity.dashedUUID)]
        for name in params.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if let section = all[name] { selected[name] = section }
        }
        return .object(selected)
    }
}
