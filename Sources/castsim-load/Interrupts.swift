#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import NIOConcurrencyHelpers

/// Ctrl-C or SIGTERM during a run stops the servers this tool started before it exits,
/// so no castsim or echo server is left running, holding a port.
enum Interrupts {
    private static let children = NIOLockedValueBox<[SendableProcess]>([])
    private static let sources = NIOLockedValueBox<[SignalSource]>([])

    /// Catches SIGINT and SIGTERM from now on.
    static func install() {
        sources.withLockedValue { sources in
            guard sources.isEmpty else { return }
            for number in [SIGINT, SIGTERM] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { stopChildrenAndExit(signal: number) }
                source.resume()
                sources.append(SignalSource(value: source))
            }
        }
    }

    static func register(_ process: SendableProcess) {
        children.withLockedValue { $0.append(process) }
    }

    static func unregister(_ process: SendableProcess) {
        children.withLockedValue { $0.removeAll { $0.pid == process.pid } }
    }

    private static func stopChildrenAndExit(signal: Int32) {
        let running = children.withLockedValue { $0 }
        if !running.isEmpty {
            FileOutput.standardError("castsim-load: interrupted; stopping \(running.count) server\(running.count == 1 ? "" : "s")")
        }
        for child in running { child.terminate(grace: .seconds(3)) }
        exit(128 + signal)
    }
}

struct SignalSource: @unchecked Sendable {
    let value: any DispatchSourceSignal
}
