import ArgumentParser
import CastSimulator
import CastSimulatorTesting
import CastStreaming
import CastWire
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// `castsim-load streaming`: one Cast Streaming session into castsim at a real sender's pace
/// (720p at 30 fps, Opus at 100 frames a second), against issue 28's budget.
struct StreamingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "streaming",
        abstract: "One mirroring session into castsim: castsim's CPU, and how soon it acknowledges each frame.",
        discussion: """
            Starts castsim, launches the mirroring app, OFFERs a VP8 and an Opus stream as Open \
            Screen's sender does, and sends encrypted frames for --seconds at --bit-rate (a key \
            frame every --key-frame-interval seconds, six times a delta frame's size), with Sender \
            Reports every 500 ms. Prints castsim's CPU over the run and the time from each video \
            frame's last packet to the Cast feedback that acknowledges it. The frames are \
            random bytes: castsim tries to decode one key frame a second and fails, so the \
            figures leave out a real decode (about a millisecond of a 720p VP8 key frame).
            """)

    @Option(help: "Seconds measured (after 2 s of warm-up).")
    var seconds = 20.0

    @Option(help: "Video bits per second.")
    var bitRate = 5_000_000

    @Option(help: "Seconds between key frames.")
    var keyFrameInterval = 10.0

    @OptionGroup var castsim: CastsimOptions

    @Flag(help: "Print one JSON object instead of the table.")
    var json = false

    func validate() throws {
        guard (1...600).contains(seconds) else { throw ValidationError("--seconds must be 1-600") }
        guard (100_000...50_000_000).contains(bitRate) else { throw ValidationError("--bit-rate must be 100000-50000000") }
        guard keyFrameInterval >= 0.5 else { throw ValidationError("--key-frame-interval must be at least 0.5") }
    }

    static let key = [UInt8](repeating: 0x5A, count: 16)
    static let mask = [UInt8](repeating: 0xA5, count: 16)
    static let videoSsrc: UInt32 = 63938
    static let audioSsrc: UInt32 = 49762

    func run() async throws {
        Interrupts.install()
        let server = try await ServerProcess.start(name: "castsim", executable: castsim.executable,
                                                   arguments: LoadSession.castsimArguments + castsim.castsimArguments)
        do {
            let figures = try await measure(server)
            await server.stop()
            report(figures)
        } catch {
            await server.stop()
            throw error
        }
    }

    private struct Figures {
        var cpuPercent: Double
        var videoFrames: Int
        var audioFrames: Int
        var acknowledged: Int
        var latency: LatencyHistogram.Summary?
    }

    private func measure(_ server: ServerProcess) async throws -> Figures {
        let sender = try await CastTestSender.connect(to: server.castAddress)
        defer { Task { await sender.close() } }
        let transportId = try await sender.launch("0F5096E8")
        try await sender.send(from: "streaming_sender-1", to: transportId, CastNamespace.connection, ["type": "CONNECT"])
        try await sender.send(from: "streaming_sender-1", to: transportId, "urn:x-cast:com.google.cast.webrtc", Self.offer)
        guard let (_, answer) = await sender.waitFor({ _, json in json["type"] == "ANSWER" }),
              let port = answer["answer"]?["udpPort"]?.intValue else {
            throw LoadError("castsim did not answer the OFFER")
        }
        let device = try SocketAddress(ipAddress: server.castAddress.ipAddress ?? "127.0.0.1", port: port)
        let stream = StreamingLoad(device: device, bitRate: bitRate, keyFrameInterval: keyFrameInterval)
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        try await stream.start(on: loop)
        try await Task.sleep(for: .seconds(2))
        stream.startCounting()
        let before = try ProcessFigures.cpuTicks(pid: server.pid)
        try await Task.sleep(for: .seconds(seconds))
        let ticks = try ProcessFigures.cpuTicks(pid: server.pid) - before
        let counted = try await stream.stop()
        return Figures(cpuPercent: Double(ticks) / ProcessFigures.ticksPerSecond / seconds * 100, videoFrames: counted.video,
                       audioFrames: counted.audio, acknowledged: counted.latencies.count, latency: counted.latencies.summary())
    }

    private func report(_ figures: Figures) {
        let latency = figures.latency
        if json {
            let object: JSONValue = [
                "seconds": .number(seconds), "bit_rate": .number(Double(bitRate)), "castsim_cpu_percent": .number(figures.cpuPercent),
                "video_frames": .number(Double(figures.videoFrames)), "audio_frames": .number(Double(figures.audioFrames)),
                "acknowledged": .number(Double(figures.acknowledged)),
                "ack_ms": latency.map { ["p50": .number($0.p50 / 1000), "p99": .number($0.p99 / 1000), "max": .number($0.max / 1000)] } ?? nil,
            ]
            FileOutput.standardOutput(object.jsonText() + "\n")
            return
        }
        func ms(_ value: Double?) -> String { value.map { String(format: "%.2f", $0 / 1000) } ?? "-" }
        let rows = [
            ["", "castsim CPU %", "video frames", "audio frames", "ACKed", "ACK p50 ms", "ACK p99 ms", "ACK max ms"],
            ["castsim", String(format: "%.1f", figures.cpuPercent), "\(figures.videoFrames)", "\(figures.audioFrames)",
             "\(figures.acknowledged)", ms(latency?.p50), ms(latency?.p99), ms(latency?.max)],
            ["budget", "≤ 15.0", "", "", "", "", "≤ 5.00", ""],
        ]
        let title = "castsim-load streaming: 1280x720 at 30 fps, \(bitRate / 1000) kbit/s video and Opus, \(Int(seconds)) s"
        FileOutput.standardOutput(([title, ""] + LoadReport.aligned(rows)).joined(separator: "\n") + "\n")
    }

    /// Open Screen's OFFER for a VP8 and an Opus stream, with this run's keys.
    static var offer: JSONValue {
        let key = JSONValue.string(Self.key.map { String(format: "%02x", $0) }.joined())
        let mask = JSONValue.string(Self.mask.map { String(format: "%02x", $0) }.joined())
        return ["type": "OFFER", "seqNum": 1, "offer": ["castMode": "mirroring", "supportedStreams": [
            ["index": 0, "type": "audio_source", "codecName": "opus", "rtpProfile": "cast", "rtpPayloadType": 127,
             "ssrc": .number(Double(audioSsrc)), "targetDelay": 400, "timeBase": "1/48000", "channels": 2, "bitRate": 192000,
             "aesKey": key, "aesIvMask": mask, "receiverRtcpEventLog": true],
            ["index": 1, "type": "video_source", "codecName": "vp8", "rtpProfile": "cast", "rtpPayloadType": 96,
             "ssrc": .number(Double(videoSsrc)), "targetDelay": 400, "timeBase": "1/90000", "maxFrameRate": "30",
             "maxBitRate": 5050880, "aesKey": key, "aesIvMask": mask, "receiverRtcpEventLog": true],
        ]]]
    }
}

/// The sender's side of the run: paces frames on one loop, and times each video frame from
/// its last packet to the feedback whose checkpoint covers it.
final class StreamingLoad: Sendable {
    private struct State {
        var video = FramePacketizer(ssrc: StreamingCommand.videoSsrc, key: StreamingCommand.key, ivMask: StreamingCommand.mask)
        var audio = FramePacketizer(ssrc: StreamingCommand.audioSsrc, key: StreamingCommand.key, ivMask: StreamingCommand.mask, payloadType: 127)
        var generator = SystemRandomNumberGenerator()
        var nextVideo: Int64 = 0
        var nextAudio: Int64 = 0
        /// When each unacknowledged video frame's last packet left.
        var sentAt: [Int64: UInt64] = [:]
        var acknowledged: Int64 = -1
        var counting = false
        var latencies = LatencyHistogram()
        var videoFrames = 0
        var audioFrames = 0
        var started: UInt64 = 0
        var tick: RepeatedTask?
        var channel: (any Channel)?
    }

    private let state = NIOLockedValueBox(State())
    private let device: SocketAddress
    private let bitRate: Int
    private let keyFrameInterval: Double

    init(device: SocketAddress, bitRate: Int, keyFrameInterval: Double) {
        self.device = device
        self.bitRate = bitRate
        self.keyFrameInterval = keyFrameInterval
    }

    func start(on loop: any EventLoop) async throws {
        let channel = try await DatagramBootstrap(group: loop)
            .channelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(FeedbackReader(load: self)) }
            }
            .bind(host: device.ipAddress ?? "127.0.0.1", port: 0).get()
        state.withLockedValue {
            $0.channel = channel
            $0.started = LoadClock.now()
        }
        let task = loop.scheduleRepeatedTask(initialDelay: .zero, delay: .milliseconds(10)) { [self] _ in send(on: channel) }
        state.withLockedValue { $0.tick = task }
    }

    func startCounting() { state.withLockedValue { $0.counting = true } }

    func stop() async throws -> (video: Int, audio: Int, latencies: LatencyHistogram) {
        let (tick, channel, counted) = state.withLockedValue { state in
            (state.tick, state.channel, (state.videoFrames, state.audioFrames, state.latencies))
        }
        tick?.cancel()
        try? await channel?.close()
        return (counted.0, counted.1, counted.2)
    }

    /// Every 10 ms: an Opus frame, the video frames due by now, and Sender Reports every 500 ms.
    private func send(on channel: any Channel) {
        let now = LoadClock.now()
        var datagrams: [[UInt8]] = []
        state.withLockedValue { state in
            let elapsed = Double(now - state.started) / 1e9
            while Double(state.nextAudio) * 0.01 <= elapsed {
                let id = state.nextAudio
                datagrams += state.audio.packets(frameId: id, plain: Self.bytes(240, &state.generator), keyFrame: true,
                                                 rtpTimestamp: UInt32(truncatingIfNeeded: id * 480))
                state.nextAudio += 1
                if state.counting { state.audioFrames += 1 }
                if id % 50 == 0 {
                    datagrams.append(state.audio.senderReport(ntp: Self.ntp(now), rtpTimestamp: UInt32(truncatingIfNeeded: id * 480)))
                    datagrams.append(state.video.senderReport(ntp: Self.ntp(now), rtpTimestamp: UInt32(truncatingIfNeeded: state.nextVideo * 3000)))
                }
            }
            while Double(state.nextVideo) / 30 <= elapsed {
                let id = state.nextVideo
                let key = id % Int64(max(1, (keyFrameInterval * 30).rounded())) == 0
                let size = bitRate / 8 / 30 * (key ? 6 : 1)
                datagrams += state.video.packets(frameId: id, plain: Self.bytes(size, &state.generator), keyFrame: key,
                                                 rtpTimestamp: UInt32(truncatingIfNeeded: id * 3000))
                state.sentAt[id] = now
                state.nextVideo += 1
                if state.counting { state.videoFrames += 1 }
            }
        }
        for datagram in datagrams {
            channel.write(AddressedEnvelope(remoteAddress: device, data: ByteBuffer(bytes: datagram)), promise: nil)
        }
        channel.flush()
    }

    /// Cast feedback for the video stream: every frame up to its checkpoint is acknowledged.
    fileprivate func feedback(_ bytes: [UInt8]) {
        guard let reading = CastFeedbackReading(bytes), reading.receiverSsrc == StreamingCommand.videoSsrc &+ 1 else { return }
        let now = LoadClock.now()
        state.withLockedValue { state in
            let checkpoint = FrameIdExpander.expand(reading.checkpoint, near: state.nextVideo - 1)
            guard checkpoint > state.acknowledged else { return }
            for id in (state.acknowledged + 1)...checkpoint {
                if let sent = state.sentAt.removeValue(forKey: id), state.counting { state.latencies.record(now - sent) }
            }
            state.acknowledged = checkpoint
        }
    }

    private static func bytes(_ count: Int, _ generator: inout SystemRandomNumberGenerator) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        for index in stride(from: 0, to: count, by: 8) {
            let word = generator.next()
            for offset in 0..<min(8, count - index) { bytes[index + offset] = UInt8(truncatingIfNeeded: word >> (offset * 8)) }
        }
        return bytes
    }

    /// The sender's NTP time: the monotonic clock is enough, castsim only quotes it back.
    private static func ntp(_ nanoseconds: UInt64) -> UInt64 {
        (nanoseconds / 1_000_000_000) << 32 | ((nanoseconds % 1_000_000_000) << 32) / 1_000_000_000
    }
}

/// Hands castsim's RTCP to the run.
private final class FeedbackReader: ChannelInboundHandler, Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    let load: StreamingLoad
    init(load: StreamingLoad) { self.load = load }
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        load.feedback(Array(unwrapInboundIn(data).data.readableBytesView))
    }
}
