import CastWire

/// What a scenario or the operator makes of the mirroring receiver: the network between it
/// and the sender (packet loss, added delay), whether it sends RTCP feedback, whether it
/// refuses OFFERs, and the limits its ANSWER states. One grammar for the scenario's
/// `mirroring` section (from the start) and the `mirroring` timeline action (from then on,
/// only the keys it names; `endSession` ends the session under way).
public struct MirroringSettings: Sendable, Equatable {
    public var impairment = StreamingImpairment()
    /// The error ANSWER every OFFER gets; nil: OFFERs are answered.
    public var refusal: (code: Int, description: String)?
    public var limits = StreamingLimits()

    public init() {}

    public static func == (a: MirroringSettings, b: MirroringSettings) -> Bool {
        a.impairment == b.impairment && a.refusal?.code == b.refusal?.code && a.refusal?.description == b.refusal?.description
            && a.limits == b.limits
    }
}

/// What the media plane does to a session's datagrams, as a bad network or a receiver
/// that stops answering would.
public struct StreamingImpairment: Sendable, Equatable {
    /// The share of the sender's datagrams dropped on arrival, 0 to 100.
    public var packetLossPercent = 0.0
    /// Seconds each datagram is held before the receiver sees it.
    public var addedDelay = 0.0
    /// False: the receiver sends no RTCP at all (the sender stalls within 100 ms).
    public var feedback = true

    public init(packetLossPercent: Double = 0, addedDelay: Double = 0, feedback: Bool = true) {
        self.packetLossPercent = packetLossPercent
        self.addedDelay = addedDelay
        self.feedback = feedback
    }
}

/// The keys of the `mirroring` section and action, written once for the parser and the schema.
package enum MirroringScenarioKeys {
    package static let key = "mirroring"
    package static let settings: Set<String> = ["packetLoss", "delay", "feedback", "refuseOffers", "limits"]
    package static let action = settings.union(["endSession"])
    package static let limits: Set<String> = ["maxWidth", "maxHeight", "maxFrameRate", "maxBitRate"]
    package static let refusal: Set<String> = ["code", "description"]
}

/// A `mirroring` section or action as checked: what it sets (nil: left as it is), and the
/// session it ends.
struct MirroringChange: Sendable {
    var packetLoss: Double?
    var delay: Double?
    var feedback: Bool?
    /// `refuseOffers`: `.some(nil)` answers OFFERs again.
    var refusal: (code: Int, description: String)??
    var maxWidth: Int?
    var maxHeight: Int?
    var maxFrameRate: Int?
    var maxBitRate: Int?
    /// `endSession`: the reason given.
    var endSession: String?

    func apply(to settings: inout MirroringSettings) {
        if let packetLoss { settings.impairment.packetLossPercent = packetLoss }
        if let delay { settings.impairment.addedDelay = delay }
        if let feedback { settings.impairment.feedback = feedback }
        if let refusal { settings.refusal = refusal }
        if let maxWidth { settings.limits.maxWidth = maxWidth }
        if let maxHeight { settings.limits.maxHeight = maxHeight }
        if let maxFrameRate { settings.limits.maxFrameRate = maxFrameRate }
        if let maxBitRate { settings.limits.maxVideoBitRate = maxBitRate }
    }

    static let defaultRefusal = "The receiver refuses to stream (scenario)"

    /// Reads a `mirroring` section or action; every problem goes to `checker` with its path,
    /// and any problem makes it nil.
    init?(_ reader: JSONReader, checker: JSONChecker, isAction: Bool) {
        let allowed = isAction ? MirroringScenarioKeys.action : MirroringScenarioKeys.settings
        let problems = checker.problems.count
        guard let members = checker.members(reader, allowed: allowed) else { return nil }
        guard !members.isEmpty else {
            checker.fail(reader, "expected at least one of \(allowed.sorted().joined(separator: ", "))")
            return nil
        }
        packetLoss = checker.read(reader["packetLoss"]) { try $0.double(in: 0...100) }
        delay = checker.read(reader["delay"]) { try $0.double(in: 0...10) }
        feedback = checker.read(reader["feedback"]) { try $0.bool() }
        if let member = reader["refuseOffers"] {
            switch member.value {
            case .bool(false): refusal = .some(nil)
            case .bool(true): refusal = (StreamingOffer.Refusal.noStreamSelected, Self.defaultRefusal)
            default:
                if checker.members(member, allowed: MirroringScenarioKeys.refusal) != nil {
                    let code = member["code"].map { code in checker.read(code) { try $0.int(in: 10000...19999) } }
                        ?? StreamingOffer.Refusal.noStreamSelected
                    let description = member["description"].map { text in checker.read(text) { try $0.string(nonEmpty: true) } }
                        ?? Self.defaultRefusal
                    if let code, let description { refusal = (code, description) }
                }
            }
        }
        if let limits = reader["limits"], checker.members(limits, allowed: MirroringScenarioKeys.limits) != nil {
            maxWidth = checker.read(limits["maxWidth"]) { try $0.int(in: 16...7680) }
            maxHeight = checker.read(limits["maxHeight"]) { try $0.int(in: 16...4320) }
            maxFrameRate = checker.read(limits["maxFrameRate"]) { try $0.int(in: 1...120) }
            maxBitRate = checker.read(limits["maxBitRate"]) { try $0.int(in: 300_001...100_000_000) }
        }
        if isAction, let member = reader["endSession"] {
            endSession = member.value == .bool(true) ? "the device ended it (scenario)" : checker.read { try member.string(nonEmpty: true) }
        }
        guard checker.problems.count == problems else { return nil }
    }
}
