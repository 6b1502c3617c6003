import CastDevice
import CastWire

/// One speaker group a device belongs to, as its `/setup/eureka_info?params=multizone`
/// lists it (docs/protocol/groups.md §2.1): pychromecast's HostBrowser finds groups this way
/// without mDNS, and Home Assistant and Music Assistant probe it.
package struct EurekaGroup: Sendable, Equatable {
    package var name: String
    /// 32 hex digits; listed with dashes, as real devices do.
    package var uuid: String
    /// Where the group's Cast endpoint is: on this device, or at the leader's address.
    package var leader: Leader
    package var castPort: Int
    /// A stereo pair's (`multichannel_group: true`).
    package var multichannel = false

    package enum Leader: Sendable, Equatable {
        /// This device leads: `"elected_leader": "self"`.
        case this
        /// Another member leads, at this address.
        case other(host: String)
    }

    package init(name: String, uuid: String, leader: Leader, castPort: Int, multichannel: Bool = false) {
        self.name = name
        self.uuid = uuid
        self.leader = leader
        self.castPort = castPort
        self.multichannel = multichannel
    }

    /// The entry. `elected_leader` is `"self"` on the leader and `"<leader ip>:<port>"`
    /// elsewhere; pychromecast takes only the address from the second form, and what the
    /// port there means is open (groups.md §8): castsim puts the group's port.
    /// `multichannel_group` is always present: Music Assistant reads it without a default.
    /// A stereo pair's entry on newer firmware (`keys` `.current`) says `leader` and has no
    /// `cast_port` (docs/protocol/groups.md §9).
    func json(keys: DeviceQuirks.Eureka.MultizoneKeys) -> JSONValue {
        let electedLeader: String
        switch leader {
        case .this: electedLeader = "self"
        case .other(let host): electedLeader = "\(host.contains(":") ? "[\(host)]" : host):\(castPort)"
        }
        var entry: [String: JSONValue] = [
            "name": .string(name), "uuid": .string(DeviceIdentity.dashed(uuid)),
            "multichannel_group": .bool(multichannel), "stereo_balance": 0,
        ]
        if multichannel, keys == .current {
            entry["leader"] = .string(electedLeader)
        } else {
            entry["elected_leader"] = .string(electedLeader)
            entry["cast_port"] = .number(Double(castPort))
        }
        return .object(entry)
    }

    /// The `multizone` section: static groups in `groups`; castsim makes no dynamic ones.
    static func section(_ groups: [EurekaGroup], keys: DeviceQuirks.Eureka.MultizoneKeys = .legacy) -> JSONValue {
        [
            "groups": .array(groups.map { $0.json(keys: keys) }), "dynamic_groups": [],
            "audio_output_delay": 0, "audio_output_delay_hdmi": 0, "audio_output_delay_oem": 0,
            "aux_in_group": "", "multichannel_status": 0,
        ]
    }
}
