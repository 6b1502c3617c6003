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

    @Option(help: "Model name (eureka_info model_name, mDNS md). Default: the scenario's, else \"Chromecast\".")
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

    @Option(help: "Run simulation time this many times faster than real time.")
    var speed: Double?

    @Flag(name: .customLong("manual-clock"), help: "Simulation time moves only by scenario `advance` steps and by \"advance DURATION\" lines on standard input.")
    var manualClock = false

    @Option(help: "Address to bind and advertise.")
    var host = "0.0.0.0"

    @Option(help: "Cast TLS port. Senders treat any port but 8009 as a cast group. 0 picks a free port.")
    var port = 8009

    @Option(name: .customLong("http-port"), help: "Port of /setup/eureka_info over HTTP; \"off\" turns it off. 0 picks a free port.")
    var httpPort = OptionalPort(8008)

    @Option(name: .customLong("https-port"), help: "Port of /setup/eureka_info over HTTPS; \"off\" turns it off. 0 picks a free port.")
    var httpsPort = OptionalPort(8443)

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical. trace logs every message.")
    var logLevel: LogLevelArgument = .init(.info)

    @Option(name: .customLong("heartbeat-interval"), help: "Seconds between the device's PINGs to each sender; 0 turns them off. Without --scenario only: a scenario sets it in its device section.")
    var heartbeatInterval: Double = 5

    @Option(name: .customLong("idle-timeout"), help: "Close a connection silent for this many seconds; 0 never closes. Without --scenario only: a scenario sets it in its device section.")
    var idleTimeout: Double = 60

    @Option(name: .customLong("default-duration"), help: "Duration in seconds of BUFFERED media loaded without one. Without --scenario only: a scenario sets it in its device section.")
    var defaultDuration: Double = 600

    @Flag(name: .customLong("isolate-request-ids"), help: """
        Answer the requester alone with its requestId and send other senders a copy with \
        requestId 0. Real devices broadcast the requester's id to everyone; isolation keeps \
        several pychromecast instances from completing each other's requests.
        """)
    var isolateRequestIds = false

    @Option(name: .customLong("journal-limit"), help: "How many of the senders' messages castsim keeps to show (the newest); expectations and reports do not depend on it.")
    var journalLimit: Int = 10_000

    @Option(help: "A developer PKI directory (`castsim certs generate --out DIR`) whose device certificate answers device auth. Default: the repository's certs/, else one kept in the state directory ($XDG_STATE_HOME/castsim/certs or ~/.local/state/castsim/certs).")
    var certs: String?

    @Option(name: .customLong("device-auth"), help: "How device-auth challenges are answered: dev-root (a chain to the developer root), self-signed (a chain to no root), error (AuthError), ignore (no reply). Default: the scenario's, else dev-root.")
    var deviceAuth: DeviceAuthMode?

    @Option(help: "Who advertises the device over mDNS: builtin (castsim's own responder, no daemon needed), avahi (a running avahi-daemon; castsim built with --traits Avahi) or off.")
    var mdns: MDNSChoice = .builtin

    @Option(name: .customLong("interface"), help: "Advertise on this network interface only (repeatable). Default: every multicast-capable interface.")
    var interfaces: [String] = []

    @Option(name: .customLong("control-host"), help: "Address of the control API and dashboard. Default: --host when that is a loopback address, else 127.0.0.1. Any other address needs --control-token.")
    var controlHost: String?

    @Option(name: .customLong("control-port"), help: "Port of the control API and dashboard (http://HOST:PORT/); \"off\" turns them off. 0 picks a free port.")
    var controlPort = OptionalPort(ControlConfiguration.defaultPort)

    @Option(name: .customLong("control-token"), help: "A secret every control request must carry (Authorization: Bearer TOKEN); needed to bind the control API to an address that is not loopback.")
    var controlToken: String?

    @Option(help: "Write a recording (JSON Lines, docs/recording.md) of everything senders and the device do to this file; `castsim scenario from-recording` turns it into a scenario.")
    var record: String?

    @Option(help: "With --record: payload members to write as \"<redacted>\", comma-separated dotted paths matched at any depth (credentials,customData.sessionToken).")
    var redact: String?

    @Flag(name: .customLong("audio-only"), help: "Simulate an audio device (no display, no Backdrop idle screen). Without --scenario only: a scenario sets it in its device section.")
    var audioOnly = false

    func validate() throws {
        if let uuid, DeviceIdentity.normalizeUUID(uuid) == nil {
            throw ValidationError("--uuid \"\(uuid)\": expected 32 hex digits, with or without dashes")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port \(port): expected a port number 0-65535") }
        try Self.checkSeconds(heartbeatInterval, "--heartbeat-interval", allowZero: true)
        try Self.checkSeconds(idleTimeout, "--idle-timeout", allowZero: true)
        try Self.checkSeconds(defaultDuration, "--default-duration", allowZero: false)
        if let timeout, case .failure(let error) = ScenarioDuration.read(timeout) {
            throw ValidationError("--timeout \(error)")
        }
        if let speed, !(speed > 0 && speed.isFinite) { throw ValidationError("--speed must be > 0") }
        if let speed, speed > Self.maximumSpeed {
            throw ValidationError("--speed \(NumberText.format(speed)): at most \(NumberText.format(Self.maximumSpeed)) times real time")
        }
        guard journalLimit >= 0 else { throw ValidationError("--journal-limit must be >= 0") }
        if speed != nil, manualClock { throw ValidationError("--speed and --manual-clock exclude each other") }
        if redact != nil, record == nil { throw ValidationError("--redact says what a recording leaves out; it needs --record FILE") }
        _ = try redaction()
        if exitWhenDone, scenario == nil { throw ValidationError("--exit-when-done needs --scenario") }
        if mdns == .off, !interfaces.isEmpty { throw ValidationError("--interface chooses where mDNS advertises; it makes no sense with --mdns off") }
        if let controlToken, controlToken.isEmpty { throw ValidationError("--control-token: expected a secret, got nothing") }
        if controlPort.port != nil, !ControlConfiguration.isLoopback(effectiveControlHost), controlToken == nil {
            throw ValidationError("--control-host \(effectiveControlHost) is reachable from the network: give a --control-token, or bind a loopback address")
        }
    }

    /// The paths `--redact` names.
    func redaction() throws -> PayloadRedaction {
        guard let redact else { return .none }
        do {
            return try PayloadRedaction(redact.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) })
        } catch {
            throw ValidationError("--redact \(error)")
        }
    }

    /// Where the control API listens: loopback by default, next to a loopback device (so
    /// devices on 127.0.0.2 and 127.0.0.3 each have their own on the same port).
    var effectiveControlHost: String {
        controlHost ?? (ControlConfiguration.isLoopback(host) ? host : "127.0.0.1")
    }

    /// The fastest clock castsim runs, as scenario files allow.
    static let maximumSpeed = 1_000_000.0

    /// A flag given in seconds: finite, not negative (nor zero unless `allowZero`), and no
    /// longer than the longest duration castsim takes.
    static func checkSeconds(_ value: Double, _ flag: String, allowZero: Bool) throws {
        guard value.isFinite, allowZero ? value >= 0 : value > 0 else {
            throw ValidationError("\(flag) must be \(allowZero ? ">= 0" : "> 0")")
        }
        if let problem = ScenarioDuration.problem(with: value) {
            throw ValidationError("\(flag) \(NumberText.format(value)): \(problem)")
        }
    }

    func run() async throws {
        let shutdown = ShutdownSignal()
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = logLevel.level
            return handler
        }
        var logger = Logger(label: "castsim")
        logger.logLevel = logLevel.level

        var configuration = try makeConfiguration(logger: logger)
        configuration.host = host
        configuration.castPort = port
        configuration.httpPort = httpPort.port
        configuration.httpsPort = httpsPort.port
        let (pki, origin) = try await PKILocation.resolve(given: certs)
        configuration.developerPKI = pki
        logger.info("device auth chains to the developer root in \(origin), SHA-256 \(pki.root.fingerprint)")
        switch mdns {
        case .builtin: configuration.discovery = .builtin(interfaces: interfaces)
        case .avahi: configuration.discovery = .avahi(interfaces: interfaces)
        case .off: configuration.discovery = .off
        }
        if let speed { configuration.clock = .scaled(speed) }
        if manualClock { configuration.clock = .manual }
        let identity = configuration.device.identity

        configuration.journalLimit = journalLimit
        let simulator: CastSimulator
        do {
            simulator = try await CastSimulator.start(configuration)
        } catch let error as ListenError {
            // Name the flag that sets the port: that is what the person at the terminal changes.
            let flag = switch error.listener {
            case .cast: "--port"
            case .http: "--http-port"
            case .https: "--https-port"
            }
            throw StartFailure(description: error.description(naming: flag))
        } catch let error as DiscoveryUnavailable {
            throw StartFailure(description: "\(error.description) (--mdns, --interface)")
        }
        if let record {
            do {
                try await simulator.startRecording(to: record, redacting: try redaction(), overwrite: true)
            } catch {
                await simulator.stop()
                throw StartFailure(description: "\(error) (--record)")
            }
        }
        var control: ControlServer?
        if let port = controlPort.port {
            do {
                control = try await ControlServer.start(ControlConfiguration(host: effectiveControlHost, port: port, token: controlToken),
                                                        simulator: simulator, logger: logger)
            } catch {
                await simulator.stop()
                throw StartFailure(description: "\(error) (--control-host, --control-port; off turns the control API off)")
            }
        }
        // Written straight to the file descriptor: scripts wait for this line, and a
        // buffered stdout would hold it back when it is a pipe.
        let ready = simulator.readyLine + " control=\(control?.hostAndPort ?? "off")"
        FileHandle.standardOutput.write(Data((ready + "\n").utf8))
        if let control { logger.info("control API and dashboard: http://\(control.hostAndPort)/") }
        logger.info("device \"\(identity.friendlyName)\" (\(identity.modelName), \(identity.dashedUUID)) is up: \(ready)")
        if configuration.clock == .manual {
            StandardInputControl.start(simulator: simulator, logger: logger)
        }

        let outcome = await waitForEnd(simulator, shutdown: shutdown)
        logger.info("\(outcome), shutting down")
        let result = try? await simulator.report()
        await control?.stop()
        await simulator.stop()
        if let result {
            try write(result)
            if configuration.scenario.expectations.count > 0 {
                let failed = result.expectations.filter { !$0.passed }
                logger.notice("scenario \"\(result.scenario)\": \(result.expectations.count - failed.count) of \(result.expectations.count) expectations passed")
                for expectation in failed {
                    logger.notice("FAILED \"\(expectation.name)\": \(expectation.reason ?? "")")
                }
            }
            if exitWhenDone, !result.passed { throw ExitCode(1) }
        }
    }

    /// The device to run: the scenario's (if any), with identity flags applied on top.
    private func makeConfiguration(logger: Logger) throws -> SimulatorConfiguration {
        var configuration: SimulatorConfiguration
        if let scenario {
            let loaded: Scenario
            do {
                loaded = try Scenario.load(contentsOf: URL(fileURLWithPath: scenario))
            } catch let error as ScenarioValidationError {
                throw ValidationError(error.description)
            }
            configuration = SimulatorConfiguration(scenario: loaded, logger: logger)
        } else {
            let name = self.name ?? "castsim"
            let identity = try DeviceIdentity(uuid: uuid ?? Self.stableUUID(for: name), supportsVideo: !audioOnly)
            var device = DeviceConfiguration(identity: identity)
            device.heartbeatInterval = heartbeatInterval > 0 ? heartbeatInterval : nil
            device.idleTimeout = idleTimeout > 0 ? idleTimeout : nil
            device.defaultMediaDuration = defaultDuration
            configuration = SimulatorConfiguration(device: device, logger: logger)
        }
        var identity = configuration.device.identity
        if let name { identity.friendlyName = name }
        if let model { identity.modelName = model }
        if let uuid { identity = try DeviceIdentity(uuid: uuid, friendlyName: identity.friendlyName, modelName: identity.modelName,
                                                    manufacturer: identity.manufacturer, supportsVideo: identity.supportsVideo,
                                                    supportsAudio: identity.supportsAudio) }
        configuration.device.identity = identity
        if isolateRequestIds { configuration.device.isolateRequestIds = true }
        if let deviceAuth { configuration.device.deviceAuth = deviceAuth }
        return configuration
    }

    /// Waits for a signal, or (with --exit-when-done) the scenario's end or the timeout,
    /// whichever comes first.
    private func waitForEnd(_ simulator: CastSimulator, shutdown: ShutdownSignal) async -> String {
        let exitWhenDone = self.exitWhenDone
        let timeout = self.timeout
        return await withCheckedContinuation { continuation in
            let first = FirstOutcome(continuation)
            Task { first.resolve("received \(await shutdown.wait())") }
            guard exitWhenDone else { return }
            Task {
                try? await simulator.waitUntilComplete()
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

    /// A UUID that depends only on the name, so a demo device keeps its identity (and its
    /// place in senders' device lists) from one run to the next.
    static func stableUUID(for name: String) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        var words: [UInt64] = []
        for round in 0..<2 {
            for byte in Array("castsim:\(round):\(name)".utf8) {
                hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            }
            words.append(hash)
        }
        return words.map { String($0, radix: 16).leftPadded(to: 16) }.joined()
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
