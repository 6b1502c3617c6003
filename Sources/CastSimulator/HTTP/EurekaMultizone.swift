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

    package enum Leader: Sendable, Equatable {
        /// This device leads: `"elected_leader": "self"`.
        case this
        /// Another member leads, at this address.
        case other(host: String)
    }

    package init(name: String, uuid: String, leader: Leader, castPort: Int) {
        self.name = name
        self.uuid = uuid
        self.leader = leader
        self.castPort = castPort
    }

    /// The entry. `elected_leader` is `"self"` on the leader and `"<leader ip>:<port>"`
    /// elsewhere; pychromecast takes only the address from the second form, and what the
    /// port there means is open (groups.md §8): castsim puts the group's port.
    /// `multichannel_group` is always present: Music Assistant reads it without a default.
    var json: JSONValue {
        let electedLeader: String
        switch leader {
        case .this: electedLeader = "self"
        case .other(let host): electedLeader = "\(host.contains(":") ? "[\(host)]" : host):\(castPort)"
        }
        return [
            "name": .string(name), "uuid": .string(DeviceIdentity.dashed(uuid)), "elected_leader": .string(electedLeader),
            "cast_port": .number(Double(castPort)), "multichannel_group": false, "stereo_balance": 0,
        ]
    }

    /// The `multizone` section: static groups in `groups`; castsim makes no dynamic ones.
    static func section(_ groups: [EurekaGroup]) -> JSONValue {
        [
            "groups": .array(groups.map(\.json)), "dynamic_groups": [],
            "audio_output_delay": 0, "audio_output_delay_hdmi": 0, "audio_output_delay_oem": 0,
            "aux_in_group": "", "multichannel_status": 0,
        ]
    }
}
