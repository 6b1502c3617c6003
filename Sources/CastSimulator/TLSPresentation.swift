import CastCredentials
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL

/// The TLS identity new connections are presented, renewed while the device runs: a
/// strict sender refuses a certificate that has expired or that is valid for more than
/// 4 days, so a device that runs for a week must change it. A connection keeps the
/// certificate it was presented; device auth signs over that one.
final class TLSPresentation: Sendable {
    struct Current: Sendable {
        let credentials: DeviceCredentials
        let context: NIOSSLContext
    }

    private let state: NIOLockedValueBox<Current>
    private let renewal = NIOLockedValueBox<(task: Scheduled<Void>?, stopped: Bool)>((nil, false))

    init(_ credentials: DeviceCredentials) throws {
        state = NIOLockedValueBox(Current(credentials: credentials, context: try NIOSSLContext(configuration: credentials.tlsConfiguration())))
    }

    var current: Current { state.withLockedValue { $0 } }

    /// Renews the certificate when ``DeviceCredentials/tlsRenewalDate`` comes, again and
    /// again, until ``stop()``; a failed renewal is retried a minute later.
    func scheduleRenewal(on loop: any EventLoop, logger: Logger, retrying: Bool = false) {
        let delay = retrying ? 60 : max(0, current.credentials.tlsRenewalDate.timeIntervalSinceNow)
        renewal.withLockedValue { renewal in
            guard !renewal.stopped else { return }
            renewal.task = loop.scheduleTask(in: .nanoseconds(Int64(min(delay, 365 * 24 * 3600) * 1e9))) { [self] in
                do {
                    let renewed = try current.credentials.renewed()
                    let context = try NIOSSLContext(configuration: renewed.tlsConfiguration())
                    state.withLockedValue { $0 = Current(credentials: renewed, context: context) }
                    logger.info("TLS certificate renewed", metadata: ["notAfter": "\(renewed.tls.certificate.notValidAfter)"])
                    scheduleRenewal(on: loop, logger: logger)
                } catch {
                    // The old certificate stays until a renewal succeeds.
                    logger.error("TLS certificate renewal failed: \(error)")
                    scheduleRenewal(on: loop, logger: logger, retrying: true)
                }
            }
        }
    }

    func stop() {
        renewal.withLockedValue { renewal in
            renewal.stopped = true
            renewal.task?.cancel()
            renewal.task = nil
        }
    }
}
