import CastDevice
import NIOCore
import NIOPosix

/// A mirroring session's pictures: at most one key frame a second is decoded, off the
/// device's loop (NIO's thread pool), one at a time; a key frame that comes while one is
/// being decoded waits in a queue of one, the newest replacing the one before (counted).
/// Used on the device's loop only.
final class PictureTaker {
    /// The newest picture, as PNG, with what it shows.
    struct Taken: Sendable {
        var png: [UInt8]
        var figures: StreamingFigures.Picture
    }

    static let interval = TimeAmount.seconds(1)
    /// A picture older than this asks the sender for a key frame (a PLI): encoders make one
    /// only every few seconds, or after a loss, and the picture should show what streams now.
    static let refreshAfter = TimeAmount.seconds(2)

    private let codec: String
    private let loop: any EventLoop
    private(set) var latest: Taken?
    private(set) var unavailable: String?
    private(set) var decoded = 0
    private(set) var failures = 0
    private(set) var skipped = 0
    private var busy = false
    private var waiting: (frameId: Int64, bytes: [UInt8])?
    private var lastStarted: NIODeadline?
    private var closed = false

    init(codec: String, loop: any EventLoop) {
        self.codec = codec
        self.loop = loop
        switch FFmpegLibrary.shared {
        case .failure(let why): unavailable = why.description
        case .success:
            if KeyFrameDecoder.decoderName(for: codec) == nil { unavailable = "castsim decodes no \(codec) pictures" }
        }
    }

    /// A complete, decrypted key frame of the session's video.
    func keyFrame(_ frameId: Int64, _ bytes: [UInt8]) {
        guard unavailable == nil, !closed else { return }
        if busy || lastStarted.map({ NIODeadline.now() - $0 < Self.interval }) == true {
            if waiting != nil { skipped += 1 }
            // Kept for when the decoder is free and a second has passed, unless a newer one comes.
            waiting = (frameId, bytes)
            scheduleWaiting()
            return
        }
        start(frameId, bytes)
    }

    private var waitingCheck: Scheduled<Void>?

    private func scheduleWaiting() {
        guard waitingCheck == nil, !busy, let started = lastStarted else { return }
        waitingCheck = loop.assumeIsolated().scheduleTask(deadline: started + Self.interval) { [self] in
            waitingCheck = nil
            guard !busy, let next = waiting else { return }
            waiting = nil
            start(next.frameId, next.bytes)
        }
    }

    private func start(_ frameId: Int64, _ bytes: [UInt8]) {
        guard case .success(let library) = FFmpegLibrary.shared else { return }
        busy = true
        lastStarted = .now()
        let codec = self.codec
        NIOThreadPool.singleton.runIfActive(eventLoop: loop) { () throws -> Taken in
            let picture = try KeyFrameDecoder.decode(bytes, codec: codec, with: library)
            let png = PNGImage.encode(width: picture.width, height: picture.height, rgb: picture.rgb)
            return Taken(png: png, figures: StreamingFigures.Picture(
                frameId: Int(frameId), width: picture.sourceWidth, height: picture.sourceHeight,
                averageColor: Self.averageColor(picture.rgb), pngBytes: png.count))
        }.assumeIsolated().whenComplete { [self] result in
            busy = false
            guard !closed else { return }
            switch result {
            case .success(let taken):
                decoded += 1
                latest = taken
            case .failure:
                failures += 1
            }
            scheduleWaiting()
        }
    }

    /// Whether a fresh key frame is wanted: pictures can be taken, and none was started lately.
    var wantsKeyFrame: Bool {
        unavailable == nil && !closed && !busy && waiting == nil && lastStarted.map { NIODeadline.now() - $0 >= Self.refreshAfter } ?? false
    }

    /// `#rrggbb` of the picture's mean colour.
    static func averageColor(_ rgb: [UInt8]) -> String {
        var sums = [0, 0, 0]
        for (index, value) in rgb.enumerated() { sums[index % 3] += Int(value) }
        let pixels = max(1, rgb.count / 3)
        return "#" + sums.map { sum in
            let value = sum / pixels
            return (value < 16 ? "0" : "") + String(value, radix: 16)
        }.joined()
    }

    func close() {
        closed = true
        waitingCheck?.cancel()
        waiting = nil
    }
}
