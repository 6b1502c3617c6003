import CastDevice
import CastScenario

/// What a device's runner knows of the household it is in: whom to tell its events, and
/// who carries out its household steps. Called on the fleet's loop.
struct DeviceHousehold {
    /// The device's every event.
    let heard: (DeviceEvent) -> Void
    /// One of its household steps (from its timeline or the control API), or why not.
    let perform: (HouseholdStep) throws(HouseholdRefusal) -> Void
}

/// A household step that cannot be done now, and why (a group no one declared, a leader
/// that is offline ...).
public struct HouseholdRefusal: Error, Sendable, CustomStringConvertible {
    public let description: String
    /// The step names a device or group the household does not have (the control API's
    /// 404), rather than one that cannot do it now (409).
    public let namesNothing: Bool

    init(_ description: String, namesNothing: Bool = false) {
        self.description = description
        self.namesNothing = namesNothing
    }
}
