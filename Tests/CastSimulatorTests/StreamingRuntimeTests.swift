import CastDevice
import CastSimulator
import CastSimulatorTesting
import CastStreaming
import CastWire
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

/// The media plane on real sockets (docs/protocol/streaming.md §3, §4): the ANSWER's port is
/// a UDP socket on the device's address, RTCP comes back from it at once, RTP keeps a silent
/// sender's TLS connection alive, and a session whose RTP stops ends and says why.
@Suite("Cast Streaming on real sockets")
struct StreamingRuntimeTests {
    static let webrtc = "urn:x-cast:com.google.cast.webrtc"
    static let key: [UInt8] = Array(repeating: 0x11, count: 16)
    static let mask: [UInt8] = Array(repeating: 0x22, count: 16)

    static let offer: JSONValue = [
        "type": "OFFER", "seqNum": 1, "offer": ["castMode": "mirroring", "supportedStreams": [[
            "index": 0, "type": "video_source", "codecName": "vp8", "rtpProfile": "cast", "rtpPayloadType": 96, "ssrc": 63938,
            "targetDelay": 400, "timeBase": "1/90000", "maxFrameRate": "30", "maxBitRate": 5050880,
            "aesKey": .string(String(repeating: "11", count: 16)), "aesIvMask": .string(String(repeating: "22", count: 16)),
        ]]],
    ]

    /// LAUNCHes the mirroring app, CONNECTs as Open Screen's sender does, OFFERs: the ANSWER.
    private func negotiate(_ sender: CastTestSender) async throws -> JSONValue {
        let transportId = try await sender.launch("0F5096E8")
        try await sender.send(from: "streaming_sender-10000", to: transportId, CastNamespace.connection, ["type": "CONNECT"])
        try await sender.send(from: "streaming_sender-10000", to: transportId, Self.webrtc, Self.offer)
        let answer = await sender.waitFor { envelope, json in envelope.namespace == Self.webrtc && json["type"] == "ANSWER" }
        let (envelope, json) = try #require(answer)
        #expect(envelope.sourceId == transportId && envelope.destinationId == "streaming_sender-10000")
        return json
    }

    @Test("RTP to the ANSWER's port is ACKed from the device's own address; frames complete; the figures reach the app's state")
    func streams() async throws {
        try await withCastSimulator { simulator in
            let sender = try await CastTestSender.connect(to: simulator)
            defer { Task { await sender.close() } }
            let answer = try await negotiate(sender)
            #expect(answer["result"] == "ok" && answer["answer"]?["ssrcs"] == [63939])
            let port = try #require(answer["answer"]?["udpPort"]?.intValue)
            let peer = try await UDPPeer.bind(host: "127.0.0.1")
            defer { Task { await peer.close() } }
            let device = try SocketAddress(ipAddress: "127.0.0.1", port: port)
            var packetizer = FramePacketizer(ssrc: 63938, key: Self.key, ivMask: Self.mask)
            try await peer.send(packetizer.senderReport(ntp: 0xeeb2_37a8_1a2b_3c4d, rtpTimestamp: 0), to: device)
            let afterReport = try #require(await peer.next())
            #expect(afterReport.from == device)
            #expect(CastFeedbackReading(afterReport.bytes)?.hasReportBlock == true)
            for frameId in Int64(0)..<10 {
                let plain = [UInt8](repeating: UInt8(frameId), count: frameId == 0 ? 5000 : 800)
                for packet in packetizer.packets(frameId: frameId, plain: plain, keyFrame: frameId == 0, rtpTimestamp: UInt32(frameId) * 3000) {
                    try await peer.send(packet, to: device)
                }
                // Acknowledged at once: the sender allows about 80 ms in flight.
                let feedback = try #require(await peer.next(until: { CastFeedbackReading($0)?.checkpoint == UInt8(frameId) }))
                #expect(feedback.from == device)
            }
            try await waitUntil("the app shows 10 video frames") {
                try await simulator.snapshot().runningApp?.state.panel?["streaming"]?["streams"]?[0]?["framesReceived"] == 10
            }
            let stream = try #require(try await simulator.snapshot().runningApp?.state.panel?["streaming"]?["streams"]?[0])
            #expect(stream["keyFrames"] == 1 && stream["packetsLost"] == 0 && stream["receiverSsrc"] == 63939)
        }
    }

    @Test("A sender that only streams stays connected past the idle timeout; when its RTP stops, the session ends and its socket closes")
    func liveness() async throws {
        try await withCastSimulator(configure: { $0.device.idleTimeout = 1.5 }) { simulator in
            let sender = try await CastTestSender.connect(to: simulator)
            defer { Task { await sender.close() } }
            let answer = try await negotiate(sender)
            let port = try #require(answer["answer"]?["udpPort"]?.intValue)
            let peer = try await UDPPeer.bind(host: "127.0.0.1")
            defer { Task { await peer.close() } }
            let device = try SocketAddress(ipAddress: "127.0.0.1", port: port)
            var packetizer = FramePacketizer(ssrc: 63938, key: Self.key, ivMask: Self.mask)
            // 3 s of frames, nothing on the TLS connection: twice the idle timeout.
            let start = ContinuousClock.now
            var frameId: Int64 = 0
            while ContinuousClock.now - start < .seconds(3) {
                for packet in packetizer.packets(frameId: frameId, plain: [1, 2, 3], keyFrame: frameId == 0, rtpTimestamp: UInt32(frameId) * 3000) {
                    try await peer.send(packet, to: device)
                }
                frameId += 1
                try await Task.sleep(for: .milliseconds(33))
            }
            #expect(try await simulator.snapshot().connections.count == 1, "the streaming sender was dropped for silence on TLS")
            try await waitUntil("the session ends for want of RTP", timeout: .seconds(6)) {
                try await simulator.snapshot().runningApp?.state.panel?["streaming"]?["state"] == "ended"
            }
            let reason = try await simulator.snapshot().runningApp?.state.panel?["streaming"]?["endReason"]?.stringValue
            #expect(reason?.hasPrefix("no RTP from the sender for") == true)
            // The port is free again: the session's socket is gone.
            let again = try await UDPPeer.bind(host: "127.0.0.1", port: port)
            await again.close()
        }
    }

    @Test("The scenario's network: a delay holds every datagram that long, feedback off sends nothing, 100 % loss takes nothing")
    func impairments() async throws {
        try await withCastSimulator(configure: { $0.device.appSections["mirroring"] = ["delay": 0.3] }) { simulator in
            let sender = try await CastTestSender.connect(to: simulator)
            defer { Task { await sender.close() } }
            let port = try #require(try await negotiate(sender)["answer"]?["udpPort"]?.intValue)
            let peer = try await UDPPeer.bind(host: "127.0.0.1")
            defer { Task { await peer.close() } }
            let device = try SocketAddress(ipAddress: "127.0.0.1", port: port)
            var packetizer = FramePacketizer(ssrc: 63938, key: Self.key, ivMask: Self.mask)
            func frame(_ id: Int64) async throws {
                for packet in packetizer.packets(frameId: id, plain: [1, 2, 3], keyFrame: id == 0, rtpTimestamp: UInt32(id) * 3000) {
                    try await peer.send(packet, to: device)
                }
            }
            let sent = ContinuousClock.now
            try await frame(0)
            _ = try #require(await peer.next(until: { CastFeedbackReading($0)?.checkpoint == 0 }))
            #expect(ContinuousClock.now - sent >= .milliseconds(300), "the ACK came before the datagram's delay")

            try await simulator.apply(.app(AppAction(key: "mirroring", value: ["delay": 0, "feedback": false])))
            try await frame(1)
            // Frame 1 goes unacknowledged. A report sent before the switch (one every 500 ms,
            // acknowledging frame 0) may still be on its way or unread: on a loaded machine
            // one was, and a check for any feedback at all failed on it.
            #expect(await peer.next(timeout: .milliseconds(600), until: { CastFeedbackReading($0)?.checkpoint ?? 0 >= 1 }) == nil)

            try await simulator.apply(.app(AppAction(key: "mirroring", value: ["feedback": true, "packetLoss": 100])))
            for id in Int64(2)..<6 { try await frame(id) }
            #expect(await peer.next(timeout: .milliseconds(600), until: { CastFeedbackReading($0)?.checkpoint ?? 0 > 1 }) == nil)
            try await waitUntil("the dropped datagrams are counted") {
                try await simulator.snapshot().runningApp?.state.panel?["streaming"]?["droppedByScenario"] == 4
            }
            try await simulator.apply(.app(AppAction(key: "mirroring", value: ["packetLoss": 0])))
            try await frame(6)
            // Frame 1 came while feedback was off; frames 2–5 were lost: the feedback NACKs them whole.
            let feedback = try #require(await peer.next(until: { CastFeedbackReading($0)?.losses.isEmpty == false }))
            #expect(CastFeedbackReading(feedback.bytes)?.checkpoint == 1)
            #expect(CastFeedbackReading(feedback.bytes)?.losses.map(\.frameId) == [2, 3, 4, 5])
        }
    }

    @Test("Datagrams from a host other than the sender's get nothing back")
    func otherHostsIgnored() async throws {
        try await withCastSimulator { simulator in
            let sender = try await CastTestSender.connect(to: simulator)
            defer { Task { await sender.close() } }
            let port = try #require(try await negotiate(sender)["answer"]?["udpPort"]?.intValue)
            let stranger = try await UDPPeer.bind(host: "127.0.0.2")
            defer { Task { await stranger.close() } }
            let packetizer = FramePacketizer(ssrc: 63938, key: Self.key, ivMask: Self.mask)
            try await stranger.send(packetizer.senderReport(ntp: 1, rtpTimestamp: 0), to: try SocketAddress(ipAddress: "127.0.0.1", port: port))
            #expect(await stranger.next(timeout: .milliseconds(500)) == nil)
        }
    }
}

/// Polls `condition` until it holds, or fails the test after `timeout`.
func waitUntil(_ what: String, timeout: Duration = .seconds(5), _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("timed out: \(what)")
}

/// A UDP socket for a test: sends datagrams, and hands over what comes back.
final class UDPPeer: Sendable {
    struct Datagram: Sendable, Equatable {
        var from: SocketAddress
        var bytes: [UInt8]
    }

    private let channel: any Channel
    private let inbox: NIOLockedValueBox<[Datagram]>

    private init(channel: any Channel, inbox: NIOLockedValueBox<[Datagram]>) {
        self.channel = channel
        self.inbox = inbox
    }

    static func bind(host: String, port: Int = 0) async throws -> UDPPeer {
        let inbox = NIOLockedValueBox<[Datagram]>([])
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Collector(inbox: inbox)) }
            }
            .bind(host: host, port: port).get()
        return UDPPeer(channel: channel, inbox: inbox)
    }

    func send(_ bytes: [UInt8], to address: SocketAddress) async throws {
        try await channel.writeAndFlush(AddressedEnvelope(remoteAddress: address, data: ByteBuffer(bytes: bytes)))
    }

    /// The next datagram whose bytes satisfy `matches` (those before it are passed over),
    /// or nil after `timeout`.
    func next(timeout: Duration = .seconds(5), until matches: ([UInt8]) -> Bool = { _ in true }) async -> Datagram? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let waiting = inbox.withLockedValue { inbox in
                defer { inbox.removeAll() }
                return inbox
            }
            if let index = waiting.firstIndex(where: { matches($0.bytes) }) {
                let rest = Array(waiting[(index + 1)...])
                inbox.withLockedValue { $0.insert(contentsOf: rest, at: 0) }
                return waiting[index]
            }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return nil
    }

    func close() async { try? await channel.close() }

    private final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        let inbox: NIOLockedValueBox<[Datagram]>
        init(inbox: NIOLockedValueBox<[Datagram]>) { self.inbox = inbox }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let envelope = unwrapInboundIn(data)
            inbox.withLockedValue { $0.append(Datagram(from: envelope.remoteAddress, bytes: Array(envelope.data.readableBytesView))) }
        }
    }
}
