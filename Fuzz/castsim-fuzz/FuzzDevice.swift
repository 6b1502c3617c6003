// The device core's receive path (routing, virtual connections, heartbeat, receiver and
// media namespaces, request decoding, apps, deadlines) fed messages a fuzzer writes.
//
// Input: records separated by a 0x00 byte (which no JSON text holds). A record is
//   [namespace][destination][source] payload…
// with each selector byte taken modulo its table below; a namespace byte of 0xFE
// advances the clock by the destination byte in seconds, 0xFD closes and reopens the
// second connection, 0xFC launches the device's app numbered by the destination byte (in
// place of the Default Media Receiver), each app with its example world.
import CastDevice
import CastWire

enum FuzzDevice: FuzzTarget {
    private static let identity = try! DeviceIdentity(uuid: "fedcba9876543210fedcba9876543210", friendlyName: "Fuzz TV")
    private static let configuration = {
        var configuration = DeviceConfiguration(identity: identity)
        configuration.appSections = AppRegistry.builtIn.exampleSections
        return configuration
    }()
    private static let namespaces = [
        CastNamespace.connection, CastNamespace.heartbeat, CastNamespace.receiver, CastNamespace.media,
        CastNamespace.deviceAuth, "urn:x-cast:com.example.custom", "",
    ] + Set(configuration.apps.flatMap(\.namespaces)).subtracting([CastNamespace.media]).sorted()
    private static let sources = [CastEndpoint.platformSender, "sender-fuzz", ""]

    static func run(_ input: UnsafeRawBufferPointer) {
        var device = SimulatedDevice(configuration: configuration)
        var now = SimTime.zero
        let first = ConnectionID(1), second = ConnectionID(2)
        func send(_ namespace: String, from source: String = CastEndpoint.platformSender, to destination: String,
                  _ text: String, on connection: ConnectionID = first) {
            _ = device.receive(CastEnvelope(sourceId: source, destinationId: destination, namespace: namespace,
                                            payload: .string(text)), on: connection, now: now)
        }
        // A device playing media, so that the fuzzer starts where senders spend their time.
        _ = device.connectionOpened(first, now: now)
        _ = device.connectionOpened(second, now: now)
        send(CastNamespace.connection, to: CastEndpoint.platformReceiver, #"{"type":"CONNECT"}"#)
        send(CastNamespace.receiver, to: CastEndpoint.platformReceiver, #"{"type":"LAUNCH","appId":"CC1AD845","requestId":1}"#)
        var transportId = device.snapshot(at: now).runningApp?.transportId ?? "none"
        send(CastNamespace.connection, to: transportId, #"{"type":"CONNECT"}"#)
        send(CastNamespace.media, to: transportId, #"{"type":"LOAD","requestId":2,"media":{"contentId":"a.mp4","duration":60}}"#)
        var destinations = [CastEndpoint.platformReceiver, transportId, CastEndpoint.broadcast, CastEndpoint.transport]

        for record in input.split(separator: 0, maxSplits: 64, omittingEmptySubsequences: true) {
            let bytes = Array(record)
            guard bytes.count >= 3 else { continue }
            switch bytes[0] {
            case 0xFE:
                now = now + Double(bytes[1])
                _ = device.advance(to: now)
            case 0xFD:
                _ = device.connectionClosed(second, now: now)
                _ = device.connectionOpened(second, now: now)
            case 0xFC:
                let appId = configuration.apps[Int(bytes[1]) % configuration.apps.count].appId
                send(CastNamespace.receiver, to: CastEndpoint.platformReceiver, #"{"type":"LAUNCH","appId":"\#(appId)","requestId":3}"#)
                transportId = device.snapshot(at: now).runningApp?.transportId ?? "none"
                destinations[1] = transportId
                send(CastNamespace.connection, to: transportId, #"{"type":"CONNECT"}"#)
            default:
                let text = String(decoding: bytes[3...], as: UTF8.self)
                send(namespaces[Int(bytes[0]) % namespaces.count], from: sources[Int(bytes[2]) % sources.count],
                     to: destinations[Int(bytes[1]) % destinations.count], text,
                     on: bytes[2] & 0x80 == 0 ? first : second)
            }
        }
    }
}
