import CastScenario
import CastWire
import Hummingbird

/// A request the control API refuses: its status and a message that says what was
/// expected, as JSON `{"error": ..., "issues": [...]}`.
struct ControlError: Error, HTTPResponseError, CustomStringConvertible {
    var status: HTTPResponse.Status
    var message: String
    /// Problems of a body read with the scenario syntax, each with its JSON path.
    var issues: [ScenarioIssue] = []
    var headers: HTTPFields = [:]

    static func badRequest(_ message: String) -> ControlError { ControlError(status: .badRequest, message: message) }

    /// A body that failed the scenario reader: every problem, each where it is.
    static func invalid(_ error: ScenarioValidationError, status: HTTPResponse.Status = .badRequest, what: String) -> ControlError {
        let first = error.issues.first.map { $0.description } ?? "not understood"
        let more = error.issues.count > 1 ? " (and \(error.issues.count - 1) more problem\(error.issues.count == 2 ? "" : "s"))" : ""
        return ControlError(status: status, message: "\(what): \(first)\(more)", issues: error.issues)
    }

    var description: String { "\(status.code) \(message)" }

    var body: JSONValue {
        var fields: [String: JSONValue] = ["error": .string(message)]
        if !issues.isEmpty {
            fields["issues"] = .array(issues.map { ["path": .string($0.path.isEmpty ? "$" : $0.path), "message": .string($0.message)] })
        }
        return .object(fields)
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = ControlResponse.json(body, status: status)
        response.headers.append(contentsOf: headers)
        return response
    }
}

/// Responses of the control API.
enum ControlResponse {
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        text(value.jsonText() + "\n", contentType: "application/json", status: status)
    }

    /// JSON text written as bytes already (a newline is added, as `json(_:)` adds one).
    static func json(bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(bytes.count + 1)
        buffer.writeBytes(bytes)
        buffer.writeInteger(UInt8(ascii: "\n"))
        return body(buffer, contentType: "application/json", status: status)
    }

    static func text(_ text: String, contentType: String, status: HTTPResponse.Status = .ok) -> Response {
        body(ByteBuffer(string: text), contentType: contentType, status: status)
    }

    private static func body(_ buffer: ByteBuffer, contentType: String, status: HTTPResponse.Status) -> Response {
        var headers: HTTPFields = [.contentType: contentType]
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: buffer))
    }
}
