import CastControl
import CastDevice
import CastSimulator
import CastSimulatorTesting
import CastWire
import Foundation
import Testing

/// GET / serves the dashboard with the device's state in it, for its first paint.
@Suite("Control API: the dashboard page as served")
struct DashboardPageTests {
    static let element = try! NSRegularExpression(pattern: #"<script type="application/json" id="initial-state">(.*?)</script>"#,
                                                  options: .dotMatchesLineSeparators)

    /// The text of the page's initial-state element.
    static func servedState(_ html: String) -> String? {
        let range = NSRange(html.startIndex..., in: html)
        guard let match = element.firstMatch(in: html, range: range), let text = Range(match.range(at: 1), in: html) else { return nil }
        return String(html[text])
    }

    @Test("The page carries the state GET /api/v1/state answers, escaped so that no name can end its <script> element")
    func embedsTheState() async throws {
        let name = #"Den </script><script>alert(1)</script> & <!-- "TV""#
        try await withControlledDevice(configure: { configuration in
            configuration.clock = .manual
            configuration.device.identity.friendlyName = name
        }) { simulator, http in
            await simulator.advanceClock(by: 90)
            let page = try await http.get("/")
            #expect(page.status == 200 && page.headers["content-type"] == "text/html; charset=utf-8")
            let text = try #require(Self.servedState(page.body))
            #expect(!text.contains("<") && !text.contains(">") && !text.contains("&"))
            let served = try JSONValue.parse(text)
            #expect(served == (try await http.get("/api/v1/state")).json)
            #expect(served["device"]?["name"]?.stringValue == name && served["clock"]?["time"] == 90)
            // A device no one has: the page alone (its fetches say what is wrong).
            #expect(Self.servedState(try await http.get("/?device=nobody").body) == "null")
        }
    }
}
