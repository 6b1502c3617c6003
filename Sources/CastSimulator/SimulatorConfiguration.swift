import CastCredentials
import CastDevice
import CastScenario
import Foundation
import Logging

/// How to run a simulated device: the device itself, where it listens, and its clock.
public struct SimulatorConfiguration: Sendable {
    /// The device, and what happens to it. A plain run is ``Scenario/plain(_:name:)``.
    public var scenario: Scenario
    public var device: DeviceConfiguration {
        get { scenario.device }
        set { scenario.device = newValue }
    }
    /// The address to bind (and, later, advertise). 0.0.0.0 listens everywhere.
    public var host: String = "0.0.0.0"
    /// The Cast TLS port. Senders treat anything but 8009 as a cast group.
    public var castPort: Int = 8009
    /// `/setup/eureka_info` over plain HTTP; nil turns it off.
    public var httpPort: Int? = 8008
    /// `/setup/eureka_info` over HTTPS; nil turns it off.
    public var httpsPort: Int? = 8443
    public var clock: ClockMode = .real
    /// Bytes a connection may have queued but unsent before it is dropped as stalled.
    public var outboundQueueLimit: Int = 4 * 1024 * 1024
    /// How long a sender may leave its replies unread (its socket full) before it is
    /// dropped; nil waits forever. Reading from it stops meanwhile, so it costs nothing.
    public var stalledReaderTimeout: Duration? = .seconds(30)
    /// How many of the senders' messages the journal keeps (the newest); expectations do
    /// not depend on it, only what ``CastSimulator/receivedMessages()`` can still show.
    public var journalLimit: Int = MessageJournal.defaultLimit
    /// How many bytes of messages the journal keeps at most (roughly: each entry's size and
    /// its text), whatever `journalLimit` says: ten thousand 64 KiB payloads would be 640 MiB.
    public var journalByteLimit: Int = MessageJournal.defaultByteLimit
    /// The developer PKI whose device certificate answers device auth (`castsim` reads
    /// `certs/`); nil: one made in memory, once per process.
    public var developerPKI: DeveloperPKI?
    /// How long each TLS certificate is valid; it is renewed a day before it expires (half
    /// way through, for a lifetime under two days). Under 4 days, or strict senders refuse it.
    public var tlsCertificateLifetime: TimeInterval = TLSCertificate.lifetime
    /// How the device is advertised over mDNS. Off unless asked: an embedded test device
    /// must not appear on the host's network (`castsim run` turns it on).
    public var discovery: DiscoveryMode = .off
    /// Relay mode: senders' messages go to this upstream device and its messages come
    /// back, unchanged and journalled; the simulated device answers device auth only (its
    /// heartbeat and idle timeout are turned off: it sends nothing of its own). nil: the
    /// simulated device answers everything.
    public var relay: RelayConfiguration?
    /// The speaker groups the device belongs to as things stand, for its eureka_info
    /// (`params=multizone`); a household's runtime answers, asked on each request.
    package var eurekaGroups: @Sendable () async -> [EurekaGroup] = { [] }
    /// A fleet's device: in a household from its start (its household steps that fire
    /// before the household is attached wait for it).
    package var joinsHousehold = false
    /// The apps the device can run (tests register their own).
    package var apps: AppRegistry = .builtIn
    public var logger: Logger

    public init(device: DeviceConfiguration, logger: Logger = Logger(label: "castsim")) {
        scenario = .plain(device)
        self.logger = logger
    }

    /// Runs `scenario`, with the clock it asks for.
    public init(scenario: Scenario, logger: Logger = Logger(label: "castsim")) {
        self.scenario = scenario
        self.logger = logger
        switch scenario.clock {
        case .scaled(let factor)?: clock = .scaled(factor)
        case .manual?: clock = .manual
        case .real?, nil: clock = .real
        }
    }
}

/// Who publishes the device's mDNS records.
public enum DiscoveryMode: Sendable, Equatable {
    case off
    /// castsim's own responder on UDP 5353, on `interfaces` (names; empty: every
    /// multicast-capable one).
    case builtin(interfaces: [String])
    /// A running avahi-daemon, through libavahi-client (opened when asked for: ``AvahiLibrary``).
    case avahi(interfaces: [String])
}
