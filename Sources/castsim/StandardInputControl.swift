import CastScenario
import CastWire
import CastSimulator
import Foundation
import Logging

/// The control surface of a manual clock, until the HTTP control API exists: one command
/// per line on standard input.
///
///     advance 10s      move simulation time forward
///     report           print the scenario report (JSON) on standard output
enum StandardInputControl {
    /// One console for every device (a household has several): `advance` moves each
    /// device's clock, in order; `report` prints each device's report, one line each.
    static func start(devices: @escaping @Sendable () -> [CastSimulator], logger: Logger) {
        NamedThread.start("castsim-stdin") {
            while let line = readLine() {
                let words = line.split(separator: " ").map(String.init)
                guard let command = words.first else { continue }
                switch (command, words.count) {
                case ("advance", 2):
                    let seconds: Double
                    switch ScenarioDuration.read(words[1]) {
                    case .success(let value): seconds = value
                    case .failure(let error):
                        logger.warning("control: advance \(error); nothing advanced")
                        continue
                    }
                    let done = DispatchSemaphore(value: 0)
                    Task {
                        for simulator in devices() { await simulator.advanceClock(by: seconds) }
                        done.signal()
                    }
                    done.wait()
                    logger.info("control: advanced \(ScenarioDuration.format(seconds))")
                case ("report", 1):
                    let done = DispatchSemaphore(value: 0)
                    Task {
                        for simulator in devices() {
                            if let report = try? await simulator.report() {
                                FileHandle.standardOutput.write(Data((report.json() + "\n").utf8))
                            }
                        }
                        done.signal()
                    }
                    done.wait()
                case ("advance", _):
                    logger.warning("control: \"\(LogText.escape(line, limit: 200))\": advance takes one duration, e.g. \"advance 10s\"; nothing advanced")
                case ("report", _):
                    logger.warning("control: \"\(LogText.escape(line, limit: 200))\": report takes nothing after it")
                default:
                    logger.warning("control: unknown command \"\(LogText.escape(line, limit: 200))\"; expected \"advance DURATION\" or \"report\"")
                }
            }
        }
    }
}
