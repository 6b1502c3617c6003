/// How the device's volume is controlled, as RECEIVER_STATUS says it
/// (docs/protocol/platform.md §2): speakers attenuate in steps of 0.05, video dongles and
/// groups are the master volume, and some devices (a Nexus Player, a TV driving an
/// amplifier) have a fixed volume that senders must not offer to change.
public struct VolumeControl: Sendable, Equatable, Codable {
    public enum ControlType: String, Sendable, Codable, CaseIterable {
        case attenuation, master, fixed
    }

    public var controlType: ControlType
    /// `stepInterval`: how far one press of a volume key moves the level.
    public var stepInterval: Double

    public init(controlType: ControlType, stepInterval: Double) {
        self.controlType = controlType
        self.stepInterval = stepInterval
    }

    /// What a device says when nothing else is known: a speaker's.
    public static let attenuation = VolumeControl(controlType: .attenuation, stepInterval: 0.05)
    /// A video dongle's.
    public static let master = VolumeControl(controlType: .master, stepInterval: 0.01)
}
