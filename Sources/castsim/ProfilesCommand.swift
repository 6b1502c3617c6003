import ArgumentParser
import CastDevice
import CastScenario
import CastWire

/// `castsim profiles`: the real device families `--profile` and `device.profile` accept;
/// `castsim profiles NAME --json`, one of them as a profile file to start one's own from.
struct ProfilesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profiles",
        abstract: "List the device profiles: real Cast device families castsim can be (castsim run --profile NAME).",
        discussion: """
            Each profile's values and their sources: docs/profiles.md. With a name and --json, the profile as a \
            profile file: edit it (keep or change "base") and run it with castsim run --profile FILE.json.
            """)

    @Argument(help: "One profile to show (a name from the list).")
    var name: String?

    @Flag(help: "The profile as a profile file (JSON), instead of the table.")
    var json = false

    func validate() throws {
        if json, name == nil { throw ValidationError("--json shows one profile: castsim profiles NAME --json") }
    }

    func run() throws {
        let profiles: [DeviceProfile]
        do throws(UnknownProfile) {
            profiles = try name.map { name throws(UnknownProfile) in [try DeviceProfile.named(name)] } ?? DeviceProfile.catalog
        } catch {
            throw ValidationError(error.description)
        }
        if json, let profile = profiles.first {
            var file = profile.json
            // A file made from it keeps the catalog profile under it.
            file = file.replacing("base", with: .string(profile.name)).replacing("name", with: .string("my-\(profile.name)"))
            print(file.indentedJSONText())
            return
        }
        print(Self.table(profiles))
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
