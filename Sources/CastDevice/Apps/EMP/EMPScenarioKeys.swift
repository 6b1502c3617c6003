/// The keys each object of the EMP receiver's part of a scenario file may have, written
/// once: its parser reads with them, and a test checks that its JSON Schema lists the same.
package enum EMPScenarioKeys {
    /// The top-level section: the Exposure backend.
    package static let section = "exposure"
    /// The timeline action.
    package static let action = "emp"
    package static let exposure: Set<String> = ["epoch", "businessUnits", "assets", "channels", "realReceiverExtras", "liveDelay"]
    package static let businessUnit: Set<String> = ["customer", "businessUnit", "sessionTokens"]
    package static let asset: Set<String> = [
        "title", "duration", "textLanguages", "audioLanguages", "gaps", "bookmark", "entitlement",
    ]
    package static let channel: Set<String> = ["title", "textLanguages", "audioLanguages", "programs", "entitlement"]
    package static let program: Set<String> = ["programId", "assetId", "title", "start", "end"]
    /// A stretch of media: an asset's gap, a step's `segmentMissing`.
    package static let span: Set<String> = ["from", "to"]
    package static let grant: Set<String> = [
        "live", "ffEnabled", "rwEnabled", "timeshiftEnabled", "airplayBlocked", "minBitrate", "maxBitrate", "maxResHeight",
    ]
    package static let refusal: Set<String> = ["refuse", "code"]
    /// An entitlement is a grant or a refusal, never both; one object may name either's keys.
    package static let entitlement = grant.union(refusal)
    /// What an `emp` step does: exactly one of these.
    package static let empActions = ["event", "entitlement", "endProgram", "segmentMissing"]
    package static let emp = Set(empActions + ["data"])
}
