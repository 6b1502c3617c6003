import CastDevice
import CastScenario
import CastSimulator
import Foundation
import NIOEmbedded
import Testing

/// The runner's discovery status follows the device: withdrawn and restored (by a step or
/// the operator), back after a reset, each change told once as news.
@Suite("Discovery status of a running device")
struct DiscoveryStatusTests {
    @Test("Advertised on an interface, withdrawn, restored, withdrawn and reset: the status and its news follow")
    func followsTheAdvertisement() throws {
        let loop = EmbeddedEventLoop()
        var configuration = SimulatorConfiguration(
            device: DeviceConfiguration(identity: try DeviceIdentity(uuid: "fedcba9876543210fedcba9876543212")))
        configuration.clock = .manual
        configuration.logger.logLevel = .critical
        let runner = DeviceRunner.start(configuration, authority: nil, loop: loop)
        defer { runner.shutDown() }
        var told: [DiscoveryStatus] = []
        _ = runner.subscribe { news in
            if case .discovery(let status) = news { told.append(status) }
        }
        let advertised = DiscoveryStatus(mode: .builtin, advertised: true, interfaces: ["eth0"])
        runner.setDiscovery(advertised)
        #expect(runner.discoveryStatus == advertised)

        runner.apply(.advertise(.withdraw))
        let withdrawn = runner.discoveryStatus
        #expect(!withdrawn.advertised && withdrawn.mode == .builtin && withdrawn.interfaces == ["eth0"])
        #expect(withdrawn.reason?.hasPrefix("withdrawn") == true, "\(withdrawn)")
        // A second withdraw changes nothing, and tells nothing.
        runner.apply(.advertise(.withdraw))
        runner.apply(.advertise(.restore(host: nil, port: nil)))
        #expect(runner.discoveryStatus == advertised)
        runner.apply(.advertise(.withdraw))
        runner.reset(to: runner.session.scenario, clockMode: .manual)
        #expect(runner.discoveryStatus == advertised, "a reset device is advertised again")
        #expect(told == [advertised, withdrawn, advertised, withdrawn, advertised])
    }

    @Test("Not advertised at all (mDNS off): a withdraw and a restore change nothing, and nothing is told")
    func offStaysOff() throws {
        let loop = EmbeddedEventLoop()
        var configuration = SimulatorConfiguration(
            device: DeviceConfiguration(identity: try DeviceIdentity(uuid: "fedcba9876543210fedcba9876543213")))
        configuration.clock = .manual
        configuration.logger.logLevel = .critical
        let runner = DeviceRunner.start(configuration, authority: nil, loop: loop)
        defer { runner.shutDown() }
        let off = DiscoveryStatus(mode: .off, advertised: false, reason: "discovery is off (castsim run --mdns off)")
        runner.setDiscovery(off)
        var told = 0
        _ = runner.subscribe { news in
            if case .discovery = news { told += 1 }
        }
        runner.apply(.advertise(.withdraw))
        #expect(runner.discoveryStatus == off)
        runner.apply(.advertise(.restore(host: nil, port: nil)))
        #expect(runner.discoveryStatus == off && told == 0)
    }
}
