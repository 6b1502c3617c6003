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

extension DeviceIdentity {
    /// The device's MAC address as 12 upper-case hex digits, made from its UUID (castsim
    /// has no network card of its own): eureka_info's `mac_address`, and what a Nest Hub's
    /// `fuchsia-…` host name is made of.
    public var derivedMACHex: String { String(uuid.prefix(12)).uppercased() }

    /// The same, written `AA:BB:CC:DD:EE:FF`.
    public var derivedMAC: String { Self.colonSeparated(derivedMACHex) }

    /// Hex digits in pairs with colons, as MAC addresses and BSSIDs are written.
    public static func colonSeparated(_ hex: String) -> String {
        let digits = Array(hex)
        return stride(from: 0, to: digits.count, by: 2).map { String(digits[$0..<min($0 + 2, digits.count)]) }.joined(separator: ":")
    }

    /// `host` with `{mac}` as a Fuchsia device writes it: `fuchsia-xxxx-xxxx-xxxx`.
    public func expandingMAC(in host: String) -> String {
        let hex = Array(derivedMACHex.lowercased())
        let groups = stride(from: 0, to: 12, by: 4).map { String(hex[$0..<$0 + 4]) }.joined(separator: "-")
        return host.replacingOccurrences(of: "{mac}", with: groups)
    }
}
