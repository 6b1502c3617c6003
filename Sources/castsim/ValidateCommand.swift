import ArgumentParser
import CastScenario
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
            } catch let error as ScenarioValidationError {
                failed = true
                FileHandle.standardError.write(Data((error.description + "\n").utf8))
            }
        }
        if failed { throw ExitCode(1) }
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
