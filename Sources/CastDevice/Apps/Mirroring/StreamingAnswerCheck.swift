import CastWire

/// The checks an Open Screen sender makes of a receiver's reply (docs/protocol/streaming.md
/// §2.3, §2.4), written as the sender reads it rather than as castsim builds it. A reply that
/// says `"ok"` and fails one of them does not get a polite error: `cast_sender` parses it,
/// keeps it as valid without its body, and aborts on the first use. So an "ok" reply is sent
/// only when this finds nothing, and the tests run every ANSWER castsim can build through it.
package enum StreamingAnswerCheck {
    /// What the sender would refuse in `reply` (an ANSWER or a CAPABILITIES_RESPONSE), each
    /// as `path: reason`; empty when it takes it. With `offer`, also what only the OFFER tells:
    /// that every index was offered, at most one audio and one video, and no receiver SSRC
    /// equal to its stream's sender SSRC (the sender asserts they differ and aborts).
    package static func problems(in reply: JSONValue, offer: StreamingOffer? = nil) -> [String] {
        var problems: [String] = []
        guard reply.objectValue != nil else { return ["an object"] }
        guard (reply["seqNum"]?.intValue).map({ $0 >= 0 }) == true else { return ["seqNum: a non-negative integer"] }
        let type = reply["type"]?.stringValue?.uppercased()
        // A missing result is an error reply, not an "ok" one.
        guard reply["result"]?.stringValue == "ok" else {
            if reply["error"].map({ $0["code"]?.intValue == nil || $0["description"]?.stringValue == nil }) == true {
                problems.append("error: an object with an integer code and a description")
            }
            return problems
        }
        switch type {
        case "ANSWER":
            guard let answer = reply["answer"], answer.objectValue != nil else { return ["answer: an object"] }
            answerBody(answer, offer: offer, into: &problems)
        case "CAPABILITIES_RESPONSE":
            guard let capabilities = reply["capabilities"], capabilities.objectValue != nil else { return ["capabilities: an object"] }
            capabilitiesBody(capabilities, into: &problems)
        default:
            problems.append("type: ANSWER or CAPABILITIES_RESPONSE")
        }
        return problems
    }

    private static func answerBody(_ answer: JSONValue, offer: StreamingOffer?, into problems: inout [String]) {
        if !((answer["udpPort"]?.intValue).map { (1...65535).contains($0) } ?? false) {
            problems.append("answer.udpPort: an integer from 1 to 65535")
        }
        let indexes = answer["sendIndexes"]?.arrayValue?.compactMap { $0.intValue.flatMap { $0 >= 0 ? $0 : nil } }
        let ssrcs = answer["ssrcs"]?.arrayValue?.compactMap { $0.intValue.flatMap(UInt32.init(exactly:)) }
        guard let indexes, !indexes.isEmpty, indexes.count == answer["sendIndexes"]?.arrayValue?.count else {
            problems.append("answer.sendIndexes: a non-empty array of non-negative integers")
            return
        }
        // The sender reads ssrcs[i] for every sendIndexes[i]: a shorter array is read past its end.
        guard let ssrcs, ssrcs.count == indexes.count, ssrcs.count == answer["ssrcs"]?.arrayValue?.count else {
            problems.append("answer.ssrcs: unsigned 32-bit integers, as many as sendIndexes")
            return
        }
        if Set(indexes).count != indexes.count { problems.append("answer.sendIndexes: each index once") }
        if let offer {
            var kinds: [StreamingStream.Kind] = []
            for (index, ssrc) in zip(indexes, ssrcs) {
                guard let stream = offer.streams.first(where: { $0.index == index }) else {
                    problems.append("answer.sendIndexes: \(index) is no stream of the OFFER")
                    continue
                }
                kinds.append(stream.kind)
                if stream.ssrc == ssrc { problems.append("answer.ssrcs: \(ssrc) is the sender's own SSRC for index \(index)") }
            }
            if kinds.filter({ $0 == .audio }).count > 1 || kinds.filter({ $0 == .video }).count > 1 {
                problems.append("answer.sendIndexes: at most one audio and one video stream")
            }
        }
        if let constraints = answer["constraints"] { self.constraints(constraints, into: &problems) }
        if let display = answer["display"] { self.display(display, into: &problems) }
        for key in ["receiverRtcpEventLog", "receiverRtcpDscp"] {
            if let value = answer[key], value.arrayValue?.allSatisfy({ $0.intValue != nil }) != true {
                problems.append("answer.\(key): an array of integers")
            }
        }
        if let value = answer["rtpExtensions"],
           value.arrayValue?.allSatisfy({ $0.arrayValue?.allSatisfy { $0.stringValue != nil } == true }) != true {
            problems.append("answer.rtpExtensions: an array of string arrays")
        }
    }

    /// Both halves must be there and valid, or the whole ANSWER is.
    private static func constraints(_ constraints: JSONValue, into problems: inout [String]) {
        guard let audio = constraints["audio"], audio.objectValue != nil, let video = constraints["video"], video.objectValue != nil else {
            problems.append("answer.constraints: both audio and video")
            return
        }
        let path = "answer.constraints"
        positive(audio["maxSampleRate"], "\(path).audio.maxSampleRate", into: &problems)
        positive(audio["maxChannels"], "\(path).audio.maxChannels", into: &problems)
        bitRates(audio, minimum: 32_000, strictly: false, path: "\(path).audio", into: &problems)
        delay(audio, path: "\(path).audio", into: &problems)
        // An absent maxPixelsPerSecond is invalid too: the sender compares an optional.
        positive(video["maxPixelsPerSecond"], "\(path).video.maxPixelsPerSecond", into: &problems)
        bitRates(video, minimum: 300_000, strictly: true, path: "\(path).video", into: &problems)
        delay(video, path: "\(path).video", into: &problems)
        dimensions(video["maxDimensions"], "\(path).video.maxDimensions", into: &problems)
    }

    private static func display(_ display: JSONValue, into problems: inout [String]) {
        guard display.objectValue != nil else { return problems.append("answer.display: an object") }
        let dimensions = display["dimensions"]
        let aspectRatio = display["aspectRatio"]
        let scaling = display["scaling"]
        if dimensions == nil && aspectRatio == nil && scaling == nil {
            problems.append("answer.display: dimensions, aspectRatio or scaling")
        }
        if let dimensions { self.dimensions(dimensions, "answer.display.dimensions", into: &problems) }
        if let aspectRatio, !isAspectRatio(aspectRatio) { problems.append("answer.display.aspectRatio: \"W:H\"") }
        if let scaling {
            switch scaling.stringValue {
            case "receiver": break
            case "sender" where dimensions != nil || aspectRatio != nil: break
            case "sender": problems.append("answer.display.scaling: \"sender\" needs dimensions or aspectRatio")
            default: problems.append("answer.display.scaling: \"sender\" or \"receiver\"")
            }
        }
    }

    private static func capabilitiesBody(_ capabilities: JSONValue, into problems: inout [String]) {
        // Open Screen's sender speaks remoting version 2 at most; absent is version 1.
        if let remoting = capabilities["remoting"], !(remoting.intValue.map { (1...2).contains($0) } ?? false) {
            problems.append("capabilities.remoting: 1 or 2")
        }
        let known: Set<String> = ["audio", "aac", "opus", "video", "4k", "h264", "vp8", "vp9", "hevc", "av1"]
        guard let caps = capabilities["mediaCaps"]?.arrayValue, !caps.isEmpty,
              caps.allSatisfy({ $0.stringValue.map(known.contains) ?? false }) else {
            return problems.append("capabilities.mediaCaps: a non-empty array of \(known.sorted().joined(separator: ", "))")
        }
    }

    private static func positive(_ value: JSONValue?, _ path: String, into problems: inout [String]) {
        if !((value?.doubleValue).map { $0 > 0 } ?? false) { problems.append("\(path): a number over 0") }
    }

    private static func bitRates(_ object: JSONValue, minimum: Int, strictly: Bool, path: String, into problems: inout [String]) {
        var low: Int? = minimum
        if let given = object["minBitRate"] { low = given.intValue }
        guard let low, let high = object["maxBitRate"]?.intValue else {
            return problems.append("\(path): integer minBitRate and maxBitRate")
        }
        if strictly ? high <= low : high < low { problems.append("\(path).maxBitRate: \(strictly ? "over" : "at least") minBitRate (\(low))") }
    }

    private static func delay(_ object: JSONValue, path: String, into problems: inout [String]) {
        if let delay = object["maxDelay"], !((delay.intValue).map { $0 > 0 } ?? false) { problems.append("\(path).maxDelay: over 0 ms") }
    }

    private static func dimensions(_ value: JSONValue?, _ path: String, into problems: inout [String]) {
        guard let value, value.objectValue != nil else { return problems.append("\(path): an object") }
        positive(value["width"], "\(path).width", into: &problems)
        positive(value["height"], "\(path).height", into: &problems)
        // frameRate is required: a number, or a fraction written as a string.
        if value["frameRate"].flatMap(StreamingOffer.frameRate) == nil { problems.append("\(path).frameRate: a number or \"n/d\"") }
    }

    private static func isAspectRatio(_ value: JSONValue) -> Bool {
        guard let parts = value.stringValue?.split(separator: ":", omittingEmptySubsequences: false), parts.count == 2 else { return false }
        return parts.allSatisfy { Int($0).map { $0 > 0 } ?? false }
    }
}
