import CastStreaming
import Testing

@Suite("Cast Streaming: AES-128-CTR per frame")
struct FrameCryptoTests {
    @Test("NIST SP 800-38A F.5.1 (CTR-AES128): the counter block is the IV mask at frame 0, and it carries across bytes")
    func nistVectors() {
        let crypto = FrameCrypto(key: hex("2b7e151628aed2a6abf7158809cf4f3c"), ivMask: hex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"))
        let plain = hex("6bc1bee22e409f96e93d7e117393172a ae2d8a571e03ac9c9eb76fac45af8e51 30c81c46a35ce411e5fbc1191a0a52ef f69f2445df4f9b17ad2b417be66c3710")
        let cipher = hex("874d6191b620e3261bef6864990db6ce 9806f66b7970fdff8617187bb9fffdff 5ae4df3edbd5d35e5b4f09020db03eab 1e031dda2fbe03d1792170a0f3009cee")
        #expect(crypto.crypt(plain, frameId: 0) == cipher)
        #expect(crypto.crypt(cipher, frameId: 0) == plain)
    }

    @Test("The counter block is 8 zero bytes, the frame id big-endian, 4 zero bytes, XOR the mask; frames differ")
    func counterBlock() {
        let crypto = FrameCrypto(key: [UInt8](repeating: 1, count: 16), ivMask: [UInt8](repeating: 0, count: 15) + [0xff])
        #expect(crypto.counterBlock(frameId: 0x1_0102_0304) == hex("0000000000000000 01020304 000000ff"))
        let plain = [UInt8](repeating: 7, count: 40)
        #expect(crypto.crypt(plain, frameId: 1) != crypto.crypt(plain, frameId: 2))
        #expect(crypto.crypt([], frameId: 3).isEmpty)
    }
}
