import CastDevice
import CastScenario
import CastSimulator
import CastSimulatorTesting
import CastWire
import Foundation
import NIOCore
import NIOEmbedded
import Testing

/// The runtime's own code (framing, connection handling, queues, the scenario session) on
/// back-to-back embedded channels with the manual clock: what does not need real TLS.
@Suite("The runtime on embedded channels")
struct EmbeddedRuntimeTests {
    @Test("Two connections both receive a broadcast caused by one of them")
    func broadcastsReachBoth() {
        let device = EmbeddedCastSimulator()
        let first = device.connectSender()
        let second = device.connectSender()
        first.connect()
        second.connect()
        first.send(to: "receiver-0", CastNamespace.receiver, ["type": "SET_VOLUME", "volume": ["level": 0.4], "requestId": 7])
        for sender in [first, second] {
            let status = sender.received.last { $0.type == "RECEIVER_STATUS" && $0.requestId == 7 }
            #expect(status?.isBroadcast == true)
            #expect(status?.json["status"]?["volume"]?["level"] == 0.4)
        }
    }

    @Test("A backlog longer than one turn is handled in slices, in order, to the last message")
    func backlogIsSliced() throws {
        let device = EmbeddedCastSimulator()
        let sender = device.connectSender()
        sender.connect()
        let count = 1_000
        let burst = try Self.getStatusFrames(1...count)
        // Far more than one turn's worth (a turn is a couple of milliseconds of work).
        let replies = sender.sendRaw(burst).compactMap(\.requestId)
        #expect(replies == Array(1...count))
    }

    @Test("Frames cut anywhere across reads are put together: each request is answered once, in order")
    func framesAcrossReads() throws {
        let device = EmbeddedCastSimulator()
        let sender = device.connectSender()
        sender.connect()
        let stream = try Self.getStatusFrames(1...3)
        // Reads of 1 to 7 bytes: a length header in pieces, a body in pieces, the end of
        // one frame and the start of the next in one read.
        for size in 1...7 {
            var rest = stream
            var replies: [Int] = []
            while rest.readableBytes > 0 {
                let piece = rest.readSlice(length: min(size, rest.readableBytes))!
                replies += sender.sendRaw(piece).compactMap(\.requestId)
            }
            #expect(replies == [1, 2, 3], "reads of \(size) bytes")
        }
        #expect(device.snapshot.connections.count == 1)
    }

    @Test("The replies to the requests of one read leave together, in one flush per turn")
    func oneFlushPerRead() throws {
        let loop = EmbeddedEventLoop()
        var configuration = SimulatorConfiguration(
            device: DeviceConfiguration(identity: try DeviceIdentity(uuid: "fedcba9876543210fedcba9876543210")))
        configuration.clock = .manual
        configuration.logger.logLevel = .critical
        let runner = DeviceRunner.start(configuration, authority: nil, loop: loop)
        defer { runner.shutDown() }
        let flushes = FlushCounter()
        let channel = EmbeddedChannel(loop: loop)
        try channel.pipeline.syncOperations.addHandlers(
            flushes, CastConnectionHandler(runner: runner, logger: configuration.logger))
        channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 8009), promise: nil)

        var read = ByteBuffer()
        read.writeImmutableBuffer(try CastFraming.frame(CastEnvelope(
            sourceId: "sender-0", destinationId: "receiver-0", namespace: CastNamespace.connection, payload: .string(#"{"type":"CONNECT"}"#))))
        read.writeImmutableBuffer(try Self.getStatusFrames(1...10))
        try channel.writeInbound(read)
        var replies: [Int] = []
        for _ in 0..<100 where replies.count < 10 {
            // A slow (debug) build may take more than one turn for the ten.
            loop.advanceTime(by: CastConnectionHandler.pauseBetweenSlices)
            while var frame = try channel.readOutbound(as: ByteBuffer.self) {
                let body = frame.readBytes(length: frame.readableBytes)!.dropFirst(4)
                replies.append(try CastFraming.parse(body: Array(body)).utf8.flatMap { try JSONValue.parse($0) }?["requestId"]?.intValue ?? -1)
            }
        }
        #expect(replies == Array(1...10))
        // One flush per turn (a flush per reply would be ten).
        #expect(flushes.count <= 3)
        _ = try? channel.finish()
    }

    /// GET_STATUS frames from `sender-0` to `receiver-0`, one a request id, back to back.
    private static func getStatusFrames(_ requestIds: ClosedRange<Int>) throws -> ByteBuffer {
        var frames = ByteBuffer()
        for requestId in requestIds {
            frames.writeImmutableBuffer(try CastFraming.frame(CastEnvelope(
                sourceId: "sender-0", destinationId: "receiver-0", namespace: CastNamespace.receiver,
                payload: .string(#"{"type":"GET_STATUS","requestId":\#(requestId)}"#))))
        }
        return frames
    }

    /// Sends `bad` on one connection and checks that it alone is closed.
    private func expectOnlyOffenderClosed(_ bad: ByteBuffer, thenClose: Bool = false) {
        let device = EmbeddedCastSimulator()
        let bystander = device.connectSender()
        bystander.connect()
        let offender = device.connectSender()
        offender.connect()
        #expect(device.snapshot.connections.count == 2)
        offender.sendRaw(bad)
        // The peer goes away mid-frame: the device must drop it without harm.
        if thenClose { offender.close() }
        #expect(offender.isClosed)
        // The device forgot the offender; the bystander carries on.
        #expect(device.snapshot.connections.count == 1)
        #expect(bystander.request(CastNamespace.receiver, to: "receiver-0", ["type": "GET_STATUS"])?.type == "RECEIVER_STATUS")
    }

    /// A header declaring `length` bytes, then `count` bytes of `fill`.
    private func frame(declaring length: UInt32, _ fill: UInt8, count: Int) -> ByteBuffer {
        var frame = ByteBuffer()
        frame.writeInteger(length, endianness: .big)
        frame.writeBytes([UInt8](repeating: fill, count: count))
        return frame
    }

    @Test("A declared length over 64 KiB closes only that connection")
    func oversizedLength() { expectOnlyOffenderClosed(frame(declaring: 70_000, 0, count: 16)) }

    @Test("A body that is not a CastMessage closes only that connection")
    func garbageBody() { expectOnlyOffenderClosed(frame(declaring: 20, 0xEE, count: 20)) }

    @Test("A connection that ends inside a frame closes only that connection")
    func truncatedFrame() { expectOnlyOffenderClosed(frame(declaring: 400, 0x08, count: 10), thenClose: true) }

    @Test("A silent connection is closed after the idle timeout of real time; device PINGs arrive meanwhile")
    func idleTimeout() {
        let device = EmbeddedCastSimulator { $0.heartbeatInterval = 5; $0.idleTimeout = 60 }
        let sender = device.connectSender()
        sender.connect()
        // Hours of simulation time are nothing to the connection: no PING, no timeout.
        device.advanceClock(by: 7200)
        #expect(sender.takeNew().isEmpty && !sender.isClosed)
        device.advanceRealTime(by: 5)
        let ping = sender.takeNew().first { $0.envelope.namespace == CastNamespace.heartbeat }
        #expect(ping?.type == "PING" && ping?.envelope.sourceId == "Tr@n$p0rt-0" && ping?.envelope.destinationId == "Tr@n$p0rt-0")
        // Say nothing more: the device gives up on us at 60 s, not a moment before.
        device.advanceRealTime(by: 54.9)
        #expect(!sender.isClosed)
        device.advanceRealTime(by: 0.1)
        #expect(sender.isClosed)
        #expect(device.snapshot.connections.isEmpty)
        // One PING every 5 s of those 60 (the one due at the very end races the close:
        // the connection opened a moment before its CONNECT was heard).
        #expect((11...12).contains(sender.received.filter { $0.type == "PING" }.count))
    }

    static let scenario = """
    {"name": "embedded", "clock": {"mode": "manual"},
     "device": {"name": "Embedded TV", "idleTimeout": "0s"},
     "media": {"http://media.test/*": {"duration": "10m", "contentType": "video/mp4"}},
     "timeline": [{"after": {"event": "sessionStarted", "delay": "1m"}, "remote": "pause"}],
     "expectations": [{"name": "loads", "message": {"type": "LOAD"}, "within": "5m"}]}
    """

    @Test("A scenario in-process: drive a sender, advance the manual clock, inspect state, messages and the report")
    func scenario() throws {
        let device = EmbeddedCastSimulator(scenario: try Scenario.parse(Data(Self.scenario.utf8)))
        let sender = device.connectSender()
        let transportId = try #require(sender.launch())
        let loaded = sender.request(CastNamespace.media, to: transportId, ["type": "LOAD", "media": ["contentId": "http://media.test/a.mp4"]])
        #expect(loaded?.json["status"]?.arrayValue?.first?["media"]?["duration"] == 600)

        // Nothing moves until the test says so: then the scripted pause comes, 60 s in.
        device.advanceClock(by: 59)
        #expect(device.snapshot.media?.playerState == .playing)
        device.advanceClock(by: 1)
        let paused = sender.takeNew().last { $0.json["status"]?.arrayValue?.first?["playerState"] == "PAUSED" }
        #expect(paused?.json["status"]?.arrayValue?.first?["currentTime"] == 60)
        #expect(device.snapshot.media?.currentTime == 60)

        let types = device.receivedMessages.compactMap { $0.payload?["type"]?.stringValue }
        #expect(types.contains("LOAD"))
        let report = device.report
        #expect(report.passed && report.stepsFired == 1 && report.expectations.first?.decidedAt == 0)
    }

    @Test("Faults at the socket: a frame no sender accepts, and the sender's decoder closes", arguments: RawFrame.allCases)
    func socketFaults(kind: RawFrame) throws {
        let device = EmbeddedCastSimulator(scenario: try Scenario.parse(Data("""
        {"name": "faults", "device": {"heartbeatInterval": "0s", "idleTimeout": "0s"},
         "timeline": [{"after": {"event": "GET_STATUS"}, "sendFrame": {"kind": "\(kind.rawValue)"}}]}
        """.utf8)))
        let sender = device.connectSender()
        sender.connect()
        sender.send(to: "receiver-0", CastNamespace.receiver, ["type": "GET_STATUS", "requestId": 1])
        // The sender's own decoder refuses the frame and closes: what a sender should do.
        #expect(sender.isClosed)
        #expect(device.snapshot.connections.isEmpty)
    }
}

/// Counts the flushes that reach the socket.
private final class FlushCounter: ChannelOutboundHandler {
    typealias OutboundIn = ByteBuffer
    private(set) var count = 0

    func flush(context: ChannelHandlerContext) {
        count += 1
        context.flush()
    }
}
