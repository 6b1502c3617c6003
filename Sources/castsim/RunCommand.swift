import ArgumentParser
import CastDevice
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
            /setup/eureka_info on --http-port and --https-port. When every port is bound it \
            prints one line on standard output:
              castsim ready cast=HOST:PORT http=HOST:PORT https=HOST:PORT
            Logs go to standard error. SIGINT or SIGTERM stops it cleanly.
            """)

    @Option(help: "Friendly name shown in senders' device pickers.")
    var name = "castsim"

    @Option(help: "Model name (eureka_info model_name, mDNS md).")
    var model = "Chromecast"

    @Option(help: "Device UUID: 32 hex digits, with or without dashes. Default: derived from --name, so it is stable across runs.")
    var uuid: String?

    @Option(help: "Address to bind and advertise.")
    var host = "0.0.0.0"

    @Option(help: "Cast TLS port. Senders treat any port but 8009 as a cast group. 0 picks a free port.")
    var port = 8009

    @Option(name: .customLong("http-port"), help: "Port of /setup/eureka_info over HTTP; -1 turns it off. 0 picks a free port.")
    var httpPort = 8008

    @Option(name: .customLong("https-port"), help: "Port of /setup/eureka_info over HTTPS; -1 turns it off. 0 picks a free port.")
    var httpsPort = 8443

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical. trace logs every message.")
    var logLevel: LogLevelArgument = .init(.info)

    @Option(name: .customLong("heartbeat-interval"), help: "Seconds between the device's PINGs to each sender; 0 turns them off.")
    var heartbeatInterval: Double = 5

    @Option(name: .customLong("idle-timeout"), help: "Close a connection silent for this many seconds; 0 never closes.")
    var idleTimeout: Double = 60

    @Option(name: .customLong("default-duration"), help: "Duration in seconds of BUFFERED media loaded without one.")
    var defaultDuration: Double = 600

    @Flag(name: .customLong("isolate-request-ids"), help: """
        Answer the requester alone with its requestId and send other senders a copy with \
        requestId 0. Real devices broadcast the requester's id to everyone; isolation keeps \
        several pychromecast instances from completing each other's requests.
        """)
    var isolateRequestIds = false

    @Flag(name: .customLong("audio-only"), help: "Simulate an audio device (no display, no Backdrop idle screen).")
    var audioOnly = false

    func validate() throws {
        if let uuid, DeviceIdentity.normalizeUUID(uuid) == nil {
            throw ValidationError("--uuid \"\(uuid)\": expected 32 hex digits, with or without dashes")
        }
        for (flag, value) in [("--port", port), ("--http-port", httpPort), ("--https-port", httpsPort)] {
            let allowsOff = flag != "--port"
            guard (allowsOff && value == -1) || (0...65535).contains(value) else {
                throw ValidationError("\(flag) \(value): expected a port number 0-65535\(allowsOff ? " or -1 to turn it off" : "")")
            }
        }
        guard heartbeatInterval >= 0, heartbeatInterval.isFinite else { throw ValidationError("--heartbeat-interval must be >= 0") }
        guard idleTimeout >= 0, idleTimeout.isFinite else { throw ValidationError("--idle-timeout must be >= 0") }
        guard defaultDuration > 0, defaultDuration.isFinite else { throw ValidationError("--default-duration must be > 0") }
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

        let identity = try DeviceIdentity(
            uuid: uuid ?? Self.stableUUID(for: name), friendlyName: name, modelName: model,
            supportsVideo: !audioOnly)
        var device = DeviceConfiguration(identity: identity)
        device.heartbeatInterval = heartbeatInterval > 0 ? heartbeatInterval : nil
        device.idleTimeout = idleTimeout > 0 ? idleTimeout : nil
        device.defaultMediaDuration = defaultDuration
        device.isolateRequestIds = isolateRequestIds

        var configuration = SimulatorConfiguration(device: device, logger: logger)
        configuration.host = host
        configuration.castPort = port
        configuration.httpPort = httpPort >= 0 ? httpPort : nil
        configuration.httpsPort = httpsPort >= 0 ? httpsPort : nil

        let simulator = try await CastSimulator.start(configuration)
        // Written straight to the file descriptor: scripts wait for this line, and a
        // buffered stdout would hold it back when it is a pipe.
        FileHandle.standardOutput.write(Data((simulator.readyLine + "\n").utf8))
        logger.info("device \"\(identity.friendlyName)\" (\(identity.modelName), \(identity.dashedUUID)) is up: \(simulator.readyLine)")
        let signal = await shutdown.wait()
        logger.info("received \(signal), shutting down")
        await simulator.stop()
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
        return words.map { String($0, radix: 16).leftPadded(16) }.joined()
    }
}

extension CastSimulator {
    /// The ready line printed on standard output once every port is bound.
    var readyLine: String {
        "castsim ready cast=\(castAddress.hostAndPort) http=\(httpAddress?.hostAndPort ?? "off") https=\(httpsAddress?.hostAndPort ?? "off")"
    }
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

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
