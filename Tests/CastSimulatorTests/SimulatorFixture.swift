import CastDevice
import CastSimulator
import CastWire
import Logging
import NIOCore
import NIOPosix

/// Starts a simulator on loopback with ephemeral ports, runs `body`, and always stops it.
func withSimulator<T>(
    configure: (inout SimulatorConfiguration) -> Void = { _ in },
    _ body: (CastSimulator, any EventLoopGroup) async throws -> T
) async throws -> T {
    var logger = Logger(label: "castsim-test")
    logger.logLevel = .critical
    var configuration = SimulatorConfiguration(
        device: DeviceConfiguration(identity: try DeviceIdentity(uuid: "fedcba9876543210fedcba9876543210", friendlyName: "Test TV")),
        logger: logger)
    configuration.host = "127.0.0.1"
    configuration.castPort = 0
    configuration.httpPort = 0
    configuration.httpsPort = 0
    configure(&configuration)
    let simulator = try await CastSimulator.start(configuration)
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    do {
        let result = try await body(simulator, group)
        await simulator.stop()
        try await group.shutdownGracefully()
        return result
    } catch {
        await simulator.stop()
        try? await group.shutdownGracefully()
        throw error
    }
}

extension TestCastClient {
    /// CONNECTs to receiver-0 and checks the link with a GET_STATUS round trip.
    func connectToReceiver(source: String = "sender-0", requestId: Int = 1) async throws -> JSONValue? {
        try await send(from: source, to: "receiver-0", CastNamespace.connection, ["type": "CONNECT"])
        try await send(from: source, to: "receiver-0", CastNamespace.receiver, ["type": "GET_STATUS", "requestId": .number(Double(requestId))])
        return await waitFor { _, json in json["type"] == "RECEIVER_STATUS" && json["requestId"]?.intValue == requestId }?.1
    }
}
