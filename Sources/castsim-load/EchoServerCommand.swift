#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import CastSimulator
import Foundation

/// `castsim-load echo-server` (hidden): the bare TLS echo server, run by castsim-load as
/// a child process of its own so that its CPU and memory are read like castsim's.
struct EchoServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "echo-server",
        abstract: "A bare TLS server answering Cast frames with a canned reply (started by castsim-load itself).",
        discussion: """
            Prints "echo-server ready cast=HOST:PORT" on standard output once it listens. Exits on \
            SIGINT, SIGTERM, or end of standard input (its parent has gone).
            """,
        shouldDisplay: false)

    @Option(help: "Address to bind.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on; 0 picks a free one.")
    var port = 0

    @Option(name: .customLong("reply-bytes"), help: "Body size of the reply to a request with a 1-digit requestId.")
    var replyBytes: Int

    @Flag(help: "Send every reply to every connection, as castsim broadcasts a status change.")
    var broadcast = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port \(port): expected a port number 0-65535") }
        guard (1...60_000).contains(replyBytes) else { throw ValidationError("--reply-bytes must be 1-60000") }
    }

    func run() async throws {
        // The parent ignores these signals while it runs; a child inherits that. Here the
        // default (end the process) is what is wanted: there is nothing to clean up.
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
        let (channel, group) = try await EchoServer.start(host: host, port: port, replyBytes: replyBytes, broadcast: broadcast)
        let address = channel.localAddress!
        FileOutput.standardOutput("echo-server ready cast=\(address.hostAndPort)")
        // Standard input is the parent's pipe: its end means the parent is gone.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                var byte: UInt8 = 0
                while true {
                    let count = read(0, &byte, 1)
                    if count == 0 || (count < 0 && errno != EINTR) { break }
                }
                continuation.resume()
            }
        }
        try? await group.shutdownGracefully()
    }
}
