// libFuzzer target: one UDP datagram on port 5353. It is decoded as a DNS message (and
// what decodes must encode and decode to the same message), then handed to an announced
// mDNS responder, which must answer or ignore it without trapping. Build and run with
// scripts/fuzz.sh; in a plain build this executable does nothing.
import CastDiscovery

let description = CastServiceDescription(uuid: "0123456789abcdef0123456789abcdef", friendlyName: "Fuzz", modelName: "Chromecast",
                                         capabilities: 5, appIds: ["CC1AD845"])

func announcedResponder() -> MDNSResponder {
    var responder = MDNSResponder(description: description, addresses: [[10, 0, 0, 1], [0xFE, 0x80] + [UInt8](repeating: 0, count: 14)]) { $0.lowerBound }
    _ = responder.start(now: 0)
    while let next = responder.nextDeadline, next < 5 { _ = responder.advance(now: next) }
    return responder
}

nonisolated(unsafe) var responder = announcedResponder()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDNS(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    if let message = try? DNSMessage(decoding: bytes) {
        precondition((try? DNSMessage(decoding: message.encoded())) == message, "a decoded message does not survive a round trip")
    }
    // From port 5353 (mDNS) and from another port (legacy unicast), IPv4 and IPv6.
    let port = bytes.first.map { $0 & 1 == 0 ? 5353 : 40000 } ?? 5353
    let peer = MDNSResponder.Peer(address: count % 2 == 0 ? [10, 0, 0, 2] : [UInt8](repeating: 0xFE, count: 16), port: port)
    _ = responder.received(bytes, from: peer, now: 10)
    _ = responder.advance(now: 11)
    if !responder.isAnnounced { responder = announcedResponder() }
    return 0
}
