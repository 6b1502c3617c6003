import CastWire

extension AppBehaviour {
    /// Cast Streaming: the receiver of Chrome's tab mirroring and Open Screen's sender
    /// (docs/protocol/streaming.md).
    public static let mirroring = AppBehaviour(rawValue: "mirroring")
}

extension CastAppDefinition {
    /// Audio and video mirroring, the app Chrome and `cast_sender` launch.
    public static let mirroring = CastAppDefinition(appId: "0F5096E8", displayName: "Chrome Mirroring",
                                                    namespaces: [MirroringApp.webrtc, MirroringApp.remoting], behaviour: .mirroring)
    /// Audio-only mirroring, for sessions without video.
    public static let audioMirroring = CastAppDefinition(appId: "85CDB22F", displayName: "Chrome Mirroring",
                                                         namespaces: [MirroringApp.webrtc, MirroringApp.remoting], behaviour: .mirroring)
}

/// The mirroring receiver's control side: OFFER → ANSWER on the webrtc namespace,
/// GET_CAPABILITIES refused (no remoting). The media itself is the runtime's: the app asks
/// it for a UDP socket (``StreamingEvent/negotiating(_:)``), answers once the socket's port is
/// known (``StreamingReport/opened(session:udpPort:)``), and keeps the figures it reports.
package struct MirroringApp: CastApp {
    package static let behaviour = AppBehaviour.mirroring
    package static let plugin = AppPlugin(
        catalog: [.mirroring, .audioMirroring], requiredNamespaces: [webrtc],
        namespaceAliases: ["webrtc": webrtc, "remoting": remoting],
        sections: [AppScenarioSection(key: MirroringScenarioKeys.key) { section, checker, _ in
            _ = MirroringChange(section, checker: checker, isAction: false)
        }],
        actions: [AppTimelineAction(key: MirroringScenarioKeys.key) { action, checker in
            _ = MirroringChange(action, checker: checker, isAction: true)
        }],
        schema: MirroringPanel.schema,
        panel: AppPanel(key: "mirroring", title: "Cast Streaming", eventsNamespace: webrtc),
        exampleSections: [MirroringScenarioKeys.key: ["packetLoss": 2, "limits": ["maxWidth": 1280, "maxHeight": 720]]])
    package static let webrtc = "urn:x-cast:com.google.cast.webrtc"
    package static let remoting = "urn:x-cast:com.google.cast.remoting"

    enum Phase: Sendable, Equatable {
        case awaitingOffer
        /// The OFFER was accepted; its ANSWER waits for the UDP port.
        case negotiating(StreamingPlan, seqNum: Int, requester: Requester)
        case streaming(StreamingPlan, udpPort: Int)
        case ended(StreamingPlan?, reason: String)
    }

    private let sessionId: String
    private let withVideo: Bool
    private(set) var settings = MirroringSettings()
    private(set) var phase = Phase.awaitingOffer
    private(set) var offers = 0
    private(set) var figures: StreamingFigures?
    /// The session's UDP port, kept once it ended (a recording or a test reads it after).
    private(set) var udpPort: Int?

    package init(launch: AppLaunch) {
        sessionId = launch.sessionId
        withVideo = launch.definition.appId.uppercased() != CastAppDefinition.audioMirroring.appId
        if let section = launch.configuration.appSections[MirroringScenarioKeys.key],
           let change = MirroringChange(JSONReader(section), checker: JSONChecker(), isAction: false) {
            change.apply(to: &settings)
        }
    }

    package mutating func receive(_ message: AppMessage, context: inout AppContext) {
        guard message.envelope.namespace == Self.webrtc, let payload = message.payload else {
            context.acceptWithoutAnswer(message, app: .mirroring)
            return
        }
        switch payload["type"]?.stringValue?.uppercased() {
        case "OFFER": offer(payload, message: message, context: &context)
        case "GET_CAPABILITIES":
            guard let seqNum = StreamingOffer.seqNum(of: payload) else {
                context.log(.info, message.connection, "GET_CAPABILITIES without a seqNum: nothing to answer")
                return
            }
            context.send(JSONPayload(StreamingAnswer.capabilities(seqNum: seqNum)), namespace: Self.webrtc,
                         to: message.requester(requestId: 0))
        default:
            context.acceptWithoutAnswer(message, app: .mirroring)
        }
    }

    private mutating func offer(_ payload: JSONValue, message: AppMessage, context: inout AppContext) {
        offers += 1
        let requester = message.requester(requestId: 0)
        guard let seqNum = StreamingOffer.seqNum(of: payload) else {
            // An answer without the OFFER's seqNum is one the sender drops: say why here instead.
            context.log(.info, message.connection, "OFFER without a usable seqNum ignored: an ANSWER could not name it")
            context.raise(.messageUnhandled(message.connection, namespace: Self.webrtc, reason: "OFFER without a seqNum"))
            return
        }
        let offer: StreamingOffer
        do {
            offer = try StreamingOffer(payload)
        } catch {
            refuse(seqNum: seqNum, error.code, error.description, requester: requester, context: &context)
            return
        }
        if let refusal = settings.refusal {
            refuse(seqNum: seqNum, refusal.code, refusal.description, requester: requester, context: &context)
            return
        }
        let chosen = StreamingAnswer.choose(from: offer, video: withVideo)
        guard !chosen.isEmpty else {
            refuse(seqNum: seqNum, StreamingOffer.Refusal.noStreamSelected, "Failed to select any streams from OFFER",
                   requester: requester, context: &context)
            return
        }
        // A new OFFER starts over: the session before it ends (docs/protocol/streaming.md §2.6).
        end(because: "a new OFFER (seqNum \(seqNum)) replaced it", context: &context)
        let streams = chosen.map { stream in
            StreamingStream(kind: stream.kind, index: stream.index, codec: stream.codec, senderSsrc: stream.ssrc,
                            receiverSsrc: StreamingAnswer.receiverSsrc(for: stream.ssrc), rtpTimebase: stream.rtpTimebase,
                            targetDelayMilliseconds: stream.targetDelayMilliseconds, aesKey: stream.aesKey, aesIvMask: stream.aesIvMask,
                            channels: stream.channels, maxFrameRate: stream.maxFrameRate, maxBitRate: stream.maxBitRate,
                            rtcpEventLog: stream.rtcpEventLog)
        }
        // Numbered by OFFER, not by seqNum: a sender that launches the app again starts at 1 again.
        let plan = StreamingPlan(session: "\(sessionId)#\(offers)", connection: message.connection, streams: streams, udpPort: 0,
                                 impairment: settings.impairment)
        phase = .negotiating(plan, seqNum: seqNum, requester: requester)
        figures = nil
        udpPort = nil
        context.log(.info, message.connection, "OFFER \(seqNum) accepted: \(streams.map { "\($0.kind.rawValue) \($0.codec)" }.joined(separator: " + "))")
        context.raise(.streaming(.negotiating(plan)))
    }

    private mutating func refuse(seqNum: Int, _ code: Int, _ description: String, requester: Requester, context: inout AppContext) {
        context.log(.info, requester.connection, "OFFER \(seqNum) refused: \(description)")
        context.send(JSONPayload(StreamingAnswer.error(seqNum: seqNum, code: code, description: description)), namespace: Self.webrtc,
                     to: requester)
        context.raise(.streaming(.refused(seqNum: seqNum, code: code, description: description)))
    }

    package mutating func apply(_ input: AppInput, context: inout AppContext) {
        if case .action(let action) = input, action.key == MirroringScenarioKeys.key {
            act(action.value, context: &context)
            return
        }
        guard case .streaming(let report) = input else { return }
        switch (phase, report) {
        case (.negotiating(let plan, let seqNum, let requester), .opened(let session, let port)) where plan.session == session:
            let answer = StreamingAnswer.ok(seqNum: seqNum, udpPort: port, streams: plan.streams, limits: settings.limits)
            // An "ok" the sender then finds invalid aborts it: never send one.
            let problems = StreamingAnswerCheck.problems(in: answer)
            guard problems.isEmpty else {
                phase = .ended(plan, reason: "castsim's ANSWER would not pass the sender's checks")
                context.log(.warning, requester.connection, "ANSWER \(seqNum) not sent, it fails the sender's checks: \(problems.joined(separator: "; "))")
                refuse(seqNum: seqNum, StreamingOffer.Refusal.parameterInvalid, problems.joined(separator: "; "), requester: requester, context: &context)
                context.raise(.streaming(.ended(session: session, reason: "the ANSWER failed the sender's checks", figures: nil)))
                return
            }
            phase = .streaming(plan, udpPort: port)
            udpPort = port
            context.send(JSONPayload(answer), namespace: Self.webrtc, to: requester)
            context.raise(.streaming(.started(session: session, udpPort: port)))
        case (.negotiating(let plan, let seqNum, let requester), .failed(let session, let reason)) where plan.session == session:
            phase = .ended(plan, reason: reason)
            // 10001 is how a receiver says "it failed" without a more specific code.
            context.send(JSONPayload(StreamingAnswer.error(seqNum: seqNum, code: 10001, description: reason)), namespace: Self.webrtc,
                         to: requester)
            context.raise(.streaming(.refused(seqNum: seqNum, code: 10001, description: reason)))
        case (.streaming(let plan, _), .figures(let session, let figures)) where plan.session == session:
            self.figures = figures
            context.raise(.streaming(.measured(plan, figures)))
        case (.streaming(let plan, _), .ended(let session, let reason)) where plan.session == session:
            phase = .ended(plan, reason: reason)
            context.log(.info, plan.connection, "streaming session \(session) ended: \(reason)")
            context.raise(.streaming(.ended(session: session, reason: reason, figures: figures)))
        default:
            // A report about a session this app has left behind.
            break
        }
    }

    /// A `mirroring` action: new settings from now on (the session under way is told of a
    /// change to its network), or the session's end.
    private mutating func act(_ value: JSONValue, context: inout AppContext) {
        guard let change = MirroringChange(JSONReader(value), checker: JSONChecker(), isAction: true) else { return }
        let before = settings.impairment
        change.apply(to: &settings)
        if settings.impairment != before, let plan = phase.plan, phase.isUnderWay {
            context.raise(.streaming(.impaired(session: plan.session, settings.impairment)))
        }
        if let reason = change.endSession { end(because: reason, context: &context) }
    }

    package var observesDeviceEvents: Bool { true }

    package mutating func observe(_ event: DeviceEvent.Kind, context: inout AppContext) {
        // A sender that goes ends its session: Open Screen's STOP seldom reaches the device.
        if case .connectionClosed(let id, _) = event, phase.plan?.connection == id {
            end(because: "the sender's connection closed", context: &context)
        }
    }

    package mutating func stop(context: inout AppContext) {
        end(because: "the app stopped", context: &context)
    }

    /// Ends the session under way, if there is one, and says so (the runtime closes its socket).
    private mutating func end(because reason: String, context: inout AppContext) {
        switch phase {
        case .negotiating(let plan, _, _), .streaming(let plan, _):
            phase = .ended(plan, reason: reason)
            context.raise(.streaming(.ended(session: plan.session, reason: reason, figures: figures)))
        case .awaitingOffer, .ended:
            break
        }
    }

    package var statusText: String? {
        if case .streaming = phase { return "Casting: tab" }
        return nil
    }

    package func snapshot(at now: SimTime) -> AppStateSnapshot {
        AppStateSnapshot(panel: MirroringPanel.json(phase: phase, offers: offers, udpPort: udpPort, figures: figures))
    }
}

extension MirroringApp.Phase {
    var isUnderWay: Bool {
        switch self {
        case .negotiating, .streaming: true
        case .awaitingOffer, .ended: false
        }
    }

    var plan: StreamingPlan? {
        switch self {
        case .awaitingOffer: nil
        case .negotiating(let plan, _, _), .streaming(let plan, _): plan
        case .ended(let plan, _): plan
        }
    }
}
