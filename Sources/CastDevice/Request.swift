import CastWire

/// A JSON request on the receiver or media namespace, decoded at the edge.
struct Request {
    let envelope: CastEnvelope
    let connection: ConnectionID
    let fields: [String: JSONValue]
    let type: String
    /// 0 when the sender sent none.
    let requestId: Int
    let hasRequestId: Bool

    /// Why a payload could not even be read as a request.
    enum Malformed: Error {
        case notJSON
        case notAnObject(String)
        case missingType
    }

    static func decode(_ envelope: CastEnvelope, payload: JSONValue?, on connection: ConnectionID) -> Result<Request, Malformed> {
        guard let json = payload else { return .failure(.notJSON) }
        guard let fields = json.objectValue else { return .failure(.notAnObject(json.typeName)) }
        guard let type = fields["type"]?.stringValue else { return .failure(.missingType) }
        let requestId = fields["requestId"]?.intValue
        return .success(Request(
            envelope: envelope, connection: connection, fields: fields, type: type,
            requestId: requestId ?? 0, hasRequestId: requestId != nil))
    }

    subscript(key: String) -> JSONValue? {
        // A JSON null reads as absent: pychromecast sends `"sessionId": null`, go-chromecast `"customData": null`.
        guard let value = fields[key], !value.isNull else { return nil }
        return value
    }

    func double(_ key: String) throws(InvalidParams) -> Double? {
        guard let value = self[key] else { return nil }
        guard let number = value.doubleValue, number.isFinite else {
            throw InvalidParams("\(key): expected a number, got \(value.typeName)")
        }
        return number
    }

    func int(_ key: String) throws(InvalidParams) -> Int? {
        guard let value = self[key] else { return nil }
        guard let number = value.intValue else { throw InvalidParams("\(key): expected an integer, got \(value.typeName)") }
        return number
    }

    func string(_ key: String) throws(InvalidParams) -> String? {
        guard let value = self[key] else { return nil }
        guard let text = value.stringValue else { throw InvalidParams("\(key): expected a string, got \(value.typeName)") }
        return text
    }

    func object(_ key: String) throws(InvalidParams) -> [String: JSONValue]? {
        guard let value = self[key] else { return nil }
        guard let object = value.objectValue else { throw InvalidParams("\(key): expected an object, got \(value.typeName)") }
        return object
    }

    func intArray(_ key: String) throws(InvalidParams) -> [Int]? {
        guard let value = self[key] else { return nil }
        return try CastDevice.intArray(value, path: key)
    }
}

/// A request field with the wrong type or value; becomes INVALID_REQUEST / INVALID_PARAMS.
/// Written "path: what was expected"; the two halves are kept apart for scenario files,
/// which report the path their own way.
struct InvalidParams: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }

    var path: String { description.components(separatedBy: ": ").first ?? "" }
    var message: String { description.components(separatedBy: ": ").dropFirst().joined(separator: ": ") }
}
