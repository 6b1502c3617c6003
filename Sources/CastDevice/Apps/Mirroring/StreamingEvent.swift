/// What happens to a Cast Streaming session, as device events.
public enum StreamingEvent: Sendable, Equatable, CustomStringConvertible {
    /// An OFFER was accepted: the runtime opens the session's UDP socket.
    case negotiating(StreamingPlan)
    /// The ANSWER went out: the sender streams to `udpPort`.
    case started(session: String, udpPort: Int)
    /// The scenario changed what happens to the session's datagrams and feedback.
    case impaired(session: String, StreamingImpairment)
    /// An OFFER was refused with this error ANSWER.
    case refused(seqNum: Int, code: Int, description: String)
    /// The media plane's figures so far (once a second while RTP comes), with the
    /// session's plan: what the state shows and streaming expectations test.
    case measured(StreamingPlan, StreamingFigures)
    /// The session is over: the runtime closes its socket. With the figures last reported.
    case ended(session: String, reason: String, figures: StreamingFigures? = nil)

    public var description: String {
        switch self {
        case .negotiating(let plan):
            "negotiating \(plan.session): \(plan.streams.map { "\($0.kind.rawValue) \($0.codec)" }.joined(separator: ", "))"
        case .started(let session, let port): "started \(session) on UDP port \(port)"
        case .impaired(let session, let impairment):
            "impaired \(session): \(impairment.packetLossPercent) % loss, \(impairment.addedDelay) s delay, feedback \(impairment.feedback ? "on" : "off")"
        case .refused(let seqNum, let code, let description): "OFFER \(seqNum) refused: \(code) \(description)"
        case .measured(let plan, let figures):
            "measured \(plan.session): " + plan.streams.map { stream in
                let counted = figures.streams.first { $0.senderSsrc == stream.senderSsrc }
                return "\(stream.kind.rawValue) \(counted?.framesReceived ?? 0) frames"
            }.joined(separator: ", ")
        case .ended(let session, let reason, let figures):
            "ended \(session): \(reason)" + (figures.map { figures in
                " (" + figures.streams.map { "\($0.framesReceived) frames of \($0.senderSsrc)" }.joined(separator: ", ") + ")"
            } ?? "")
        }
    }
}
