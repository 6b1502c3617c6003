import CastDevice
import Hummingbird
import Logging
import NIOCore

/// Ports 8008 and 8443 as the device's eureka quirks have them: `/setup/eureka_info`
/// served plain or over TLS, a handshake that never completes, or nothing at all.
enum EurekaListeners {
    /// What is listening, and the lock-up the device shares with its Cast channel.
    struct Started {
        var http: (any RunningEndpoint)?
        var https: (any RunningEndpoint)?
        var lockUp: EurekaLockUp
    }

    /// Starts both ports; each one up is appended to `started` as soon as it listens, so a
    /// later failure can take it down again. `lockingUp` runs when `crashAfterPolls` is reached.
    static func start(_ configuration: SimulatorConfiguration, tls: TLSPresentation, started: inout [any RunningEndpoint],
                      lockingUp: @escaping @Sendable () async -> Void) async throws -> Started {
        let quirks = configuration.device.effectiveQuirks.eureka
        let device = EurekaRoutes.Device(
            identity: configuration.device.identity, quirks: quirks, groups: configuration.eurekaGroups,
            lockUp: EurekaLockUp(limit: quirks.crashAfterPolls),
            lockingUp: {
                configuration.logger.warning("eureka_info polled \(quirks.crashAfterPolls ?? 0) times: the device locks up (quirks.eureka.crashAfterPolls)")
                await lockingUp()
            })
        let http = quirks.http == .closed ? nil
            : try await server(.http, port: configuration.httpPort, tls: nil, device: device, legacy: quirks.http == .flat,
                               configuration: configuration)
        http.map { started.append($0) }
        let https: (any RunningEndpoint)?
        switch quirks.https {
        case .deviceInfo:
            https = try await server(.https, port: configuration.httpsPort, tls: tls, device: device, legacy: false,
                                     configuration: configuration)
        case .tlsEOF, .stall:
            https = try await brokenTLS(quirks.https, port: configuration.httpsPort, configuration: configuration)
        case .closed:
            https = nil
        }
        https.map { started.append($0) }
        return Started(http: http, https: https, lockUp: device.lockUp)
    }

    /// `/setup/eureka_info` on `port` (nil: not served), over TLS when `tls` is given; a
    /// port it cannot bind is a ``ListenError`` naming `listener`.
    private static func server(_ listener: ListenError.Listener, port: Int?, tls: TLSPresentation?, device: EurekaRoutes.Device,
                               legacy: Bool, configuration: SimulatorConfiguration) async throws -> DeviceHTTPListener?
    {
        guard let port else { return nil }
        let router = EurekaRoutes.router(device, legacy: legacy, dial: tls == nil)
        // Hummingbird's own lines say nothing a user needs.
        var quiet = configuration.logger
        quiet.logLevel = max(quiet.logLevel, .warning)
        do {
            return try await DeviceHTTPListener.start(router: router, host: configuration.host, port: port, tls: tls, logger: quiet)
        } catch {
            throw ListenError(listener: listener, host: configuration.host, port: port, error: error)
        }
    }

    /// Port 8443 of a device whose TLS handshake never completes (nil: not served).
    private static func brokenTLS(_ mode: DeviceQuirks.Eureka.HTTPS, port: Int?, configuration: SimulatorConfiguration) async throws
        -> BrokenTLSListener?
    {
        guard let port else { return nil }
        do {
            return try await BrokenTLSListener.start(mode, host: configuration.host, port: port)
        } catch {
            throw ListenError(listener: .https, host: configuration.host, port: port, error: error)
        }
    }
}
