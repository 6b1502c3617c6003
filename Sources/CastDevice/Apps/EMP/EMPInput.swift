import CastWire

/// What a scenario step or the operator does to the EMP receiver's world while it plays.
public enum EMPInput: Sendable, Equatable {
    /// Broadcast an event on the EMP namespace: with `data` as given, or (nil) with the
    /// receiver's current value, as it would send it (`tracksupdated`, `isLive` ...).
    case sendEvent(type: String, data: JSONValue?)
    /// The entitlement of what plays changes (`entitlementchange`; a refusal stops playback
    /// with `error`).
    case setEntitlement(ExposureWorld.Entitlement)
    /// The program on air ends now and the next one starts (`startTimeLive`, `programchanged`).
    case endProgram
    /// Segments from `from` to `to` seconds of what plays go missing.
    case segmentMissing(from: Double, to: Double)
}
