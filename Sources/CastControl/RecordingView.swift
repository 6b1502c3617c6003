import CastScenario
import CastSimulator
import CastWire
import Hummingbird

/// The recording endpoint's JSON: whether one is being written, where, and how far.
enum RecordingView {
    static func json(_ status: Recorder.Status?, recording: Bool = true) -> JSONValue {
        guard let status else { return ["recording": false] }
        var members: [String: JSONValue] = [
            "recording": .bool(recording), "path": .string(status.path), "events": .number(Double(status.events)),
            "dropped": .number(Double(status.dropped)),
        ]
        if let failure = status.failure { members["failure"] = .string(failure) }
        return .object(members)
    }
}

extension ControlRoutes {
    /// `POST /recording {"path": "bug.jsonl", "redact": ["credentials"], "overwrite": false}`.
    func startRecording(_ request: Request) async throws -> Response {
        try Self.noQuery(request)
        let body = try await Self.object(request, limit: maximumBodyBytes, allowed: ["path", "redact", "overwrite"])
        guard let path = body["path"]?.stringValue, !path.isEmpty else {
            throw ControlError.badRequest("path: expected the file to write, e.g. \"bug.jsonl\"")
        }
        var paths: [String] = []
        if let redact = body["redact"] {
            guard let list = redact.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
                throw ControlError.badRequest("redact: expected an array of payload paths, e.g. [\"credentials\", \"customData.sessionToken\"]")
            }
            paths = list.compactMap(\.stringValue)
        }
        if let overwrite = body["overwrite"], overwrite.boolValue == nil { throw ControlError.badRequest("overwrite: expected true or false") }
        let redaction: PayloadRedaction
        do { redaction = try PayloadRedaction(paths) } catch { throw ControlError.badRequest("redact: \(error)") }
        do {
            let existing: Recorder.Existing = body["overwrite"]?.boolValue == true ? .replaceRecording : .refuse
            let status = try await simulator.startRecording(to: path, redacting: redaction, existing: existing)
            return ControlResponse.json(RecordingView.json(status), status: .created)
        } catch let error as RecorderError {
            switch error.kind {
            case .busy, .exists: throw ControlError(status: .conflict, message: error.description)
            case .cannotWrite: throw ControlError(status: .unprocessableContent, message: error.description)
            }
        }
    }
}
