import CastWire

extension DeviceIdentity {
    /// A UUID (32 hex digits) that depends only on `name`, so a device named but given no
    /// UUID keeps its identity, and its place in senders' device lists, from one run to
    /// the next; and the devices of a household, named differently, differ.
    public static func derivedUUID(for name: String) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        var words: [UInt64] = []
        for round in 0..<2 {
            for byte in Array("castsim:\(round):\(name)".utf8) {
                hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            }
            words.append(hash)
        }
        return words.map { String($0, radix: 16).leftPadded(to: 16) }.joined()
    }
}
