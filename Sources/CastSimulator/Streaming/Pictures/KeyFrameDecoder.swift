/// Decodes one key frame of a mirroring session with libavcodec and scales it down to a
/// thumbnail. A fresh decoder each time: a key frame needs nothing before it, and a thumbnail
/// a second leaves no decoder state to keep between sessions. Runs off the device's loop
/// (``PictureTaker``), never on it.
enum KeyFrameDecoder {
    /// A picture as RGB, 3 bytes a pixel, rows top to bottom.
    struct Picture: Sendable, Equatable {
        var width: Int
        var height: Int
        var rgb: [UInt8]
        /// The frame's own size, before it was scaled down.
        var sourceWidth: Int
        var sourceHeight: Int
    }

    struct Failure: Error, Sendable, CustomStringConvertible {
        let description: String
    }

    /// The thumbnail's width; its height keeps the frame's proportions.
    static let thumbnailWidth = 320

    /// FFmpeg's decoder names for the OFFER's codec names (docs/protocol/streaming.md §2.2).
    static func decoderName(for codec: String) -> String? {
        switch codec {
        case "vp8": "vp8"
        case "vp9": "vp9"
        case "h264": "h264"
        case "hevc": "hevc"
        case "av1": "libdav1d"
        default: nil
        }
    }

    static func decode(_ frame: [UInt8], codec: String, with library: FFmpegLibrary) throws(Failure) -> Picture {
        guard let name = decoderName(for: codec) else { throw Failure(description: "no decoder for \(codec)") }
        var decoder = library.findDecoderByName(name)
        if decoder == nil, codec == "av1" { decoder = library.findDecoderByName("libaom-av1") ?? library.findDecoderByName("av1") }
        guard let decoder else { throw Failure(description: "this libavcodec has no \(name) decoder") }
        var context = library.allocContext(decoder)
        defer { library.freeContext(&context) }
        guard context != nil, library.openCodec(context, decoder, nil) >= 0 else { throw Failure(description: "cannot open the \(name) decoder") }
        var packet = library.packetAlloc()
        defer { library.packetFree(&packet) }
        // The packet owns memory from av_malloc, padded with zeros as the decoders read past the end.
        guard let data = library.malloc(frame.count + FFmpegLibrary.inputPadding)?.assumingMemoryBound(to: UInt8.self) else {
            throw Failure(description: "out of memory")
        }
        frame.withUnsafeBufferPointer { data.update(from: $0.baseAddress!, count: frame.count) }
        (data + frame.count).initialize(repeating: 0, count: FFmpegLibrary.inputPadding)
        guard library.packetFromData(packet, data, Int32(frame.count)) >= 0 else {
            library.free(data)
            throw Failure(description: "cannot make a packet")
        }
        var picture = library.frameAlloc()
        defer { library.frameFree(&picture) }
        guard let picture else { throw Failure(description: "out of memory") }
        let sent = library.sendPacket(context, packet)
        guard sent >= 0 else { throw Failure(description: "the \(name) decoder refused the frame (\(sent))") }
        // Drain: a decoder that holds frames back (H.264's reordering) gives this one now.
        _ = library.sendPacket(context, nil)
        let received = library.receiveFrame(context, picture)
        guard received >= 0 else { throw Failure(description: "the \(name) decoder gave no picture (\(received))") }
        return try scale(picture, with: library)
    }

    private static func scale(_ frame: UnsafeMutableRawPointer, with library: FFmpegLibrary) throws(Failure) -> Picture {
        let width = Int(frame.load(fromByteOffset: FFmpegLibrary.frameWidthOffset, as: Int32.self))
        let height = Int(frame.load(fromByteOffset: FFmpegLibrary.frameHeightOffset, as: Int32.self))
        let format = frame.load(fromByteOffset: FFmpegLibrary.frameFormatOffset, as: Int32.self)
        guard (1...16384).contains(width), (1...16384).contains(height) else { throw Failure(description: "a \(width)×\(height) picture") }
        let thumbWidth = min(width, thumbnailWidth)
        let thumbHeight = max(1, (height * thumbWidth + width / 2) / width)
        guard let scaler = library.scaleContext(Int32(width), Int32(height), format, Int32(thumbWidth), Int32(thumbHeight),
                                                FFmpegLibrary.pixelFormatRGB24, FFmpegLibrary.scaleBilinear, nil, nil, nil) else {
            throw Failure(description: "cannot scale pixel format \(format)")
        }
        defer { library.freeScaleContext(scaler) }
        let stride = thumbWidth * 3
        var rgb = [UInt8](repeating: 0, count: stride * thumbHeight)
        let planes = frame.assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
        let strides = (frame + FFmpegLibrary.frameLinesizeOffset).assumingMemoryBound(to: Int32.self)
        let rows = rgb.withUnsafeMutableBufferPointer { buffer in
            var destination: [UnsafeMutablePointer<UInt8>?] = [buffer.baseAddress, nil, nil, nil]
            var destinationStride: [Int32] = [Int32(stride), 0, 0, 0]
            return library.scale(scaler, planes, strides, 0, Int32(height), &destination, &destinationStride)
        }
        guard rows > 0 else { throw Failure(description: "scaling gave no rows") }
        return Picture(width: thumbWidth, height: thumbHeight, rgb: rgb, sourceWidth: width, sourceHeight: height)
    }
}
