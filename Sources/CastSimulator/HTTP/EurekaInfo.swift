import CastDevice
import CastWire
import Foundation

/// `/setup/eureka_info` (docs/protocol/castv2.md §5.4): what pychromecast and catt read to
/// learn a device's model, UUID and name when they connect by IP.
struct EurekaInfo {
    let identity: DeviceIdentity
    /// The speaker groups it belongs to now.
    var groups: [EurekaGroup] = []
    let buildVersion = "1.56.500000"

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
                "product_name": .string(identity.modelName),
                "ssdp_udn": .string(identity.dashedUUID),
                "cloud_device_id": .string(identity.uuid.uppercased()),
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
            "multizone": EurekaGroup.section(groups),
            "setup": ["setup_state": 60, "ssid_suffix": "", "stats_opt_in": false],
            "net": ["ethernet_connected": true, "online": true, "ip_address": ""],
        ]
    }

    /// `params=device_info,name` selects sections (plus the top-level `ssdp_udn`); without
    /// `params`, the flat form recent firmware returns over plain HTTP, plus `device_info`.
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
