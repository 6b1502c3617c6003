import ArgumentParser
import CastSimulator
import CastWire
import Foundation
import NIOCore
import NIOPosix

/// `castsim-load devices`: a household of idle devices in one process, against its budget
/// (there is no echo server of a thousand devices to compare with).
struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "N idle devices in one castsim: time to the ready line, memory per device, idle CPU, and a sender served by the last device.",
        discussion: """
            Starts `castsim run --devices 1` and then `--devices N` on consecutive loopback \
            addresses from --host (the default ports: 8009, 8008 and 8443 on each), and prints \
            for each: milliseconds from start to the ready line, resident memory, memory per \
            device over the one-device run, the process's CPU while idle, and a GET_STATUS round \
            trip on the last device. The budget row is issue 27's.
            """)

    @Option(help: "Devices (N) in the household.")
    var devices = 1_000

    @Option(help: "The first device's address; the others follow it (127.1.0.1 and 1,000 devices end at 127.1.3.232).")
    var host = "127.1.0.1"

    @Option(help: "Seconds of idling over which CPU is read.")
    var idle = 5.0

    @OptionGroup var castsim: CastsimOptions

    @Flag(help: "Print one JSON object instead of the table.")
    var json = false

    func validate() throws {
        guard (1...CastFleet.maximumDevices).contains(devices) else {
            throw ValidationError("--devices must be 1-\(CastFleet.maximumDevices)")
        }
        do { _ = try FleetAddresses.parse(host, count: devices) } catch { throw ValidationError("--host \(error)") }
        guard idle >= 1, idle <= 600 else { throw ValidationError("--idle must be 1-600 seconds") }
    }

    func run() async throws {
        DescriptorLimit.raiseToHard()
        Interrupts.install()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let one: Figures
        let many: Figures
        do {
            one = try await measure(count: 1, group: group)
            many = try await measure(count: devices, group: group)
            try? await group.shutdownGracefully()
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        let perDevice = Double(many.rssKiB - one.rssKiB) / Double(max(1, devices - 1))
        if json {
            let object: JSONValue = [
                "devices": .number(Double(devices)), "ready_ms": .number(many.readyMilliseconds), "rss_kib": .number(Double(many.rssKiB)),
                "kib_per_device": .number(perDevice), "idle_cpu_percent": .number(many.idleCPUPercent),
                "last_device_round_trip_ms": .number(many.roundTripMilliseconds),
                "one_device": ["ready_ms": .number(one.readyMilliseconds), "rss_kib": .number(Double(one.rssKiB)),
                               "idle_cpu_percent": .number(one.idleCPUPercent)],
            ]
            FileOutput.standardOutput(object.jsonText() + "\n")
            return
        }
        let rows = [
            ["", "ready ms", "RSS MiB", "KiB/device", "idle CPU %", "last device: TLS, CONNECT, GET_STATUS ms"],
            ["1 device"] + one.cells(perDevice: nil),
            ["\(devices) devices"] + many.cells(perDevice: perDevice),
            ["budget", "≤ 1000", "", "≤ 32.0", "≤ 1.0", ""],
        ]
        let lines = ["castsim-load devices: \(devices) idle devices from \(host) in one castsim", ""] + LoadReport.aligned(rows)
        FileOutput.standardOutput(lines.joined(separator: "\n") + "\n")
    }

    private struct Figures {
        let readyMilliseconds: Double
        let rssKiB: Int
        let idleCPUPercent: Double
        let roundTripMilliseconds: Double

        func cells(perDevice: Double?) -> [String] {
            [String(format: "%.0f", readyMilliseconds), String(format: "%.1f", Double(rssKiB) / 1024),
             perDevice.map { String(format: "%.1f", $0) } ?? "", String(format: "%.2f", idleCPUPercent),
             String(format: "%.2f", roundTripMilliseconds)]
        }
    }

    /// One castsim of `count` devices: started, left idle, asked once on its last device, stopped.
    private func measure(count: Int, group: MultiThreadedEventLoopGroup) async throws -> Figures {
        let addresses = try FleetAddresses.parse(host, count: count)
        let arguments = ["run", "--devices", "\(count)", "--host", count == 1 ? host : "\(host)-\(addresses.last!)",
                         "--mdns", "off", "--control-port", "off", "--log-level", "warning", "--heartbeat-interval", "0",
                         "--idle-timeout", "0"] + castsim.castsimArguments
        let started = LoadClock.now()
        let server = try await ServerProcess.start(name: "castsim", executable: castsim.executable, arguments: arguments,
                                                   readyTimeout: .seconds(120))
        let ready = Self.milliseconds(since: started)
        do {
            // What starting left behind (an mDNS-less device's first timers, the allocator
            // settling) is not idling.
            try await Task.sleep(for: .seconds(1))
            let before = try ProcessFigures.cpuTicks(pid: server.pid)
            try await Task.sleep(for: .seconds(idle))
            let idleTicks = try ProcessFigures.cpuTicks(pid: server.pid) - before
            let rss = try ProcessFigures.rssKiB(pid: server.pid)
            let last = try SocketAddress(ipAddress: addresses.last!, port: server.castAddress.port ?? 8009)
            let target = LoadTarget(name: "castsim", address: last, pid: server.pid, group: group, tls: try LoadConnection.makeTLSContext())
            let asked = LoadClock.now()
            let connection = try await LoadConnection.open(target).get()
            _ = try await connection.connectToReceiver(requestId: 1).get()
            let roundTrip = Self.milliseconds(since: asked)
            try? await connection.close().get()
            await server.stop()
            return Figures(readyMilliseconds: ready, rssKiB: rss,
                           idleCPUPercent: Double(idleTicks) / ProcessFigures.ticksPerSecond / idle * 100,
                           roundTripMilliseconds: roundTrip)
        } catch {
            await server.stop()
            throw error
        }
    }

    private static func milliseconds(since start: UInt64) -> Double {
        Double(LoadClock.now() - start) / 1e6
    }
}
