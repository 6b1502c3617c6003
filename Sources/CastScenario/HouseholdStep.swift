import CastDevice

/// A speaker group a household scenario declares (`groups`), or a step creates: its
/// members by device name, the one that hosts its Cast endpoint, and that endpoint's port.
public struct GroupDeclaration: Sendable, Equatable {
    public var name: String
    /// 32 hex digits; derived from the name when the file gives none.
    public var uuid: String
    /// Device names, as the scenario's `devices` name them.
    public var members: [String]
    /// The member that hosts the group's endpoint (the first member unless named).
    public var leader: String
    /// The group's Cast port: never 8009 (senders take any other port for a group).
    public var port: Int
    /// A stereo pair: two speakers of one model, `members` left then right (the right one
    /// advertises `st=2`), made in the Google Home app, so declared in `groups` only.
    public var stereoPair: Bool

    public init(name: String, uuid: String? = nil, members: [String], leader: String? = nil, port: Int? = nil, stereoPair: Bool = false) {
        self.name = name
        self.uuid = uuid.flatMap(DeviceIdentity.normalizeUUID) ?? DeviceIdentity.derivedUUID(for: "group:\(name)")
        self.members = members
        self.leader = leader ?? members.first ?? ""
        self.port = port ?? Self.port(for: self.uuid)
        self.stereoPair = stereoPair
    }

    /// Real groups listen on a port in the 32000s that they keep (docs/protocol/groups.md §1.3);
    /// castsim derives one from the group's UUID, so it is the same every run.
    static func port(for uuid: String) -> Int {
        32000 + Int(uuid.utf8.reduce(UInt32(0)) { ($0 &* 31) &+ UInt32($1) } % 1000)
    }

    /// The ports a group may listen on: not 8009, not the eureka ports, not privileged.
    static let ports = 1024...65535
    static let devicePorts: Set<Int> = [8008, 8009, 8443]
}

/// What a household scenario's step does beyond its one device: the device goes offline or
/// comes back, takes over a group, creates or deletes one (groups.md §5).
public enum HouseholdStep: Sendable, Equatable {
    /// The device drops out (powered off): its connections close, it leaves discovery, its
    /// groups list it no more.
    case offline
    /// It is back, and back in its groups.
    case online
    /// It becomes the leader of `group`: the group's endpoint moves to its address (same
    /// port), the old one refuses; `rename` announces it as `Google-Cast-Group-<hex>-1`.
    case leadGroup(String, rename: Bool)
    /// A group is created, led by the step's device.
    case createGroup(GroupDeclaration)
    /// A group is deleted: its endpoint closes, its members return to idle.
    case deleteGroup(String)
    /// Stream transfer: the step's device's media session moves to the device named, as
    /// a controller does it (STORE_SESSION here, RESUME_SESSION there, this one stopped).
    case transferSession(to: String)
}
