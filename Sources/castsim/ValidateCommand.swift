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
                let scenario = try Scenario.load(contentsOf: URL(fileURLWithPath: file))
                print("\(file): ok (\(scenario.name): \(scenario.timeline.count) steps, \(scenario.rules.count) rules, \(scenario.expectations.count) expectations)")
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
        print(ScenarioSchema.json)
    }
}
