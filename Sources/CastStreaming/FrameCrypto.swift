internal import CNIOBoringSSL

/// AES-128-CTR of one frame (docs/protocol/streaming.md §3.3): the counter block is 8 zero
/// bytes, the frame id's low 32 bits big-endian and 4 zero bytes, XORed with the IV mask;
/// the whole 128-bit block counts up. Encryption and decryption are the same operation.
/// (AES from the BoringSSL that NIOSSL builds for TLS: CastCredentials says why.)
public struct FrameCrypto: Sendable {
    /// The expanded key schedule, made once for the session's key.
    private let key: AES_KEY
    private let ivMask: [UInt8]

    public init(key: [UInt8], ivMask: [UInt8]) {
        precondition(key.count == 16 && ivMask.count == 16, "an AES-128 key and IV mask are 16 bytes each")
        var schedule = AES_KEY()
        // Fails only for a key size other than 128, 192 or 256 bits.
        _ = AES_set_encrypt_key(key, 128, &schedule)
        self.key = schedule
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
        var counter = counterBlock(frameId: frameId)
        var keystream = [UInt8](repeating: 0, count: 16)
        var used: UInt32 = 0
        var output = [UInt8](repeating: 0, count: bytes.count)
        withUnsafePointer(to: key) { key in
            AES_ctr128_encrypt(bytes, &output, bytes.count, key, &counter, &keystream, &used)
        }
        return output
    }
}
