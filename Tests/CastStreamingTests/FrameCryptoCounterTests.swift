import CastStreaming
import Testing

/// AES-128-CTR per frame beyond the NIST vectors: the counter block built from the OFFER's
/// mask, the full 128-bit counter, and the checks a receiver can make once it decrypted
/// (reference §5).
@Suite("Cast Streaming: the frame counter block and the keystream")
struct FrameCryptoCounterTests {
    static let key = hex("f3c60af2647f7084959943258f6f3a69")
    static let mask = hex("cadbe4d77d4980d4661a5ba84b505e42")

    @Test("cast_sender's video aesIvMask: frame 1's counter block differs from the mask in byte 11 only; frame 0's is the mask")
    func counterBlockFromTheOffer() {
        let crypto = FrameCrypto(key: Self.key, ivMask: Self.mask)
        #expect(crypto.counterBlock(frameId: 0) == Self.mask)
        #expect(crypto.counterBlock(frameId: 1) == hex("cadbe4d77d4980d4 661a5ba9 4b505e42"))
        #expect(crypto.counterBlock(frameId: 0x0102_0304) == hex("cadbe4d77d4980d4 671858ac 4b505e42"))
    }

    @Test("Only the frame id's low 32 bits count")
    func low32Bits() {
        let crypto = FrameCrypto(key: Self.key, ivMask: Self.mask)
        let plain = [UInt8](repeating: 0x5a, count: 40)
        #expect(crypto.crypt(plain, frameId: 5) == crypt(crypto, plain, frameId: 5 + (1 << 32)))
    }

    private func crypt(_ crypto: FrameCrypto, _ plain: [UInt8], frameId: Int64) -> [UInt8] { crypto.crypt(plain, frameId: frameId) }

    @Test("The keystream starts at offset 0 for every frame: a frame's first bytes do not depend on how long it is")
    func keystreamFromZero() {
        let crypto = FrameCrypto(key: Self.key, ivMask: Self.mask)
        let long = (0..<3000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        #expect(Array(crypto.crypt(long, frameId: 9).prefix(17)) == crypto.crypt(Array(long.prefix(17)), frameId: 9))
        #expect(crypto.crypt(crypto.crypt(long, frameId: 9), frameId: 9) == long)
    }

    @Test("The counter counts up all 128 bits: a block ending ffffffff carries into byte 11, not back to 00000000")
    func fullCounterCarry() {
        let key = hex("2b7e151628aed2a6abf7158809cf4f3c")
        let zeros = [UInt8](repeating: 0, count: 32)
        // Frame 0: the counter block is the mask itself.
        let keystream = FrameCrypto(key: key, ivMask: hex("000102030405060708090a0b ffffffff")).crypt(zeros, frameId: 0)
        let carried = FrameCrypto(key: key, ivMask: hex("000102030405060708090a0c 00000000")).crypt(Array(zeros.prefix(16)), frameId: 0)
        let wrapped = FrameCrypto(key: key, ivMask: hex("000102030405060708090a0b 00000000")).crypt(Array(zeros.prefix(16)), frameId: 0)
        #expect(Array(keystream[16...]) == carried && Array(keystream[16...]) != wrapped)
    }

    @Test("After decryption a VP8 key frame states its size: d0 b1 01 9d 01 2a 00 05 d0 02 is 1280×720")
    func vp8KeyFrameCheck() {
        let frame = hex("d0 b1 01 9d 01 2a 00 05 d0 02")
        #expect(VP8KeyFrame.size(frame).map { [$0.0, $0.1] } == [1280, 720])
        // An inter frame (bit 0 of the tag set) or a missing start code states nothing.
        #expect(VP8KeyFrame.size(hex("d1 b1 01 9d 01 2a 00 05 d0 02")) == nil)
        #expect(VP8KeyFrame.size(hex("d0 b1 01 9d 01 2b 00 05 d0 02")) == nil)
        // Decryption is the same operation as encryption: a round trip gives the frame back.
        let crypto = FrameCrypto(key: Self.key, ivMask: Self.mask)
        #expect(crypto.crypt(crypto.crypt(frame, frameId: 0), frameId: 0) == frame)
    }
}
