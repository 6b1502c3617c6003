import ArgumentParser
import CastControl
import CastCredentials
import CastDevice
import CastWire
import CastScenario
import CastSimulator
import Dispatch
import Foundation
import Logging
import NIOCore

/// `castsim run`: start one simulated device and keep it running until SIGINT/SIGTERM.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Start a simulated Cast device.",
        discussion: """
            The device listens for Cast senders (TLS, CASTV2) on --port and answers \
            /setup/eureka_info on --http-port and --https-port; the control API and the \
            dashboard listen on --control-host:--control-port. When every port is bound it \
            prints one line on standard output:
              castsim ready cast=HOST:PORT http=HOST:PORT https=HOST:PORT control=HOST:PORT
            Logs go to standard error. SIGINT or SIGTERM stops it cleanly.
            """)

    @Option(help: "Friendly name shown in senders' device pickers. Default: the scenario's, else \"castsim\".")
    var name: String?

    @Option(help: "A real device family to be: its model, maker, ca bits, volume control, idle screen, quirks and media (`castsim profiles` lists them), or a profile file of your own (FILE.json; `castsim profiles NAME --json` prints one to start from). A scenario names its own in device.profile.")
    var profile: String?

    @Option(help: "Model name (eureka_info model_name, mDNS md). Default: the profile's or the scenario's, else \"Chromecast\".")
    var model: String?

    @Option(help: "Device UUID: 32 hex digits, with or without dashes. Default: the scenario's, else derived from the name, so it is stable across runs.")
    var uuid: String?

    @Option(help: "A scenario file (JSON) to run: device, media catalog, timeline, rules, expectations. See `castsim schema`.")
    var scenario: String?

    @Flag(name: .customLong("exit-when-done"), help: "Exit once the scenario's timeline has run and its expectations are decided; exit code 0 only if every expectation passed.")
    var exitWhenDone = false

    @Option(help: "With --exit-when-done: give up after this long (wall time, e.g. 2m); pending expectations fail.")
    var timeout: String?

    @Option(help: "Write the scenario report (JSON) to this file when castsim stops.")
    var report: String?

    @Option(help: "Write the expectations as JUnit XML to this file when castsim stops.")
    var junit: String?

    @Option(parsing: .unconditional, help: "Run simulation time this many times faster than real time.")
    var speed: Double?

    @Flag(name: .customLong("manual-clock"), help: "Simulation time moves only by scenario `advance` steps and by \"advance DURATION\" lines on standard input.")
    var manualClock = false

    @OptionGroup var deviceOptions: DeviceOptions

    @Option(parsing: .unconditional, help: "Run this many devices in one process (a household), each on its own address (see --host) with its own name (\"castsim\", \"castsim 2\", ... after --name), UUID, eureka_info and advertisement.")
    var devices: Int = 1

    @Option(name: .customLong("heartbeat-interval"), parsing: .unconditional, help: "Seconds between the device's PINGs to each sender (default 5); 0 turns them off. Without --scenario only: a scenario sets it in its device section.")
    var heartbeatInterval: Double?

    @Option(name: .customLong("idle-timeout"), parsing: .unconditional, help: "Close a connection silent for this many seconds (default 60); 0 never closes. Without --scenario only: a scenario sets it in its device section.")
    var idleTimeout: Double?

    @Option(name: .customLong("default-duration"), parsing: .unconditional, help: "Duration in seconds of BUFFERED media loaded without one (default 600). Without --scenario only: a scenario sets it in its device section.")
    var defaultDuration: Double?

    @Flag(name: .customLong("isolate-request-ids"), help: """
        Answer the requester alone with its requestId and send other senders a copy with \
        requestId 0. Real devices broadcast the requester's id to everyone; isolation keeps \
        several pychromecast instances from completing each other's requests.
        """)
    var isolateRequestIds = false

    @Option(name: .customLong("device-auth"), help: "How device-auth challenges are answered: dev-root (a chain to the developer root), self-signed (a chain to no root), error (AuthError), ignore (no reply). Default: the scenario's, else dev-root.")
    var deviceAuth: DeviceAuthMode?

    @Flag(name: .customLong("audio-only"), help: "Simulate an audio device (no display, no Backdrop idle screen). Without --scenario only: a scenario sets it in its device section.")
    var audioOnly = false

    func validate() throws {
        if let uuid, DeviceIdentity.normalizeUUID(uuid) == nil {
            throw ValidationError("--uuid \"\(uuid)\": expected 32 hex digits, with or without dashes (8-4-4-4-12)")
        }
        if let heartbeatInterval { try Self.checkSeconds(heartbeatInterval, "--heartbeat-interval", allowZero: true) }
        if let idleTimeout { try Self.checkSeconds(idleTimeout, "--idle-timeout", allowZero: true) }
        if let defaultDuration { try Self.checkSeconds(defaultDuration, "--default-duration", allowZero: false) }
        if scenario != nil {
            // What the scenario's device section says; a flag beside it was quietly not applied.
            for (given, flag, key) in [(heartbeatInterval != nil, "--heartbeat-interval", "device.heartbeatInterval"),
                                       (idleTimeout != nil, "--idle-timeout", "device.idleTimeout"),
                                       (defaultDuration != nil, "--default-duration", "device.defaultMediaDuration"),
                                       (audioOnly, "--audio-only", "device.capabilities (\"video\": false)")] where given {
                throw ValidationError("\(flag) is for a device without a scenario; a scenario sets it in \(key)")
            }
        }
        if let timeout, case .failure(let error) = ScenarioDuration.read(timeout) {
            throw ValidationError("--timeout \(error)")
        }
        if timeout != nil, !exitWhenDone {
            throw ValidationError("--timeout says when --exit-when-done gives up; it needs --exit-when-done")
        }
        if let speed, !(speed > 0 && speed.isFinite) { throw ValidationError("--speed \(NumberText.format(speed)): expected a number > 0") }
        if let speed, speed > Self.maximumSpeed {
            throw ValidationError("--speed \(NumberText.format(speed)): at most \(NumberText.format(Self.maximumSpeed)) times real time")
        }
        if speed != nil, manualClock { throw ValidationError("--speed and --manual-clock exclude each other") }
        if exitWhenDone, scenario == nil { throw ValidationError("--exit-when-done needs --scenario") }
        // A household scenario takes a list too; its devices are counted once it is read.
        if devices == 1, scenario == nil, let host = deviceOptions.host, host.contains(",") || (host.contains("-") && !host.contains(":")) {
            throw ValidationError("--host \(host): a list or a range of addresses is for a household (--devices N); one device listens on one address")
        }
        guard (1...Self.maximumDevices).contains(devices) else {
            throw ValidationError("--devices \(devices): expected 1 to \(Self.maximumDevices) (one address each)")
        }
        if devices > 1 {
            if uuid != nil { throw ValidationError("--uuid names one device; a fleet's devices take UUIDs derived from their names") }
            if scenario != nil { throw ValidationError("--devices runs plain devices; a scenario lists its own devices") }
            if let host = deviceOptions.host {
                do { _ = try FleetAddresses.parse(host, count: devices) } catch { throw ValidationError("--host \(error)") }
            }
        }
    }

    static let maximumDevices = CastFleet.maximumDevices

    /// The fastest clock castsim runs, as scenario files allow.
    static let maximumSpeed = 1_000_000.0

    /// A flag given in seconds: finite, not negative (nor zero unless `allowZero`), and no
    /// longer than the longest duration castsim takes.
    static func checkSeconds(_ value: Double, _ flag: String, allowZero: Bool) throws {
        guard value.isFinite, allowZero ? value >= 0 : value > 0 else {
            throw ValidationError("\(flag) \(NumberText.format(value)): expected a number of seconds \(allowZero ? ">= 0" : "> 0")")
        }
        if let problem = ScenarioDuration.problem(with: value) {
            throw ValidationError("\(flag) \(NumberText.format(value)): \(problem)")
        }
    }

    func run() async throws {
        let shutdown = ShutdownSignal()
        let logger = deviceOptions.bootstrapLogging()

        var (configuration, scenarios, groups) = try makeConfiguration(logger: logger)
        try await deviceOptions.apply(to: &configuration, logger: logger)
        if speed != nil, configuration.clock == .manual {
            throw ValidationError("--speed runs a clock that moves by itself; this scenario's clock is manual (\"clock\": {\"mode\": \"manual\"}), moved by its advance steps")
        }
        if let speed { configuration.clock = .scaled(speed) }
        if manualClock { configuration.clock = .manual }
        let household = try householdConfigurations(configuration, scenarios: scenarios, groups: groups)
        let devices: [CastSimulator]
        let stop: () async -> Void
        if let household {
            try Self.checkDescriptors(for: household, limit: DescriptorLimit.raiseToHard())
            let (fleet, control) = try await deviceOptions.startFleet(household, groups: groups, logger: logger)
            devices = fleet.devices
            stop = { await control?.stop(); await fleet.stop() }
            if configuration.clock == .manual {
                // The console advances every endpoint's clock, the groups' included.
                StandardInputControl.start(devices: { fleet.endpoints }, logger: logger)
            }
        } else {
            let (simulator, control) = try await deviceOptions.start(configuration, logger: logger)
            devices = [simulator]
            stop = { await control?.stop(); await simulator.stop() }
            if configuration.clock == .manual {
                StandardInputControl.start(devices: { [simulator] }, logger: logger)
            }
        }

        let outcome = await waitForEnd(devices, shutdown: shutdown)
        logger.info("\(outcome), shutting down")
        var reports: [(device: String, report: ScenarioReport)] = []
        for device in devices {
            if let report = try? await device.report() { reports.append((device.configuration.device.identity.friendlyName, report)) }
        }
        await stop()
        guard reports.count == devices.count else { return }
        let result = FleetScenario.report(configuration.scenario.name, reports)
        try write(result)
        if (household ?? [configuration]).contains(where: { $0.scenario.expectations.count > 0 }) {
            let failed = result.expectations.filter { !$0.passed }
            logger.notice("scenario \"\(result.scenario)\": \(result.expectations.count - failed.count) of \(result.expectations.count) expectations passed")
            for expectation in failed {
                logger.notice("FAILED \(expectation.device.map { "[\($0)] " } ?? "")\"\(expectation.name)\": \(expectation.reason ?? "")")
            }
        }
        if exitWhenDone, !result.passed { throw ExitCode(1) }
    }

    /// A household whose listening sockets alone would not fit the process's limit on open
    /// files is refused before any starts, saying what fits (rather than failing at the
    /// device where the descriptors ran out).
    static func checkDescriptors(for household: [SimulatorConfiguration], limit: Int) throws {
        // Besides the listeners: standard streams, mDNS, the control API, a few senders (an
        // eighth of a small limit, so a household that fitted before still does).
        let spare = min(256, limit / 8)
        let listeners = household.reduce(0) { $0 + 1 + ($1.httpPort == nil ? 0 : 1) + ($1.httpsPort == nil ? 0 : 1) }
        guard limit > 0, listeners + spare > limit else { return }
        let castOnly = max(0, limit - spare)
        throw ValidationError(
            "\(household.count) devices need \(listeners) listening sockets; this process may open \(limit) files (its hard limit), "
                + "\(spare) of them kept for senders, mDNS and the control API: turn the HTTP ports off (--http-port off --https-port off: "
                + "one socket a device, up to \(castOnly) devices), or raise the hard limit (ulimit -Hn, as root)")
    }

    /// The devices to run together: a scenario's household, or `--devices N` copies of the
    /// device named one after the other ("castsim", "castsim 2", ...), each on its own
    /// address (--host, else 127.0.0.2, 127.0.0.3, ...). nil for one device in no household.
    private func householdConfigurations(_ first: SimulatorConfiguration, scenarios household: [Scenario], groups: [GroupDeclaration])
        throws -> [SimulatorConfiguration]?
    {
        let scenarios: [Scenario]
        if household.count > 1 || !groups.isEmpty {
            scenarios = household
        } else if devices > 1 {
            let base = first.device.identity
            scenarios = try (0..<devices).map { index in
                var scenario = first.scenario
                let name = index == 0 ? base.friendlyName : "\(base.friendlyName) \(index + 1)"
                scenario.device.identity = try DeviceIdentity(
                    uuid: DeviceIdentity.derivedUUID(for: name), friendlyName: name, modelName: base.modelName, manufacturer: base.manufacturer,
                    supportsVideo: base.supportsVideo, supportsAudio: base.supportsAudio)
                return scenario
            }
        } else {
            return nil
        }
        if deviceOptions.record != nil { throw ValidationError("--record records one device; a household of \(scenarios.count) is not recorded yet") }
        let addresses: [String]
        do {
            addresses = try deviceOptions.host.map { try FleetAddresses.parse($0, count: scenarios.count) } ?? FleetAddresses.loopback(count: scenarios.count)
        } catch {
            throw ValidationError("--host \(error)")
        }
        return zip(scenarios, addresses).map { scenario, address in
            var configuration = first
            configuration.scenario = scenario
            configuration.host = address
            // Every line a device logs says which one it is.
            configuration.logger[metadataKey: "device"] = "\(scenario.device.identity.friendlyName)"
            return configuration
        }
    }

    /// The device to run: the scenario's (if any), with identity flags applied on top; and
    /// every device of the scenario's household (one, or none without a scenario).
    private func makeConfiguration(logger: Logger) throws -> (SimulatorConfiguration, [Scenario], [GroupDeclaration]) {
        var household: [Scenario] = []
        var groups: [GroupDeclaration] = []
        var configuration: SimulatorConfiguration
        if let scenario {
            let loaded: FleetScenario
            do {
                loaded = try FleetScenario.load(contentsOf: URL(fileURLWithPath: scenario))
            } catch let error as ScenarioValidationError {
                throw ValidationError(error.description)
            }
            if profile != nil {
                throw ValidationError("--profile is for a device without a scenario; a scenario names its family in device.profile")
            }
            if loaded.devices.count > 1 || !loaded.groups.isEmpty, name != nil || model != nil || uuid != nil {
                throw ValidationError("--name, --model and --uuid name one device; this scenario's household names its own")
            }
            configuration = SimulatorConfiguration(scenario: loaded.devices[0], logger: logger)
            household = loaded.devices
            groups = loaded.groups
        } else {
            let name = self.name ?? "castsim"
            let identity = try DeviceIdentity(uuid: uuid ?? DeviceIdentity.derivedUUID(for: name), supportsVideo: !audioOnly)
            var device = DeviceConfiguration(identity: identity)
            if let profile {
                do {
                    // A name from `castsim profiles`, or a profile file of the user's own.
                    let chosen = profile.hasSuffix(".json") ? try DeviceProfile.load(contentsOf: URL(fileURLWithPath: profile))
                        : try DeviceProfile.named(profile)
                    chosen.apply(to: &device)
                } catch let error as ScenarioValidationError {
                    throw ValidationError(error.description)
                } catch {
                    throw ValidationError("\(error)")
                }
                if audioOnly { throw ValidationError("--audio-only and --profile: the profile says whether the device has video") }
            }
            // Given, a flag wins over the profile; not given, the device's defaults stand.
            if let heartbeatInterval { device.heartbeatInterval = heartbeatInterval > 0 ? heartbeatInterval : nil }
            if let idleTimeout { device.idleTimeout = idleTimeout > 0 ? idleTimeout : nil }
            if let defaultDuration { device.defaultMediaDuration = defaultDuration }
            configuration = SimulatorConfiguration(device: device, logger: logger)
        }
        var identity = configuration.device.identity
        if let name { identity.friendlyName = name }
        if let model { identity.modelName = model }
        if let uuid { identity = try DeviceIdentity(uuid: uuid, friendlyName: identity.friendlyName, modelName: identity.modelName,
                                                    manufacturer: identity.manufacturer, supportsVideo: identity.supportsVideo,
                                                    supportsAudio: identity.supportsAudio,
                                                    advertisedCapabilities: identity.advertisedCapabilities) }
        configuration.device.identity = identity
        if isolateRequestIds { configuration.device.isolateRequestIds = true }
        if let deviceAuth { configuration.device.deviceAuth = deviceAuth }
        return (configuration, household, groups)
    }

    /// Waits for a signal, or (with --exit-when-done) the scenario's end or the timeout,
    /// whichever comes first.
    private func waitForEnd(_ devices: [CastSimulator], shutdown: ShutdownSignal) async -> String {
        let exitWhenDone = self.exitWhenDone
        let timeout = self.timeout
        return await withCheckedContinuation { continuation in
            let first = FirstOutcome(continuation)
            Task { first.resolve("received \(await shutdown.wait())") }
            guard exitWhenDone else { return }
            Task {
                for device in devices { try? await device.waitUntilComplete() }
                first.resolve("scenario complete")
            }
            if let timeout, let seconds = ScenarioDuration.parse(timeout) {
                Task {
                    try? await Task.sleep(for: .seconds(seconds))
                    first.resolve("timed out after \(timeout)")
                }
            }
        }
    }

    private func write(_ report: ScenarioReport) throws {
        if let path = self.report {
            try Data((report.json() + "\n").utf8).write(to: URL(fileURLWithPath: path))
        }
        if let path = junit {
            try Data(report.junitXML().utf8).write(to: URL(fileURLWithPath: path))
        }
    }

}

extension CastSimulator {
    /// The ready line printed on standard output once every port is bound.
    var readyLine: String {
        "castsim ready cast=\(castAddress.hostAndPort) http=\(httpAddress?.hostAndPort ?? "off") https=\(httpsAddress?.hostAndPort ?? "off")"
    }
}

/// A port number 0-65535, or "off".
struct OptionalPort: ExpressibleByArgument {
    let port: Int?
    init(_ port: Int?) { self.port = port }
    init?(argument: String) {
        if argument == "off" {
            port = nil
        } else if let number = Int(argument), (0...65535).contains(number) {
            port = number
        } else {
            return nil
        }
    }
    var defaultValueDescription: String { port.map(String.init) ?? "off" }
}

struct LogLevelArgument: ExpressibleByArgument {
    let level: Logger.Level
    init(_ level: Logger.Level) { self.level = level }
    init?(argument: String) {
        guard let level = Logger.Level(rawValue: argument.lowercased()) else { return nil }
        self.level = level
    }
    var defaultValueDescription: String { level.rawValue }
    static var allValueStrings: [String] { Logger.Level.allCases.map(\.rawValue) }
}

/// Resumes a continuation with the first of several racing outcomes.
final class FirstOutcome: @unchecked Sendable {
    // @unchecked: `continuation` is only read and cleared under `lock`.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<String, Never>?

    init(_ continuation: CheckedContinuation<String, Never>) { self.continuation = continuation }

    func resolve(_ outcome: String) {
        lock.lock()
        let waiting = continuation
        continuation = nil
        lock.unlock()
        waiting?.resume(returning: outcome)
    }
}

/// castsim could not start; said in one line.
struct StartFailure: Error, CustomStringConvertible {
    let description: String
}

extension DeviceAuthMode: ExpressibleByArgument {}

enum MDNSChoice: String, ExpressibleByArgument, CaseIterable {
    case builtin, avahi, off
}
