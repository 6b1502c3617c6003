#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// FFmpeg's libavcodec, libavutil and libswscale, opened at run time where they are
/// installed rather than linked: the release binary stays self-contained, and a machine
/// without them shows no pictures of a mirroring session (and says why) but receives it
/// all the same.
///
/// The part of FFmpeg's C API the picture decoder uses, declared here from its headers
/// (libavcodec/avcodec.h, packet.h, libavutil/frame.h, mem.h, pixfmt.h, libswscale/swscale.h),
/// the same in FFmpeg 4 to 7. No struct layout is needed but AVFrame's first fields, which
/// FFmpeg keeps in place across versions (new fields go at the end): `data[8]`,
/// `linesize[8]`, `extended_data`, `width`, `height`, `nb_samples`, `format`.
final class FFmpegLibrary: @unchecked Sendable {
    // @unchecked: every stored property is a `let` set once in `init`.

    /// The sonames tried, newest first (Debian 12: libavcodec59, libavutil57, libswscale6).
    static let avcodecNames = ["libavcodec.so.61", "libavcodec.so.60", "libavcodec.so.59", "libavcodec.so.58"]
    static let avutilNames = ["libavutil.so.59", "libavutil.so.58", "libavutil.so.57", "libavutil.so.56"]
    static let swscaleNames = ["libswscale.so.8", "libswscale.so.7", "libswscale.so.6", "libswscale.so.5"]

    /// Loaded on first use; why not, otherwise.
    static let shared: Result<FFmpegLibrary, PicturesUnavailable> = Result { () throws(PicturesUnavailable) in try FFmpegLibrary() }

    /// AV_PIX_FMT_RGB24, SWS_BILINEAR, AVERROR(EAGAIN), AV_INPUT_BUFFER_PADDING_SIZE.
    static let pixelFormatRGB24: Int32 = 2
    static let scaleBilinear: Int32 = 2
    static let errorAgain: Int32 = -EAGAIN
    static let inputPadding = 64

    /// AVFrame's leading fields, in bytes (64-bit: eight pointers, eight ints, a pointer).
    static let frameLinesizeOffset = 8 * MemoryLayout<UnsafeRawPointer>.size
    static let frameWidthOffset = frameLinesizeOffset + 8 * 4 + MemoryLayout<UnsafeRawPointer>.size
    static let frameHeightOffset = frameWidthOffset + 4
    static let frameFormatOffset = frameWidthOffset + 12

    let findDecoderByName: @convention(c) (UnsafePointer<CChar>?) -> OpaquePointer?
    let allocContext: @convention(c) (OpaquePointer?) -> OpaquePointer?
    let openCodec: @convention(c) (OpaquePointer?, OpaquePointer?, UnsafeMutableRawPointer?) -> Int32
    let freeContext: @convention(c) (UnsafeMutablePointer<OpaquePointer?>?) -> Void
    let packetAlloc: @convention(c) () -> OpaquePointer?
    let packetFree: @convention(c) (UnsafeMutablePointer<OpaquePointer?>?) -> Void
    /// (packet, data from av_malloc, size): the packet owns the data from then on.
    let packetFromData: @convention(c) (OpaquePointer?, UnsafeMutablePointer<UInt8>?, Int32) -> Int32
    let sendPacket: @convention(c) (OpaquePointer?, OpaquePointer?) -> Int32
    let receiveFrame: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32
    let frameAlloc: @convention(c) () -> UnsafeMutableRawPointer?
    let frameFree: @convention(c) (UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> Void
    let malloc: @convention(c) (Int) -> UnsafeMutableRawPointer?
    let free: @convention(c) (UnsafeMutableRawPointer?) -> Void
    /// (srcW, srcH, srcFormat, dstW, dstH, dstFormat, flags, srcFilter, dstFilter, param)
    let scaleContext: @convention(c) (Int32, Int32, Int32, Int32, Int32, Int32, Int32, UnsafeRawPointer?, UnsafeRawPointer?,
                                      UnsafePointer<Double>?) -> OpaquePointer?
    /// (context, srcSlice, srcStride, srcSliceY, srcSliceH, dst, dstStride)
    let scale: @convention(c) (OpaquePointer?, UnsafePointer<UnsafePointer<UInt8>?>?, UnsafePointer<Int32>?, Int32, Int32,
                               UnsafePointer<UnsafeMutablePointer<UInt8>?>?, UnsafePointer<Int32>?) -> Int32
    let freeScaleContext: @convention(c) (OpaquePointer?) -> Void

    private init() throws(PicturesUnavailable) {
        func open(_ names: [String]) throws(PicturesUnavailable) -> UnsafeMutableRawPointer {
            for name in names {
                if let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) { return handle }
            }
            throw PicturesUnavailable(description: "FFmpeg's \(names[0].prefix { $0 != "." }) is not installed (tried \(names.joined(separator: ", "))): "
                + "install it for pictures of mirroring sessions (Debian/Ubuntu: apt install libavcodec59 libswscale6, or the ffmpeg package)")
        }
        // The handles stay open for the life of the process: the functions below point into them.
        let avutil = try open(Self.avutilNames)
        let avcodec = try open(Self.avcodecNames)
        let swscale = try open(Self.swscaleNames)
        func symbol<T>(_ handle: UnsafeMutableRawPointer, _ name: String) throws(PicturesUnavailable) -> T {
            guard let address = dlsym(handle, name) else {
                throw PicturesUnavailable(description: "the FFmpeg libraries found have no \(name)")
            }
            return unsafeBitCast(address, to: T.self)
        }
        findDecoderByName = try symbol(avcodec, "avcodec_find_decoder_by_name")
        allocContext = try symbol(avcodec, "avcodec_alloc_context3")
        openCodec = try symbol(avcodec, "avcodec_open2")
        freeContext = try symbol(avcodec, "avcodec_free_context")
        packetAlloc = try symbol(avcodec, "av_packet_alloc")
        packetFree = try symbol(avcodec, "av_packet_free")
        packetFromData = try symbol(avcodec, "av_packet_from_data")
        sendPacket = try symbol(avcodec, "avcodec_send_packet")
        receiveFrame = try symbol(avcodec, "avcodec_receive_frame")
        frameAlloc = try symbol(avutil, "av_frame_alloc")
        frameFree = try symbol(avutil, "av_frame_free")
        malloc = try symbol(avutil, "av_malloc")
        free = try symbol(avutil, "av_free")
        scaleContext = try symbol(swscale, "sws_getContext")
        scale = try symbol(swscale, "sws_scale")
        freeScaleContext = try symbol(swscale, "sws_freeContext")
    }
}

/// Why a mirroring session shows no pictures.
struct PicturesUnavailable: Error, Sendable, CustomStringConvertible {
    let description: String
}
