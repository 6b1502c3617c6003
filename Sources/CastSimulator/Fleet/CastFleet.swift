import NIOPosix

/// Several simulated devices in one process: a household of Cast devices, each with its own
/// identity, address, ports, eureka_info, advertisement and state, all on one event loop.
///
/// One loop, not one per device: a household's devices talk to each other (a speaker group
/// plays on its members), and on one serial executor what one device does to another
/// happens in order, as a single device's own events do. Fifty idle devices cost their
/// listeners and nothing else; a fleet is not a load test (one device is: it has a loop).
public final class CastFleet: Sendable {
    /// The devices, in the order they were configured.
    public let devices: [CastSimulator]
    private let group: MultiThreadedEventLoopGroup

    private init(devices: [CastSimulator], group: MultiThreadedEventLoopGroup) {
        self.devices = devices
        self.group = group
    }

    /// Starts every device; if one cannot start (a port taken, an address the machine does
    /// not have), those already up are stopped and its error is thrown.
    public static func start(_ configurations: [SimulatorConfiguration]) async throws -> CastFleet {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var started: [CastSimulator] = []
        do {
            // One after the other: each start is a few binds and one certificate signature
            // on shared keys (``SharedKeys``), and errors then name the device that failed.
            for configuration in configurations {
                started.append(try await CastSimulator.start(configuration, sharing: group))
            }
        } catch {
            for device in started { await device.stop() }
            try? await group.shutdownGracefully()
            throw error
        }
        return CastFleet(devices: started, group: group)
    }

    /// The device with this friendly name or UUID (32 hex digits, with or without dashes; any case).
    public func device(named name: String) -> CastSimulator? {
        devices.first { $0.configuration.device.identity.matches(name) }
    }

    /// Stops every device, then their loop.
    public func stop() async {
        await withTaskGroup(of: Void.self) { tasks in
            for device in devices { tasks.addTask { await device.stop() } }
        }
        try? await group.shutdownGracefully()
    }
}
