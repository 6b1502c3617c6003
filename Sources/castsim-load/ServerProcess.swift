#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import NIOConcurrencyHelpers
import NIOCore

/// A server this tool started as a child process (castsim, or its own echo server): it
/// waits for the server's ready line, keeps the tail of its stderr to show when things go
/// wrong, and stops it.
final class ServerProcess: Sendable {
    let name: String
    let pid: Int32
    /// The Cast port, from the ready line.
    let castAddress: SocketAddress
    /// The control API, from the ready line (castsim's, when it has one).
    let controlAddress: SocketAddress?
    private let process: SendableProcess
    private let output: ServerOutput

    private init(name: String, process: SendableProcess, output: ServerOutput, ready: ServerOutput.Ready) {
        self.name = name
        self.process = process
        self.output = output
        castAddress = ready.cast
        controlAddress = ready.control
        pid = process.value.processIdentifier
    }

    /// Starts `executable` and waits until it prints a line with `ready` and
    /// `cast=HOST:PORT` on stdout, as `castsim run` and `castsim-load echo-server` do.
    static func start(name: String, executable: String, arguments: [String],
                      readyTimeout: Duration = .seconds(10)) async throws -> ServerProcess {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw LoadError("no \(name) executable at \(executable)" + (name == "castsim"
                ? " (build it into the same folder: swift build -c release --product castsim, or pass --castsim PATH)" : ""))
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let stdout = Pipe(), stderr = Pipe(), stdin = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        // Our end stays open while we live: the echo server exits when it reads EOF, so
        // it does not outlive a load generator that was killed outright.
        process.standardInput = stdin
        let output = ServerOutput(stdin: stdin)
        stdout.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil } else { output.stdout(data) }
        }
        stderr.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil } else { output.stderr(data) }
        }
        process.terminationHandler = { process in
            output.exited(Self.describeExit(process))
        }
        do {
            try process.run()
        } catch {
            throw LoadError("cannot start \(name) (\(executable)): \(error.localizedDescription)")
        }
        let sendable = SendableProcess(value: process)
        Interrupts.register(sendable)

        let commandLine = ([executable] + arguments).joined(separator: " ")
        let timeout = Task {
            try await Task.sleep(for: readyTimeout)
            output.giveUp("did not print its ready line within \(readyTimeout.components.seconds) s")
        }
        defer { timeout.cancel() }
        do {
            let ready = try await output.waitForReady()
            return ServerProcess(name: name, process: sendable, output: output, ready: ready)
        } catch let failure as ServerOutput.Failure {
            sendable.terminate()
            Interrupts.unregister(sendable)
            throw LoadError("\(name) \(failure.reason)\n  command: \(commandLine)\n" + output.stderrTail(heading: "  its stderr ends with:"))
        }
    }

    /// The end of its stderr, indented under `heading`; empty when it wrote nothing.
    func stderrTail(heading: String) -> String { output.stderrTail(heading: heading) }

    /// How it ended, if it did: "exited with status 1", "was killed by signal 9".
    var exitDescription: String? { output.exit }

    /// SIGTERM, then SIGKILL if it has not gone within 5 s.
    func stop() async {
        let process = self.process
        await Task.detached { process.terminate() }.value
        Interrupts.unregister(process)
    }

    private static func describeExit(_ process: Process) -> String {
        switch process.terminationReason {
        case .exit: return "exited with status \(process.terminationStatus)"
        case .uncaughtSignal: return "was killed by signal \(process.terminationStatus)"
        @unknown default: return "ended (\(process.terminationStatus))"
        }
    }
}

/// A `Process`, touched only for its pid, `isRunning` and `terminate`, which are safe
/// from any thread.
struct SendableProcess: @unchecked Sendable {
    let value: Process

    var pid: Int32 { value.processIdentifier }

    /// SIGTERM, then SIGKILL if it is still there after `grace`; blocks until it is gone.
    func terminate(grace: Duration = .seconds(5)) {
        guard value.isRunning else { return }
        kill(pid, SIGTERM)
        let deadline = ContinuousClock.now + grace
        while value.isRunning, ContinuousClock.now < deadline { usleep(10_000) }
        if value.isRunning {
            kill(pid, SIGKILL)
            while value.isRunning { usleep(10_000) }
        }
    }
}

/// What a server wrote, as it arrives: stdout until its ready line, the last few KiB of
/// stderr, and how it ended.
final class ServerOutput: Sendable {
    struct Failure: Error { let reason: String }

    /// What the ready line says: the (first) Cast port, and the control API if it runs.
    struct Ready: Sendable {
        let cast: SocketAddress
        let control: SocketAddress?
    }

    private struct State {
        var stdout: [UInt8] = []
        var stderr: [UInt8] = []
        var ready: Result<Ready, Failure>?
        var waiter: CheckedContinuation<Ready, any Error>?
        var exit: String?
    }

    private static let stderrKept = 4096
    private let state = NIOLockedValueBox(State())
    /// Kept so the child's stdin stays open as long as this object lives.
    private let stdin: SendablePipe

    init(stdin: Pipe) { self.stdin = SendablePipe(value: stdin) }

    static let longestLine = 8 << 20

    func stdout(_ data: Data) {
        settle { state in
            state.stdout += data
            while let newline = state.stdout.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: state.stdout[..<newline], as: UTF8.self)
                state.stdout.removeSubrange(...newline)
                guard line.contains("ready"), let cast = Self.address("cast", in: line) else { continue }
                return .success(Ready(cast: cast, control: Self.address("control", in: line)))
            }
            // Nothing else is read from stdout; keep no more of it than a line. The ready
            // line of 10,000 devices lists 30,000 addresses: about 2.3 MB.
            if state.stdout.count > Self.longestLine { state.stdout.removeFirst(state.stdout.count - Self.longestLine) }
            return nil
        }
    }

    func stderr(_ data: Data) {
        state.withLockedValue { state in
            state.stderr += data
            if state.stderr.count > Self.stderrKept { state.stderr.removeFirst(state.stderr.count - Self.stderrKept) }
        }
    }

    func exited(_ description: String) {
        settle { state in
            state.exit = description
            return .failure(Failure(reason: description + " before it was ready"))
        }
    }

    func giveUp(_ reason: String) {
        settle { _ in .failure(Failure(reason: reason)) }
    }

    var exit: String? { state.withLockedValue { $0.exit } }

    func waitForReady() async throws -> Ready {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLockedValue { state -> Result<Ready, Failure>? in
                if state.ready == nil { state.waiter = continuation }
                return state.ready
            }
            if let ready { continuation.resume(with: ready.mapError { $0 as any Error }) }
        }
    }

    func stderrTail(heading: String) -> String {
        let text = state.withLockedValue { String(decoding: $0.stderr, as: UTF8.self) }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true).suffix(15)
        guard !lines.isEmpty else { return "" }
        return ([heading] + lines.map { "    " + $0 }).joined(separator: "\n")
    }

    /// The first outcome decides; later ones are ignored.
    private func settle(_ body: (inout State) -> Result<Ready, Failure>?) {
        let resume = state.withLockedValue { state -> (CheckedContinuation<Ready, any Error>, Result<Ready, Failure>)? in
            guard state.ready == nil, let outcome = body(&state) else { return nil }
            state.ready = outcome
            defer { state.waiter = nil }
            return state.waiter.map { ($0, outcome) }
        }
        if let resume { resume.0.resume(with: resume.1.mapError { $0 as any Error }) }
    }

    /// `KEY=HOST:PORT` in a ready line (`cast`, `control`).
    static func address(_ key: String, in line: String) -> SocketAddress? {
        guard let field = line.split(separator: " ").first(where: { $0.hasPrefix(key + "=") }) else { return nil }
        // A household lists every device's: the first is the one loaded.
        let hostPort = field.dropFirst(key.count + 1).prefix { $0 != "," }
        guard let colon = hostPort.lastIndex(of: ":"), let port = Int(hostPort[hostPort.index(after: colon)...]) else { return nil }
        var host = String(hostPort[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "0.0.0.0" { host = "127.0.0.1" }
        return try? SocketAddress(ipAddress: host, port: port)
    }
}

struct SendablePipe: @unchecked Sendable {
    let value: Pipe
}
