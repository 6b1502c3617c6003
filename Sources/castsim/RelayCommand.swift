import ArgumentParser
import CastControl
import CastDevice
import CastSimulator
import CastWire
import Foundation
import Logging
import NIOCore
import NIOSSL

/// `castsim relay --upstream HOST[:PORT]`: a device that senders connect to as to any
/// castsim device, whose messages go to a real Cast device (or another castsim) and back,
/// journalled both ways.
struct RelayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relay",
        abstract: "Relay senders to a real Cast device, journalling every message both ways.",
        discussion: """
            castsim listens as a device (its own TLS, device auth, mDNS advertisement and \
            eureka_info, named after the upstream) and opens its own TLS connection to the \
            upstream device for each sender connection: every message but device auth goes \
            there unchanged, and the upstream's messages come back to that sender. Device \
            auth is answered by castsim with its developer PKI, so only senders that do not \
            verify it against Google's roots (pychromecast, Chrome with \
            --cast-developer-certificate-path) can be relayed. The upstream closing, \
            resetting or refusing a connection closes the sender's, with the reason logged. \
            The control API shows both directions in the journal (GET /api/v1/journal) and \
            the links in the event stream (`upstream` events). When every port is bound it \
            prints one line on standard output:
              castsim ready cast=HOST:PORT http=HOST:PORT https=HOST:PORT control=HOST:PORT
            """)

    @Option(help: "The Cast device to relay to: HOST, HOST:PORT or [IPV6]:PORT (port 8009 unless given).")
    var upstream: String

    @Option(name: .customLong("connect-timeout"), parsing: .unconditional, help: "Seconds the TCP connect and the TLS handshake to the upstream may take, each.")
    var connectTimeout: Double = 5

    @Option(help: "Friendly name shown in senders' device pickers. Default: the upstream's (its eureka_info), else \"castsim relay HOST\".")
    var name: String?

    @Option(help: "Model name (eureka_info model_name, mDNS md). Default: the upstream's, else \"Chromecast\".")
    var model: String?

    @Option(help: "Device UUID: 32 hex digits, with or without dashes. Default: derived from the upstream's, so the relay is a device of its own, the same from one run to the next.")
    var uuid: String?

    @OptionGroup var deviceOptions: DeviceOptions

    /// How long each eureka_info lookup of the upstream may take.
    static let eurekaTimeout: Duration = .seconds(2)

    func validate() throws {
        guard RelayConfiguration(upstream: upstream) != nil else {
            throw ValidationError("--upstream \"\(upstream)\": expected HOST, HOST:PORT or [IPV6]:PORT with a port 1-65535")
        }
        if let uuid, DeviceIdentity.normalizeUUID(uuid) == nil {
            throw ValidationError("--uuid \"\(uuid)\": expected 32 hex digits, with or without dashes (8-4-4-4-12)")
        }
        try RunCommand.checkSeconds(connectTimeout, "--connect-timeout", allowZero: false)
    }

    func run() async throws {
        let shutdown = ShutdownSignal()
        let logger = deviceOptions.bootstrapLogging()
        var relay = RelayConfiguration(upstream: upstream)!
        relay.connectTimeout = .milliseconds(Int64((connectTimeout * 1000).rounded()))

        let info = await UpstreamEurekaInfo.read(host: relay.host, timeout: Self.eurekaTimeout, logger: logger)
        let friendlyName = name ?? info?.name ?? "castsim relay \(relay.host)"
        let identity = try DeviceIdentity(
            uuid: uuid ?? DeviceIdentity.derivedUUID(for: "relay of \(info?.udn ?? relay.hostAndPort)"),
            friendlyName: friendlyName, modelName: model ?? info?.model ?? "Chromecast",
            manufacturer: info?.manufacturer ?? "Google Inc.")
        var configuration = SimulatorConfiguration(device: DeviceConfiguration(identity: identity), logger: logger)
        configuration.relay = relay
        try await deviceOptions.apply(to: &configuration, logger: logger)
        logger.info("relaying every sender connection to \(relay.hostAndPort)")
        let (simulator, control) = try await deviceOptions.start(configuration, logger: logger)

        let signal = await shutdown.wait()
        logger.info("received \(signal), shutting down")
        await control?.stop()
        await simulator.stop()
    }
}

/// What a Cast device says of itself on `/setup/eureka_info`.
struct UpstreamEurekaInfo: Sendable {
    var name: String?
    var model: String?
    var manufacturer: String?
    /// `ssdp_udn`: the device's UUID.
    var udn: String?

    /// Asks `https://HOST:8443` (real devices), then `http://HOST:8008`, each for at most
    /// `timeout`; nil when neither answers with a name.
    static func read(host: String, timeout: Duration, logger: Logger) async -> UpstreamEurekaInfo? {
        var attempts: [(ControlClient, String)] = []
        var secure = ControlClient(host: host, port: 8443)
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .none
        secure.tls = try? NIOSSLContext(configuration: tls)
        if secure.tls != nil { attempts.append((secure, "https")) }
        attempts.append((ControlClient(host: host, port: 8008), "http"))
        for (var client, scheme) in attempts {
            client.connectTimeout = TimeAmount(timeout)
            let url = "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(client.port)/setup/eureka_info"
            guard let reply = await get(client, "/setup/eureka_info?params=name,device_info", timeout: timeout) else {
                logger.debug("no answer from \(url) within \(timeout)")
                continue
            }
            let json = reply.json
            guard reply.status == 200, let name = json["name"]?.stringValue, !name.isEmpty else {
                logger.debug("\(url) answered \(reply.status) without a name")
                continue
            }
            let info = UpstreamEurekaInfo(name: name, model: json["device_info"]?["model_name"]?.stringValue,
                                          manufacturer: json["device_info"]?["manufacturer"]?.stringValue,
                                          udn: json["ssdp_udn"]?.stringValue)
            logger.info("upstream is \"\(LogText.escape(name, limit: 100))\" (\(url))")
            return info
        }
        logger.notice("the upstream's eureka_info did not say its name (https port 8443, http port 8008): the relay is \"castsim relay \(host)\" unless --name says otherwise")
        return nil
    }

    /// The reply, or nil on any failure or once `timeout` has passed.
    private static func get(_ client: ControlClient, _ path: String, timeout: Duration) async -> ControlClient.Reply? {
        await withTaskGroup(of: ControlClient.Reply?.self) { group in
            group.addTask { try? await client.get(path) }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
