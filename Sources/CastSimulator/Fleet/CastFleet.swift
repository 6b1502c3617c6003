import CastScenario
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// Several simulated devices in one process: a household of Cast devices, each with its own
/// identity, address, ports, eureka_info, advertisement and state, all on one event loop.
///
/// One loop, not one per device: a household's devices talk to each other (a speaker group
/// plays on its members), and on one serial executor what one device does to another
/// happens in order, as a single device's own events do. Fifty idle devices cost their
/// listeners and nothing else; a fleet is not a load test (one device is: it has a loop).
public final class CastFleet: Sendable {
    /// The most devices a fleet runs. Each takes up to three sockets (8009, 8008, 8443), so
    /// ten thousand need a limit on open files above 30,000 (``DescriptorLimit``).
    public static let maximumDevices = 10_000

    /// The devices, in the order they were configured.
    public let devices: [CastSimulator]
    private let group: MultiThreadedEventLoopGroup
    /// The speaker groups' runtime (nil only for a fleet of no devices).
    private let household: NIOLoopBound<HouseholdRuntime>?
    /// The speaker groups' endpoints running now, by group UUID (the runtime keeps it).
    private let groupEndpoints: NIOLockedValueBox<[String: CastSimulator]>

    private init(devices: [CastSimulator], group: MultiThreadedEventLoopGroup, household: NIOLoopBound<HouseholdRuntime>?,
                 groupEndpoints: NIOLockedValueBox<[String: CastSimulator]>) {
        self.devices = devices
        self.group = group
        self.household = household
        self.groupEndpoints = groupEndpoints
    }

    /// Starts every device, and the speaker `groups` (members and leaders by device name);
    /// if one cannot start (a port taken, an address the machine does not have), those
    /// already up are stopped and its error is thrown.
    public static func start(_ requested: [SimulatorConfiguration], groups: [GroupDeclaration] = []) async throws -> CastFleet {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        // eureka_info asks the household which groups a device is in; it exists once the
        // devices do.
        let household = NIOLockedValueBox<NIOLoopBound<HouseholdRuntime>?>(nil)
        let groupEndpoints = NIOLockedValueBox<[String: CastSimulator]>([:])
        let configurations = requested.map { configuration in
            var configuration = configuration
            configuration.device.joinStereoPairs(groups)
            configuration.joinsHousehold = true
            let id = configuration.device.identity.uuid
            configuration.eurekaGroups = {
                guard let runtime = household.withLockedValue({ $0 }) else { return [] }
                return (try? await loop.submit { runtime.value.eurekaGroups(of: id) }.get()) ?? []
            }
            return configuration
        }
        var started: [CastSimulator] = []
        do {
            // One after the other: each start is a few binds and one certificate signature
            // on shared keys (``SharedKeys``), and errors then name the device that failed.
            for configuration in configurations {
                started.append(try await CastSimulator.start(configuration, sharing: group))
            }
            // Every fleet is a household: groups can be made later (a step, the control API).
            if let template = configurations.first {
                let runtime = try await HouseholdRuntime.start(devices: started, groups: groups, group: group, template: template,
                                                               endpoints: groupEndpoints)
                household.withLockedValue { $0 = runtime }
            }
        } catch {
            for device in started { await device.stop() }
            try? await group.shutdownGracefully()
            throw error
        }
        return CastFleet(devices: started, group: group, household: household.withLockedValue { $0 }, groupEndpoints: groupEndpoints)
    }

    /// Every endpoint a sender can reach: the devices, then the speaker groups' endpoints
    /// running now (they come and go as groups are made, deleted and lose their members).
    public var endpoints: [CastSimulator] {
        let groups = groupEndpoints.withLockedValue { $0 }
        return devices + groups.keys.sorted().map { groups[$0]! }
    }

    /// The device with this friendly name or UUID (32 hex digits, with or without dashes; any case).
    public func device(named name: String) -> CastSimulator? {
        devices.first { $0.configuration.device.identity.matches(name) }
    }

    /// Stops every group endpoint and device, then their loop.
    public func stop() async {
        if let household, let stopGroups = try? await household.eventLoop.submit({ household.value.stop() }).get() {
            await stopGroups()
        }
        await withTaskGroup(of: Void.self) { tasks in
            for device in devices { tasks.addTask { await device.stop() } }
        }
        try? await group.shutdownGracefully()
    }
}
