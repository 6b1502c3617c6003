import CastWire

// The figures in the names the state's `mirroring.streaming` uses (docs/protocol/streaming.md
// §5): one spelling for the state, the event stream, recordings and scenario expectations.

extension StreamingFigures {
    /// Each negotiated stream with what was counted of it (zeros for a stream not heard yet).
    public func streamsJSON(_ negotiated: [StreamingStream]) -> [JSONValue] {
        negotiated.map { stream in
            let counted = streams.first { $0.senderSsrc == stream.senderSsrc } ?? Stream(senderSsrc: stream.senderSsrc)
            return .object(stream.json.merging(counted.json) { _, counted in counted })
        }
    }

    /// What is counted for the session as a whole.
    public var sessionJSON: [String: JSONValue] {
        [
            "senderAddress": senderAddress.map(JSONValue.string) ?? nil, "senderReports": number(senderReports),
            "rtcpSent": number(rtcpSent), "droppedByScenario": number(droppedByScenario),
            "picture": picture.map { picture in
                ["frameId": number(picture.frameId), "width": number(picture.width), "height": number(picture.height),
                 "averageColor": .string(picture.averageColor), "pngBytes": number(picture.pngBytes)]
            } ?? nil,
            "picturesDecoded": number(picturesDecoded), "picturesSkipped": number(picturesSkipped),
            "picturesUnavailable": picturesUnavailable.map(JSONValue.string) ?? nil,
        ]
    }
}

extension StreamingFigures.Stream {
    /// The stream's counts; the keys a streaming expectation may test, with ``StreamingStream/json``'s.
    public var json: [String: JSONValue] {
        [
            "packetsReceived": number(packetsReceived), "packetsLost": number(packetsLost),
            "packetsRecovered": number(packetsRecovered), "duplicatePackets": number(duplicatePackets),
            "bytesReceived": number(bytesReceived), "framesReceived": number(framesReceived),
            "keyFrames": number(keyFrames), "framesDropped": number(framesDropped),
            "framesPerSecond": .number(framesPerSecond), "bitsPerSecond": .number(bitsPerSecond),
            "ackLatencyP50": ackLatencyP50Milliseconds.map(JSONValue.number) ?? nil,
            "ackLatencyP99": ackLatencyP99Milliseconds.map(JSONValue.number) ?? nil,
            "pictureLossIndications": number(pictureLossIndications), "checkpointLag": number(checkpointLag),
            "width": width.map(number) ?? nil, "height": height.map(number) ?? nil,
        ]
    }

    /// Every key of ``json``.
    public static let keys: Set<String> = Set(StreamingFigures.Stream(senderSsrc: 0).json.keys)
}

extension StreamingStream {
    /// What the OFFER and ANSWER settled for the stream (its keys stay out).
    public var json: [String: JSONValue] {
        ["kind": .string(kind.rawValue), "codec": .string(codec), "index": number(index), "senderSsrc": number(Int(senderSsrc)),
         "receiverSsrc": number(Int(receiverSsrc)), "targetDelay": number(targetDelayMilliseconds)]
    }

    /// Every key of ``json``.
    public static let keys: Set<String> = Set(StreamingStream(kind: .video, index: 0, codec: "", senderSsrc: 0, receiverSsrc: 0, rtpTimebase: 0,
                                                              targetDelayMilliseconds: 0, aesKey: [], aesIvMask: [], channels: 0).json.keys)
}

extension StreamingEvent {
    /// The event as the event stream and recordings carry it.
    public var json: JSONValue {
        switch self {
        case .negotiating(let plan):
            ["phase": "negotiating", "session": .string(plan.session), "connection": number(Int(plan.connection.rawValue)),
             "streams": .array(plan.streams.map { .object($0.json) })]
        case .started(let session, let port):
            ["phase": "started", "session": .string(session), "udpPort": number(port)]
        case .impaired(let session, let impairment):
            ["phase": "impaired", "session": .string(session), "packetLoss": .number(impairment.packetLossPercent),
             "delay": .number(impairment.addedDelay), "feedback": .bool(impairment.feedback)]
        case .refused(let seqNum, let code, let description):
            ["phase": "refused", "seqNum": number(seqNum), "code": number(code), "description": .string(description)]
        case .measured(let plan, let figures):
            .object(figures.sessionJSON.merging(["phase": "measured", "session": .string(plan.session),
                                                 "streams": .array(figures.streamsJSON(plan.streams))]) { _, event in event })
        case .ended(let session, let reason, let figures):
            ["phase": "ended", "session": .string(session), "reason": .string(reason),
             "streams": figures.map { .array($0.streams.map { .object(["senderSsrc": number(Int($0.senderSsrc))].merging($0.json) { a, _ in a }) }) } ?? nil]
        }
    }
}

private func number(_ value: Int) -> JSONValue { .number(Double(value)) }
