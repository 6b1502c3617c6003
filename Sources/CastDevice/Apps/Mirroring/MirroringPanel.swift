import CastWire

/// The mirroring app's state as the control API and the dashboard show it: the session's
/// phase and, per stream, what the media plane counted.
enum MirroringPanel {
    static let schema = AppSchema(json: #"""
        {"$defs": {
          "mirroringPacketLoss": {"type": "number", "minimum": 0, "maximum": 100, "description": "Percent of the sender's datagrams dropped on arrival."},
          "mirroringDelay": {"type": "number", "minimum": 0, "maximum": 10, "description": "Seconds every datagram is held before the receiver sees it."},
          "mirroringFeedback": {"type": "boolean", "description": "false: the receiver sends no RTCP (the sender stalls)."},
          "mirroringRefuseOffers": {"description": "true, or {code, description}: every OFFER gets that error ANSWER; false: OFFERs are answered.",
            "oneOf": [{"type": "boolean"}, {"type": "object", "additionalProperties": false, "properties": {
              "code": {"type": "integer", "minimum": 10000, "maximum": 19999}, "description": {"type": "string", "minLength": 1}}}]},
          "mirroringLimits": {"type": "object", "additionalProperties": false, "description": "What the ANSWER's constraints and display state.",
            "properties": {"maxWidth": {"type": "integer", "minimum": 16, "maximum": 7680}, "maxHeight": {"type": "integer", "minimum": 16, "maximum": 4320},
              "maxFrameRate": {"type": "integer", "minimum": 1, "maximum": 120}, "maxBitRate": {"type": "integer", "minimum": 300001, "maximum": 100000000}}}},
        "sections": {"mirroring": {"type": "object", "additionalProperties": false, "minProperties": 1,
          "description": "The mirroring receiver (Cast Streaming) from the start: its network, feedback, OFFER refusals and ANSWER limits.",
          "properties": {"packetLoss": {"$ref": "#/$defs/mirroringPacketLoss"}, "delay": {"$ref": "#/$defs/mirroringDelay"},
            "feedback": {"$ref": "#/$defs/mirroringFeedback"}, "refuseOffers": {"$ref": "#/$defs/mirroringRefuseOffers"},
            "limits": {"$ref": "#/$defs/mirroringLimits"}}}},
        "actions": {"mirroring": {"type": "object", "additionalProperties": false, "minProperties": 1,
          "description": "Changes the mirroring receiver from now on (the keys given), or ends its session (endSession: true or a reason).",
          "properties": {"packetLoss": {"$ref": "#/$defs/mirroringPacketLoss"}, "delay": {"$ref": "#/$defs/mirroringDelay"},
            "feedback": {"$ref": "#/$defs/mirroringFeedback"}, "refuseOffers": {"$ref": "#/$defs/mirroringRefuseOffers"},
            "limits": {"$ref": "#/$defs/mirroringLimits"},
            "endSession": {"oneOf": [{"const": true}, {"type": "string", "minLength": 1}]}}}},
        "panel": {"type": "object", "required": ["summary", "title", "playerState", "streaming"], "properties": {
          "summary": {"type": "string"}, "title": {"type": "string"}, "playerState": {"type": "string"},
          "streaming": {"type": "object", "required": ["state", "offers", "streams"], "properties": {
            "state": {"type": "string", "enum": ["awaitingOffer", "negotiating", "streaming", "ended"]},
            "session": {"type": ["string", "null"]},
            "offers": {"type": "integer", "description": "OFFERs received since the app launched."},
            "udpPort": {"type": ["integer", "null"]},
            "senderAddress": {"type": ["string", "null"], "description": "Where RTP comes from."},
            "endReason": {"type": ["string", "null"]},
            "senderReports": {"type": "integer"}, "rtcpSent": {"type": "integer"},
            "droppedByScenario": {"type": "integer", "description": "Datagrams the scenario's packet loss dropped."},
            "picture": {"type": ["object", "null"], "description": "The newest key frame decoded: its size, mean colour, and where its PNG is.",
              "properties": {"frameId": {"type": "integer"}, "width": {"type": "integer"}, "height": {"type": "integer"},
                "averageColor": {"type": "string"}, "pngBytes": {"type": "integer"}, "url": {"type": "string"}}},
            "picturesDecoded": {"type": "integer"}, "picturesSkipped": {"type": "integer"},
            "picturesUnavailable": {"type": ["string", "null"], "description": "Why there are no pictures (FFmpeg's libraries missing ...)."},
            "streams": {"type": "array", "items": {"type": "object", "properties": {
              "kind": {"type": "string", "enum": ["audio", "video"]}, "codec": {"type": "string"},
              "index": {"type": "integer"}, "senderSsrc": {"type": "integer"}, "receiverSsrc": {"type": "integer"},
              "targetDelay": {"type": "integer", "description": "Milliseconds."},
              "packetsReceived": {"type": "integer"}, "packetsLost": {"type": "integer"}, "packetsRecovered": {"type": "integer"},
              "duplicatePackets": {"type": "integer"}, "bytesReceived": {"type": "integer"},
              "framesReceived": {"type": "integer"}, "keyFrames": {"type": "integer"}, "framesDropped": {"type": "integer"},
              "framesPerSecond": {"type": "number"}, "bitsPerSecond": {"type": "number"},
              "ackLatencyP50": {"type": ["number", "null"], "description": "Milliseconds from a frame's last packet to its ACK."},
              "ackLatencyP99": {"type": ["number", "null"]},
              "pictureLossIndications": {"type": "integer"}, "checkpointLag": {"type": "integer"},
              "width": {"type": ["integer", "null"]}, "height": {"type": ["integer", "null"]}}}}}}}}}
        """#)

    static func json(phase: MirroringApp.Phase, offers: Int, udpPort port: Int?, figures: StreamingFigures?) -> JSONValue {
        let state: String
        let udpPort: JSONValue = port.map { .number(Double($0)) } ?? nil
        var endReason: JSONValue = nil
        switch phase {
        case .awaitingOffer: state = "awaitingOffer"
        case .negotiating: state = "negotiating"
        case .streaming:
            state = "streaming"
        case .ended(_, let reason):
            state = "ended"
            endReason = .string(reason)
        }
        let plan = phase.plan
        let counted = figures ?? StreamingFigures(streams: [])
        let streams = counted.streamsJSON(plan?.streams ?? [])
        var session = counted.sessionJSON
        if case .object(var picture) = session["picture"] {
            picture["url"] = "/api/v1/streaming/picture"
            session["picture"] = .object(picture)
        }
        let video = figures?.streams.first { figure in plan?.streams.contains { $0.kind == .video && $0.senderSsrc == figure.senderSsrc } == true }
        let summary = switch phase {
        case .streaming: "Cast Streaming · " + (video.map { "\($0.framesReceived) video frames, \(Int($0.framesPerSecond.rounded())) fps" } ?? "audio")
        case .negotiating: "Cast Streaming · negotiating"
        case .awaitingOffer: "Cast Streaming · waiting for an OFFER"
        case .ended: "Cast Streaming · ended"
        }
        return [
            "summary": .string(summary), "title": "Tab mirroring", "playerState": state == "streaming" ? "PLAYING" : "IDLE",
            "streaming": .object(session.merging([
                "state": .string(state), "session": plan.map { .string($0.session) } ?? nil, "offers": number(offers),
                "udpPort": udpPort, "endReason": endReason, "streams": .array(streams),
            ]) { _, own in own }),
        ]
    }

    private static func number(_ value: Int) -> JSONValue { .number(Double(value)) }
}
