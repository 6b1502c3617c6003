import CastSimulator
import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// One run of a workload against each target in turn — castsim, then the echo server —
/// starting and always stopping the servers it starts, then printing the report.
struct LoadSession {
    let options: TargetOptions

    /// The arguments of `castsim run` for a load run: a free loopback port, no HTTP
    /// listeners, warnings only (a log line per connection would cost castsim more than
    /// the connection), and no heartbeats or idle timeout, so that idle senders stay
    /// connected without answering PINGs and no timer work is mixed into the figures;
    /// no mDNS (a load run is on loopback, and advertises nothing to the host's network).
    static let castsimArguments = [
        "run", "--host", "127.0.0.1", "--port", "0", "--mdns", "off", "--http-port", "off", "--https-port", "off",
        "--log-level", "warning", "--heartbeat-interval", "0", "--idle-timeout", "0",
    ]

    func run(_ workload: some LoadWorkload) async throws {
        DescriptorLimit.raiseToHard()
        Interrupts.install()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: options.threads)
        do {
            let report = try await measure(workload, group: group)
            try? await group.shutdownGracefully()
            FileOutput.standardOutput(options.json ? report.json : report.table)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    private func measure(_ workload: some LoadWorkload, group: MultiThreadedEventLoopGroup) async throws -> LoadReport {
        let tls = try LoadConnection.makeTLSContext()
        var results: [(target: String, result: WorkloadResult)] = []
        var notes: [String] = []
        var replyBytes = options.replyBytes

        if options.target != .echo {
            let result: WorkloadResult
            if let connect = options.connect {
                let (host, port) = TargetOptions.hostAndPort(connect)!
                let address: SocketAddress
                do {
                    address = try SocketAddress.makeAddressResolvingHost(host, port: port)
                } catch {
                    throw LoadError("--connect \(connect): cannot resolve \(host): \(error)")
                }
                let target = LoadTarget(name: "castsim", address: address, pid: options.serverPid, group: group, tls: tls)
                result = try await workload.run(against: target)
                if options.serverPid == nil { notes.append("castsim at \(connect): no --server-pid, so no server CPU or memory.") }
            } else {
                result = try await run(workload, server: "castsim", executable: options.castsim.executable,
                                       arguments: Self.castsimArguments + workload.castsimArguments + options.castsim.castsimArguments,
                                       group: group, tls: tls)
            }
            results.append(("castsim", result))
            replyBytes = result.referenceReplyBytes ?? replyBytes
        }

        if options.target != .castsim {
            let bytes = replyBytes ?? TargetOptions.defaultReplyBytes
            var arguments = ["echo-server", "--port", "0", "--reply-bytes", "\(bytes)"]
            if workload.echoBroadcasts { arguments.append("--broadcast") }
            let result = try await run(workload, server: "echo", executable: Self.ownExecutable(), arguments: arguments,
                                       group: group, tls: tls)
            results.append(("echo", result))
        }

        if results.count == 2 {
            notes.append("ratio = castsim / echo: how many times the bare TLS server's figure castsim's is (for req/s and the like, the share of the ceiling it reaches).")
        }
        if results.contains(where: { $0.result.metrics.contains { $0.key.hasPrefix("server_cpu") && $0.value != nil } }) {
            notes.append("server CPU is read from /proc/PID/stat in ticks of \(Int(1000 / ProcessFigures.ticksPerSecond)) ms: a phase shorter than a second or so gives a coarse figure.")
        }
        return LoadReport(workload: workload, results: results, notes: notes)
    }

    /// Starts a server, runs the workload against it, and stops it whatever happens.
    private func run(_ workload: some LoadWorkload, server name: String, executable: String, arguments: [String],
                     group: MultiThreadedEventLoopGroup, tls: NIOSSLContext) async throws -> WorkloadResult {
        let server = try await ServerProcess.start(name: name, executable: executable, arguments: arguments)
        let target = LoadTarget(name: name, address: server.castAddress, pid: server.pid, group: group, tls: tls,
                                control: server.controlAddress)
        do {
            let result = try await workload.run(against: target)
            if let exit = server.exitDescription {
                throw LoadError("\(name) \(exit) during the run\n" + server.stderrTail(heading: "  its stderr ends with:"))
            }
            await server.stop()
            return result
        } catch {
            // A server that died explains a lost connection better than the connection does.
            let exit = server.exitDescription
            await server.stop()
            if let exit, !(error is LoadError && "\(error)".contains(exit)) {
                throw LoadError("\(name) \(exit) during the run (\(error))\n" + server.stderrTail(heading: "  its stderr ends with:"))
            }
            throw error
        }
    }

    static func ownExecutable() -> String {
        Bundle.main.executableURL?.path ?? CommandLine.arguments[0]
    }
}
