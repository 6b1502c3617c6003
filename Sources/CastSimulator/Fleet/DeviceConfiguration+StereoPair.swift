import CastDevice
import CastScenario

extension DeviceConfiguration {
    /// A speaker in a stereo pair advertises it: `ca` bits 8 and 9, and the right channel's
    /// `st` is 2 (docs/protocol/groups.md §9; Open Screen's parser drops such a record).
    mutating func joinStereoPairs(_ groups: [GroupDeclaration]) {
        let name = identity.friendlyName
        guard let pair = groups.first(where: { $0.stereoPair && $0.members.contains(name) }) else { return }
        identity.advertisedCapabilities = identity.capabilityBits | DeviceConfiguration.stereoPairMemberCapability
        if pair.members.last == name {
            var quirks = effectiveQuirks
            quirks.mdns.status = quirks.mdns.status ?? 2
            self.quirks = quirks
        }
    }
}
