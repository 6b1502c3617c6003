import ArgumentParser
import CastDevice

/// `castsim profiles`: the real device families `--profile` and `device.profile` accept.
struct ProfilesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profiles",
        abstract: "List the device profiles: real Cast device families castsim can be (castsim run --profile NAME).",
        discussion: "Each profile's values and their sources: docs/profiles.md.")

    func run() {
        print(Self.table(DeviceProfile.catalog))
    }

    /// One line per profile: name, kind, model, maker, ca, volume, what eureka_info's ports
    /// do, and what differs.
    static func table(_ profiles: [DeviceProfile]) -> String {
        let header = ["NAME", "KIND", "MODEL (md)", "MANUFACTURER", "CA", "VOLUME", "8443/8008", "WHAT DIFFERS"]
        let rows = profiles.map { profile in
            [profile.name, profile.kind.rawValue, profile.modelName, profile.manufacturer, String(profile.capabilities),
             "\(profile.volumeControl.controlType.rawValue) \(profile.volumeControl.stepInterval)",
             "\(profile.quirks.eureka.https.rawValue)/\(profile.quirks.eureka.http.rawValue)", profile.differs]
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        return ([header] + rows).map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
