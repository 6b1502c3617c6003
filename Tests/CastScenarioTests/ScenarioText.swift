import CastScenario
import Foundation

/// Scenario files written inline in tests.
enum ScenarioText {
    static func parse(_ text: String) throws(ScenarioValidationError) -> Scenario {
        try Scenario.parse(Data(text.utf8))
    }

    /// The issues a file produces, as "path: message" lines; none when it is valid.
    static func issues(_ text: String) -> [String] {
        do {
            _ = try parse(text)
            return []
        } catch {
            return error.issues.map(\.description)
        }
    }
}
