import CastDevice
import CastSimulatorTesting
import CastWire
import Testing

/// A device running the EMP receiver with two senders connected to it (`sender-1` on
/// connection 1, `sender-2` on connection 2), over a small Exposure world. Every message
/// the device sends on the EMP namespace is decoded under the iOS and the Android Enigma
/// senders' rules as it comes out; one they would reject fails the test.
struct EMPDevice {
    var device: CastTestDevice
    let first: ConnectionID
    let second: ConnectionID
    let transportId: String
    private var nextRequestId = 10
    /// Types the senders' rules are not applied to: the opt-in extras a test sends because
    /// senders reject them (it checks the rejection itself).
    var knowinglyRejected: Set<String> = []

    static let epoch = ExposureWorld.defaultEpochMilliseconds

    static let world = ExposureWorld(
        isOpen: false,
        businessUnits: [
            .init(customer: "Blixt", businessUnit: "Play", sessionTokens: ["tok-valid": .valid, "tok-old": .expired]),
            .init(customer: "Other", businessUnit: "Unit", sessionTokens: ["tok-other": .valid]),
        ],
        assets: [
            "movie-1": .init(title: "Northern Lights", duration: 5400, textLanguages: ["en", "sv"], audioLanguages: ["en", "de"],
                             gaps: [.init(from: 600, to: 660)], bookmark: 1500),
            "short-1": .init(duration: 600, audioLanguages: ["en"]),
            "geo-1": .init(duration: 600, entitlement: .refused(.init(message: "GEO_BLOCKED"))),
            "noff-1": .init(duration: 600, entitlement: .granted(.init(ffEnabled: false, maxBitrate: 5_000_000, maxResHeight: 1080))),
        ],
        channels: [
            "news-24": .init(title: "News 24", programs: [
                .init(programId: "p1", assetId: "a-p1", title: "Morning", start: 0, end: 600),
                .init(programId: "p2", assetId: "a-p2", title: "Noon", start: 600, end: 1200),
                .init(programId: "p3", assetId: "a-p3", title: "Evening", start: 1200, end: 2400),
            ], textLanguages: ["en"]),
            "fixed-1": .init(programs: [.init(programId: "f1", assetId: "a-f1", start: 0, end: 3600)],
                             entitlement: .granted(.init(timeshiftEnabled: false))),
        ])

    init(world: ExposureWorld = EMPDevice.world, appId: String = CastAppDefinition.emp.appId,
         configure: (inout DeviceConfiguration) -> Void = { _ in }) {
        device = CastTestDevice { configuration in
            configuration.heartbeatInterval = nil
            configuration.idleTimeout = nil
            configuration.exposure = world
            configure(&configuration)
        }
        (first, transportId) = device.launch(appId, on: 1, source: "sender-1")
        second = device.open(2)
        device.connect(second, from: "sender-2")
        device.connect(second, from: "sender-2", to: transportId)
    }

    /// A media-namespace request from sender-1 (a requestId is added when missing).
    @discardableResult
    mutating func media(_ fields: [String: JSONValue]) -> [SentMessage] {
        var fields = fields
        if fields["requestId"] == nil {
            nextRequestId += 1
            fields["requestId"] = .number(Double(nextRequestId))
        }
        return checked(device.send(first, from: "sender-1", to: transportId, CastNamespace.media, .object(fields)))
    }

    /// An EMP LOAD as the current iOS sender sends it (docs/protocol/emp.md §5.1, §5.2).
    @discardableResult
    mutating func load(_ contentId: String, token: String = "tok-valid", customer: String = "Blixt",
                       businessUnit: String = "Play", extra: [String: JSONValue] = [:],
                       request: [String: JSONValue] = [:]) -> [SentMessage] {
        var customData: [String: JSONValue] = ["customer": .string(customer), "businessUnit": .string(businessUnit)]
        customData.merge(extra) { _, new in new }
        var fields: [String: JSONValue] = [
            "type": "LOAD", "media": ["contentId": .string(contentId), "streamType": "BUFFERED", "contentType": "video/mp4"],
            "credentials": .string(token), "customData": .object(customData), "autoplay": true,
        ]
        fields.merge(request) { _, new in new }
        return media(fields)
    }

    /// A message on the EMP namespace from sender-1 (or `connection`'s sender).
    @discardableResult
    mutating func emp(_ type: String, _ data: JSONValue? = nil, on connection: ConnectionID? = nil) -> [SentMessage] {
        var fields: [String: JSONValue] = ["type": .string(type)]
        if let data { fields["data"] = data }
        return empRaw(JSONValue.object(fields).jsonText(), on: connection)
    }

    @discardableResult
    mutating func empRaw(_ text: String, on connection: ConnectionID? = nil) -> [SentMessage] {
        let connection = connection ?? first
        let sender = connection == first ? "sender-1" : "sender-2"
        return checked(device.sendRaw(connection, CastEnvelope(sourceId: sender, destinationId: transportId,
                                                                namespace: CastNamespace.emp, payload: .string(text))))
    }

    @discardableResult
    mutating func advance(_ seconds: Double) -> [SentMessage] { checked(device.advance(seconds)) }

    @discardableResult
    mutating func apply(_ input: OperatorInput) -> [SentMessage] { checked(device.apply(input)) }

    var session: MediaSnapshot? { device.snapshot.media }
    var state: EMPSnapshot? { (device.device.runningApp?.app as? EMPApp)?.state }

    /// Fails the test on any EMP message the iOS or Android Enigma sender would reject.
    private func checked(_ messages: [SentMessage], sourceLocation: SourceLocation = #_sourceLocation) -> [SentMessage] {
        for message in messages.emp {
            guard let text = message.envelope.utf8 else {
                Issue.record("EMP message is not text", sourceLocation: sourceLocation)
                continue
            }
            let senders: [EMPSender] = knowinglyRejected.contains(message.type ?? "") ? [] : EMPSender.allCases
            for sender in senders {
                let problems = EMPSenderRules.problems(text, for: sender)
                #expect(problems.isEmpty, "\(sender) rejects \(text): \(problems)", sourceLocation: sourceLocation)
            }
            // Receiver → sender messages are broadcasts to every sender of the app.
            #expect(message.isBroadcast, "EMP message not broadcast: \(text)", sourceLocation: sourceLocation)
        }
        return messages
    }
}

extension [SentMessage] {
    /// The messages on the EMP namespace.
    var emp: [SentMessage] { filter { $0.envelope.namespace == CastNamespace.emp } }
    /// The EMP types in order.
    var empTypes: [String] { emp.compactMap(\.type) }
    /// The first EMP message of `type`.
    func emp(_ type: String) -> JSONValue? { emp.first { $0.type == type }?.json }
    /// Every message, as `media:TYPE` or `emp:TYPE`, in order.
    var sequence: [String] {
        compactMap { message in
            switch message.envelope.namespace {
            case CastNamespace.emp: "emp:\(message.type ?? "?")"
            case CastNamespace.media: "media:\(message.type ?? "?")"
            default: nil
            }
        }
    }
}
