import CastControl
import CastDevice
import CastSimulator
import CastSimulatorTesting
import CastWire
import Foundation
import Logging
import NIOCore

typealias HTTPReply = ControlClient.Reply

extension ControlClient {
    /// Reads a streamed reply (Server-Sent Events) until `done` says the text so far is
    /// enough, or `timeout` passes; `whileOpen` runs once the reply's head has arrived.
    func stream(_ path: String, timeout: Duration = .seconds(10), whileOpen: @escaping @Sendable () async throws -> Void = {},
                until done: @escaping @Sendable (String) -> Bool) async throws -> HTTPReply {
        try await withThrowingTaskGroup(of: HTTPReply?.self) { group in
            group.addTask {
                try await exchange(.GET, path, body: nil, contentType: nil, headers: [], onHead: { _ in try await whileOpen() }, stop: done)
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            let first = try await group.next()!
            group.cancelAll()
            guard let reply = first else { throw StreamTimeout() }
            return reply
        }
    }
}

struct StreamTimeout: Error {}

/// A simulator on loopback with its control server, for one test.
func withControlledDevice<T>(
    token: String? = nil,
    configure: (inout SimulatorConfiguration) -> Void = { $0.clock = .manual },
    _ body: (CastSimulator, ControlClient) async throws -> T
) async throws -> T {
    try await withCastSimulator(configure: configure) { simulator in
        var logger = Logger(label: "castsim-control-test")
        logger.logLevel = .critical
        let server = try await ControlServer.start(ControlConfiguration(host: "127.0.0.1", port: 0, token: token),
                                                   simulator: simulator, logger: logger)
        return try await stopping(server, by: { await $0.stop() }) { server in
            try await body(simulator, ControlClient(host: "127.0.0.1", port: server.port, token: token))
        }
    }
}

