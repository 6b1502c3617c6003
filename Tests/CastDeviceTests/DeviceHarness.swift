import CastDevice
import CastWire
import Foundation
import Testing

/// Drives a ``SimulatedDevice`` the way the runtime does, and reads back what it sent.
struct DeviceHarness {
    var device: SimulatedDevice
    var now: SimTime = .zero
    /// Everything the device sent, in order.
    private(set) var sent: [(envelope: CastEnvelope, to: [ConnectionID])] = []
    private(set) var closed: [(ConnectionID, String)] = []
    private(set) var logs: [DeviceLogEvent] = []

    init(configure: (inout DeviceConfiguration) -> Void = { _ in }, authority: (any DeviceAuthority)? = nil) {
        var configuration = DeviceConfiguration(identity: try! DeviceIdentity(uuid: "0123456789abcdef0123456789abcdef"))
        configure(&configuration)
        device = SimulatedDevice(configuration: configuration, authority: authority)
    }

    /// Records outputs and returns them.
    @discardableResult
    mutating func record(_ outputs: [DeviceOutput]) -> [DeviceOutput] {
        for output in outputs {
            switch output {
            case .send(let envelope, let to): sent.append((envelope, to))
            case .close(let id, let reason): closed.append((id, reason))
            case .log(let event): logs.append(event)
            }
        }
        return outputs
    }

    mutating func open(_ id: UInt64) -> ConnectionID {
        let connection = ConnectionID(id)
        record(device.connectionOpened(connection, now: now))
        return connection
    }

    mutating func close(_ connection: ConnectionID) {
        record(device.connectionClosed(connection, now: now))
    }

    /// Sends a JSON payload and returns the messages the device sent in response.
    @discardableResult
    mutating func send(_ connection: ConnectionID, from source: String = "sender-0", to destination: String,
                       _ namespace: String, _ payload: JSONValue) -> [Sent] {
        sendRaw(connection, CastEnvelope(sourceId: source, destinationId: destination, namespace: namespace,
                                         payload: .string(payload.jsonText())))
    }

    @discardableResult
    mutating func sendRaw(_ connection: ConnectionID, _ envelope: CastEnvelope) -> [Sent] {
        record(device.receive(envelope, on: connection, now: now)).compactMap(Sent.init)
    }

    /// Advances time by `seconds` and returns what the device sent meanwhile.
    @discardableResult
    mutating func advance(_ seconds: Double) -> [Sent] {
        now = now + seconds
        return record(device.advance(to: now)).compactMap(Sent.init)
    }

    /// CONNECTs `source` to `destination` on the connection namespace.
    mutating func connect(_ connection: ConnectionID, from source: String = "sender-0", to destination: String = "receiver-0") {
        send(connection, from: source, to: destination, CastNamespace.connection, ["type": "CONNECT"])
    }

    /// Opens a connection, CONNECTs to receiver-0, launches the DMR and CONNECTs to it.
    mutating func launchDefaultMediaReceiver(on id: UInt64 = 1, source: String = "sender-0") -> (ConnectionID, String) {
        let connection = open(id)
        connect(connection, from: source)
        let replies = send(connection, from: source, to: "receiver-0", CastNamespace.receiver,
                           ["type": "LAUNCH", "appId": "CC1AD845", "requestId": 1])
        let status = replies.last { $0.type == "RECEIVER_STATUS" }!
        let transportId = status.json["status"]!["applications"]!.arrayValue![0]["transportId"]!.stringValue!
        connect(connection, from: source, to: transportId)
        return (connection, transportId)
    }

    var transportId: String? { device.runningApp?.transportId }
}

/// One message the device sent, with its JSON parsed.
struct Sent {
    let envelope: CastEnvelope
    let to: [ConnectionID]
    let json: JSONValue

    init?(_ output: DeviceOutput) {
        guard case .send(let envelope, let to) = output else { return nil }
        self.envelope = envelope
        self.to = to
        if let text = envelope.utf8 {
            json = (try? JSONValue.parse(text)) ?? .null
        } else {
            json = .null
        }
    }

    var type: String? { json["type"]?.stringValue }
    var requestId: Int? { json["requestId"]?.intValue }
    var isBroadcast: Bool { envelope.destinationId == CastEndpoint.broadcast }
    /// The first MediaStatus of a MEDIA_STATUS.
    var mediaStatus: JSONValue? { json["status"]?.arrayValue?.first }
}

/// A device with the DMR running and one sender connected to it: the setting of every
/// media test.
struct MediaHarness {
    var harness: DeviceHarness
    let connection: ConnectionID
    let transportId: String
    private var nextRequestId = 100

    init(configure: (inout DeviceConfiguration) -> Void = { _ in }) {
        harness = DeviceHarness { configuration in
            configuration.heartbeatInterval = nil
            configuration.idleTimeout = nil
            configure(&configuration)
        }
        (connection, transportId) = harness.launchDefaultMediaReceiver()
    }

    /// Sends a media request (a requestId is added when missing) and returns the replies.
    @discardableResult
    mutating func send(_ fields: [String: JSONValue]) -> [Sent] {
        var fields = fields
        if fields["requestId"] == nil {
            nextRequestId += 1
            fields["requestId"] = .number(Double(nextRequestId))
        }
        return harness.send(connection, to: transportId, CastNamespace.media, .object(fields))
    }

    @discardableResult
    mutating func advance(_ seconds: Double) -> [Sent] { harness.advance(seconds) }

    var session: MediaSession? { harness.device.runningApp?.media?.session }

    /// A queue item for `name`, `duration` seconds long.
    static func item(_ name: String, duration: Double = 60, extra: [String: JSONValue] = [:]) -> JSONValue {
        var fields: [String: JSONValue] = [
            "media": ["contentId": .string("http://example.test/\(name).mp3"), "contentType": "audio/mpeg",
                      "streamType": "BUFFERED", "duration": .number(duration),
                      "metadata": ["metadataType": 3, "title": .string(name)]],
        ]
        fields.merge(extra) { _, new in new }
        return .object(fields)
    }

    /// QUEUE_LOADs `count` items named t1...tN.
    @discardableResult
    mutating func queueLoad(_ count: Int, duration: Double = 60, repeatMode: String = "REPEAT_OFF",
                            startIndex: Int = 0, extra: [String: JSONValue] = [:]) -> [Sent] {
        var fields: [String: JSONValue] = [
            "type": "QUEUE_LOAD", "repeatMode": .string(repeatMode), "startIndex": .number(Double(startIndex)),
            "items": .array((1...count).map { Self.item("t\($0)", duration: duration) }),
        ]
        fields.merge(extra) { _, new in new }
        return send(fields)
    }

    var itemIds: [Int] { session?.queue.itemIds ?? [] }
}

extension Array where Element == Sent {
    /// The messages of one type.
    func ofType(_ type: String) -> [Sent] { filter { $0.type == type } }
    /// The MediaStatus entries of every MEDIA_STATUS, in order.
    var statuses: [JSONValue] { ofType("MEDIA_STATUS").compactMap(\.mediaStatus) }
}
