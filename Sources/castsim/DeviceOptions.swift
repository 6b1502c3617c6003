import ArgumentParser
import CastControl
import CastScenario
import CastSimulator
import Foundation
import Logging

/// Where a device listens and who can find and steer it: the options `run` and `relay`
/// share, and the start both make of them (device, control API, the ready line).
struct DeviceOptions: ParsableArguments {
    @Option(help: "Address to bind and advertise (default 0.0.0.0). With --devices N: a list (10.0.0.5,10.0.0.6), a range (10.0.0.5-9) or the first address of a range; default 127.0.0.2, 127.0.0.3, ...")
    var host: String?

    /// Where a single device listens.
    var bindHost: String { host ?? "0.0.0.0" }

    @Option(parsing: .unconditional, help: "Cast TLS port. Senders treat any port but 8009 as a cast group. 0 picks a free port.")
    var port = 8009

    @Option(name: .customLong("http-port"), help: "Port of /setup/eureka_info over HTTP; \"off\" turns it off. 0 picks a free port.")
    var httpPort = OptionalPort(8008)

    @Option(name: .customLong("https-port"), help: "Port of /setup/eureka_info over HTTPS; \"off\" turns it off. 0 picks a free port.")
    var httpsPort = OptionalPort(8443)

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical. trace logs every message.")
    var logLevel: LogLevelArgument = .init(.info)

    @Option(name: .customLong("journal-limit"), parsing: .unconditional, help: "How many of the senders' messages castsim keeps to show (the newest); expectations and reports do not depend on it.")
    var journalLimit: Int = 10_000

    @Option(name: .customLong("journal-mib"), parsing: .unconditional, help: "How many MiB of messages the journal keeps at most, whatever --journal-limit says (each message counts its text, about 200 bytes, and 8 bytes for each connection a broadcast went to).")
    var journalMiB: Int = MessageJournal.defaultByteLimit >> 20

    @Option(help: "A developer PKI directory (`castsim certs generate --out DIR`) whose device certificate answers device auth. Default: the repository's certs/, else one kept in the state directory ($XDG_STATE_HOME/castsim/certs or ~/.local/state/castsim/certs).")
    var certs: String?

    @Option(help: "Who advertises the device over mDNS: builtin (castsim's own responder, no daemon needed), avahi (a running avahi-daemon, through libavahi-client) or off.")
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

    func validate() throws {
        if redact != nil, record == nil { throw ValidationError("--redact says what a recording leaves out; it needs --record FILE") }
        _ = try redaction()
        guard (0...65535).contains(port) else { throw ValidationError("--port \(port): expected a port number 0-65535") }
        guard journalLimit >= 0 else { throw ValidationError("--journal-limit must be >= 0") }
        guard (1...65536).contains(journalMiB) else { throw ValidationError("--journal-mib \(journalMiB): expected 1-65536 (MiB)") }
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
        controlHost ?? host.flatMap { ControlConfiguration.isLoopback($0) ? $0 : nil } ?? "127.0.0.1"
    }

    /// Logs to standard error at --log-level; the logger castsim's own lines go to.
    func bootstrapLogging() -> Logger {
        let level = logLevel.level
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        var logger = Logger(label: "castsim")
        logger.logLevel = level
        return logger
    }

    /// Sets where `configuration` listens, how it is advertised, its journal and its PKI.
    func apply(to configuration: inout SimulatorConfiguration, logger: Logger) async throws {
        configuration.host = bindHost
        configuration.castPort = port
        configuration.httpPort = httpPort.port
        configuration.httpsPort = httpsPort.port
        configuration.journalLimit = journalLimit
        configuration.journalByteLimit = journalMiB << 20
        let (pki, origin) = try await PKILocation.resolve(given: certs)
        configuration.developerPKI = pki
        logger.info("device auth chains to the developer root in \(origin), SHA-256 \(pki.root.fingerprint)")
        switch mdns {
        case .builtin: configuration.discovery = .builtin(interfaces: interfaces)
        case .avahi: configuration.discovery = .avahi(interfaces: interfaces)
        case .off: configuration.discovery = .off
        }
    }

    /// A port that could not be bound, named by the flag that sets it: that is what the
    /// person at the terminal changes.
    static func describe(_ error: ListenError) -> String {
        let flag = switch error.listener {
        case .cast: "--port"
        case .http: "--http-port"
        case .https: "--https-port"
        case .control: "--control-port"
        }
        return error.description(naming: flag)
    }

    /// Starts the device and its control API and prints the ready line on standard output:
    ///   castsim ready cast=HOST:PORT http=HOST:PORT https=HOST:PORT control=HOST:PORT
    func start(_ configuration: SimulatorConfiguration, logger: Logger) async throws -> (CastSimulator, ControlServer?) {
        let simulator: CastSimulator
        do {
            simulator = try await CastSimulator.start(configuration)
        } catch let error as ListenError {
            throw StartFailure(description: Self.describe(error))
        } catch let error as DiscoveryUnavailable {
            throw StartFailure(description: "\(error.description) (--mdns, --interface)")
        }
        if let record {
            // Before the ready line: a sender that waits for it is recorded from its first byte.
            do {
                _ = try await simulator.startRecording(to: record, redacting: try redaction(), existing: .replace)
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
            } catch let error as ListenError {
                await simulator.stop()
                throw StartFailure(description: Self.describe(error) + "; --control-port off turns the control API off")
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
        let identity = configuration.device.identity
        logger.info("device \"\(identity.friendlyName)\" (\(identity.modelName), \(identity.dashedUUID)) is up: \(ready)")
        return (simulator, control)
    }

    /// Starts the devices of a fleet on one loop and one control API for all of them, and
    /// prints the ready line with each device's address in order (`castsim ctl devices`
    /// tells which is which):
    ///   castsim ready cast=HOST:PORT,HOST:PORT http=HOST:PORT,off https=... control=HOST:PORT
    func startFleet(_ configurations: [SimulatorConfiguration], groups: [GroupDeclaration] = [], logger: Logger) async throws
        -> (CastFleet, ControlServer?)
    {
        let fleet: CastFleet
        do {
            fleet = try await CastFleet.start(configurations, groups: groups)
        } catch let error as ListenError {
            throw StartFailure(description: Self.describe(error) + " (a fleet's addresses: --host)")
        } catch let error as DiscoveryUnavailable {
            throw StartFailure(description: "\(error.description) (--mdns, --interface)")
        }
        var control: ControlServer?
        if let port = controlPort.port {
            do {
                control = try await ControlServer.start(ControlConfiguration(host: effectiveControlHost, port: port, token: controlToken),
                                                        devices: { fleet.endpoints }, logger: logger)
            } catch let error as ListenError {
                await fleet.stop()
                throw StartFailure(description: Self.describe(error) + "; --control-port off turns the control API off")
            } catch {
                await fleet.stop()
                throw StartFailure(description: "\(error) (--control-host, --control-port; off turns the control API off)")
            }
        }
        // A listener every device has off is `off`; one some devices have off (a profile
        // without port 8008, say) lists `off` in those devices' places.
        func list(_ address: (CastSimulator) -> String) -> String {
            let addresses = fleet.devices.map(address)
            return addresses.allSatisfy { $0 == "off" } ? "off" : addresses.joined(separator: ",")
        }
        let ready = "castsim ready cast=\(list { $0.castAddress.hostAndPort }) http=\(list { $0.httpAddress?.hostAndPort ?? "off" }) "
            + "https=\(list { $0.httpsAddress?.hostAndPort ?? "off" }) control=\(control?.hostAndPort ?? "off")"
        FileHandle.standardOutput.write(Data((ready + "\n").utf8))
        for device in fleet.devices {
            let identity = device.configuration.device.identity
            logger.info("device \"\(identity.friendlyName)\" (\(identity.modelName), \(identity.dashedUUID)) is up: cast=\(device.castAddress.hostAndPort)")
        }
        if let control { logger.info("control API and dashboard: http://\(control.hostAndPort)/ (?device=NAME picks a device)") }
        logger.info("\(fleet.devices.count) devices are up")
        return (fleet, control)
    }
}
