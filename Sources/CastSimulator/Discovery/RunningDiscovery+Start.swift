import CastDevice
import CastDiscovery
import NIOCore
import NIOPosix

extension RunningDiscovery {
    /// The mDNS advertiser the configuration asks for, probing already (or none), and what
    /// it does: where the device is advertised, or why it is not.
    static func start(_ configuration: SimulatorConfiguration, castPort: Int, loop: any EventLoop) async throws
        -> (RunningDiscovery?, DiscoveryStatus)
    {
        let description = CastServiceDescription(configuration.device, port: castPort)
        let mode = configuration.discovery.statusMode
        let interfaces: [String]
        switch configuration.discovery {
        case .off:
            return (nil, .notAdvertised(.off, "discovery is off (castsim run --mdns off)"))
        case .avahi(let names), .builtin(let names):
            interfaces = names
        }
        if interfaces.isEmpty, SocketAddress.isLoopback(host: configuration.host) {
            // An address no other host can reach is not announced to the network.
            let reason = "listening on loopback only (\(configuration.host)), so not advertised; --interface NAME advertises anyway"
            configuration.logger.info("mDNS: \(reason)")
            return (nil, .notAdvertised(mode, reason))
        }
        switch configuration.discovery {
        case .off:
            return (nil, .notAdvertised(.off, "discovery is off"))
        case .avahi:
            do {
                let advertiser = try AvahiAdvertiser(interfaceNames: interfaces, host: configuration.host, description: description,
                                                     logger: configuration.logger)
                return (.avahi(advertiser), DiscoveryStatus(mode: .avahi, advertised: true, interfaces: advertiser.interfaceNames))
            } catch let error as MDNSError {
                throw DiscoveryUnavailable(description: "Avahi: \(error.description)")
            }
        case .builtin:
            do {
                let (advertiser, answering) = try await Advertiser.start(interfaceNames: interfaces, host: configuration.host,
                                                                         description: description, loop: loop, logger: configuration.logger)
                return (.builtin(advertiser), DiscoveryStatus(mode: .builtin, advertised: true, interfaces: answering))
            } catch let error as MDNSError where interfaces.isEmpty {
                // Nothing to advertise on (a box with loopback only) or port 5353 refused:
                // the device works without being found, and says so.
                configuration.logger.error("mDNS advertising is off: \(error.description)")
                return (nil, .notAdvertised(.builtin, "the mDNS responder could not start: \(error.description)"))
            } catch let error as MDNSError {
                throw DiscoveryUnavailable(description: "mDNS: \(error.description)")
            }
        }
    }
}
