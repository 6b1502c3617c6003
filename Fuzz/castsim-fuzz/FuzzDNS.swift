// One UDP datagram on port 5353. It is decoded as a DNS message (and what decodes must
// encode and decode to the same message), then handed to an announced mDNS responder, which
// must answer or ignore it without trapping.
import CastDiscovery

enum FuzzDNS: FuzzTarget {
    private static let description = CastServiceDescription(
        uuid: "0123456789abcdef0123456789abcdef", friendlyName: "Fuzz", modelName: "Chromecast",
        capabilities: 5, appIds: ["CC1AD845"])

    private static func announcedResponder() -> MDNSResponder {
        var responder = MDNSResponder(description: description, addresses: [[10, 0, 0, 1], [0xFE, 0x80] + [UInt8](repeating: 0, count: 14)]) { $0.lowerBound }
        _ = responder.start(now: 0)
        while let next = responder.nextDeadline, next < 5 { _ = responder.advance(now: next) }
        return responder
    }

    /// Kept across inputs: a responder answers only once announced, which takes seconds of
    /// its clock. libFuzzer calls one input at a time.
    nonisolated(unsafe) private static var responder = announcedResponder()

    static func run(_ input: UnsafeRawBufferPointer) {
        let bytes = Array(input)
        if let message = try? DNSMessage(decoding: bytes) {
            precondition((try? DNSMessage(decoding: message.encoded())) == message, "a decoded message does not survive a round trip")
        }
        // From port 5353 (mDNS) and from another port (legacy unicast), IPv4 and IPv6.
        let port = bytes.first.map { $0 & 1 == 0 ? MDNSResponder.port : 40000 } ?? MDNSResponder.port
        let peer = MDNSResponder.Peer(address: bytes.count % 2 == 0 ? [10, 0, 0, 2] : [UInt8](repeating: 0xFE, count: 16), port: port)
        _ = responder.received(bytes, from: peer, now: 10)
        _ = responder.advance(now: 11)
        if !responder.isAnnounced { responder = announcedResponder() }
    }
}
