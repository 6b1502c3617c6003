import Crypto
import _CryptoExtras
import Foundation

/// AES-128-CTR of one frame (docs/protocol/streaming.md §3.3): the counter block is 8 zero
/// bytes, the frame id's low 32 bits big-endian and 4 zero bytes, XORed with the IV mask;
/// the whole 128-bit block counts up. Encryption and decryption are the same operation.
public struct FrameCrypto: Sendable {
    private let key: SymmetricKey
    private let ivMask: [UInt8]

    public init(key: [UInt8], ivMask: [UInt8]) {
        precondition(key.count == 16 && ivMask.count == 16, "an AES-128 key and IV mask are 16 bytes each")
        self.key = SymmetricKey(data: key)
        self.ivMask = ivMask
    }

    public func counterBlock(frameId: Int64) -> [UInt8] {
        var block = [UInt8](repeating: 0, count: 16)
        let id = UInt32(truncatingIfNeeded: frameId)
        block[8] = UInt8(id >> 24)
        block[9] = UInt8(id >> 16 & 0xFF)
        block[10] = UInt8(id >> 8 & 0xFF)
        block[11] = UInt8(id & 0xFF)
        for index in 0..<16 { block[index] ^= ivMask[index] }
        return block
    }

    public func crypt(_ bytes: [UInt8], frameId: Int64) -> [UInt8] {
        guard !bytes.isEmpty else { return [] }
        // The nonce is 16 bytes, which AES._CTR takes whole; the key is 16 bytes: neither throws.
        let nonce = try! AES._CTR.Nonce(nonceBytes: counterBlock(frameId: frameId))
        return [UInt8](try! AES._CTR.encrypt(bytes, using: key, nonce: nonce))
    }
}
