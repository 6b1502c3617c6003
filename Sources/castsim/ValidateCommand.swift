import ArgumentParser
import CastScenario
import CastWire
import Foundation

/// `castsim validate FILE...`: checks scenario files and lists every problem.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check scenario files; exit 0 when all are valid, 1 with every problem otherwise.")

    @Argument(help: "Scenario files (JSON).")
    var files: [String]

    func run() throws {
        var failed = false
        for file in files {
            do {
                let household = try FleetScenario.load(contentsOf: URL(fileURLWithPath: file))
                let parts = household.devices
                let counts = "\(parts.map(\.timeline.count).reduce(0, +)) steps, \(parts.map(\.rules.count).reduce(0, +)) rules, "
                    + "\(parts.map(\.expectations.count).reduce(0, +)) expectations"
                print("\(file): ok (\(household.name): \(parts.count > 1 ? "\(parts.count) devices, " : "")\(counts))")
            } catch var error as ScenarioValidationError {
                if Self.isJSONSchema(file) {
                    // `castsim validate scenarios/*.json` takes in the schema beside them too.
                    print("\(file): skipped: a JSON Schema (scenario files name it in \"$schema\"), not a scenario")
                    continue
                }
                failed = true
                error.file = file  // as the person wrote it, as the line for a valid file has it
                FileHandle.standardError.write(Data((error.description + "\n").utf8))
            }
        }
        if failed { throw ExitCode(1) }
    }

    /// Whether the file is a JSON Schema document (its `$schema` is a json-schema.org
    /// dialect; a scenario's `$schema` names the scenario schema's file).
    static func isJSONSchema(_ file: String) -> Bool {
        guard let data = try? FileContents.load(file), let json = try? JSONValue.parse(data, limits: .document),
              let dialect = json["$schema"]?.stringValue else { return false }
        return dialect.hasPrefix("https://json-schema.org/") || dialect.hasPrefix("http://json-schema.org/")
    }
}

/// `castsim schema`: prints the JSON Schema of scenario files, for editors.
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema", abstract: "Print the JSON Schema of scenario files.")

    func run() {
        print(ScenarioSchema.json, terminator: "")
    }
}
