import CastWire

// The requests CAF senders send beyond playback and queues (docs/protocol/media.md §2.3, §7),
// decoded with the same rule as the others: a known field of the wrong type or value is
// INVALID_PARAMS, naming it.

extension MediaRequest {
    static func cafRequest(_ header: RequestHeader) throws(RequestRejection) -> MediaRequest {
        let body = header.body
        switch header.type {
        case "STORE_SESSION":
            // The Android SDK sends the target's capabilities and no mediaSessionId.
            _ = try params { () throws(JSONReadError) in try body.optionalObject("targetDeviceCapabilities") }
            return .storeSession
        case "RESUME_SESSION":
            let loadRequest = try params { () throws(JSONReadError) -> JSONReader in
                guard let state = try body.optionalObject("sessionState") else { throw body.error("RESUME_SESSION without sessionState") }
                guard let load = try state.optionalObject("loadRequestData") else {
                    throw state.error("sessionState without loadRequestData")
                }
                return load
            }
            return .resumeSession(try LoadRequest(loadRequest))
        case "SKIP_AD":
            return .skipAd
        case "USER_ACTION":
            return .userAction(try UserActionRequest(body))
        case "SET_CREDENTIALS":
            let credentials = try params { () throws(JSONReadError) in
                _ = try body.optionalInt("forRequestId")
                _ = try body.optionalString("source")
                return try body.optionalString("credentials")
            }
            guard let credentials else { throw .invalidParams("SET_CREDENTIALS needs credentials") }
            return .setCredentials(credentials: credentials)
        case "DISPLAY_STATUS":
            _ = try params { () throws(JSONReadError) in try body.optionalString("source") }
            return .displayStatus
        case "FOCUS_STATE":
            let state = try params { () throws(JSONReadError) in try body.optionalString("state") }
            switch state {
            case "IN_FOCUS": return .focusState(inFocus: true)
            case "NOT_IN_FOCUS": return .focusState(inFocus: false)
            default: throw .invalidParams("state: expected IN_FOCUS or NOT_IN_FOCUS, got \(state.map { JSONValue.string($0).jsonText() } ?? "nothing")")
            }
        case "PRECACHE":
            _ = try params { () throws(JSONReadError) in try body.optionalString("precacheData") }
            return .precache
        case "PRELOAD":
            guard let itemId = try params({ () throws(JSONReadError) in try body.optionalInt("itemId") }) else {
                throw .invalidParams("PRELOAD needs itemId")
            }
            return .preload(itemId: itemId)
        case "CUSTOM_COMMAND":
            // `data` is the app's own (usually stringified JSON); `source` the Assistant's query.
            _ = try params { () throws(JSONReadError) in try body.optionalString("source") }
            return .customCommand
        case "LOAD_BY_ENTITY":
            guard try params({ () throws(JSONReadError) in try body.optionalString("entity") }) != nil else {
                throw .invalidParams("LOAD_BY_ENTITY needs entity")
            }
            return .loadByEntity
        default:
            throw .invalidRequest(.invalidCommand, "unsupported media request type \"\(header.type)\"")
        }
    }
}

/// USER_ACTION: a like, a follow, a flag, on the current item (media.md §2.3).
package struct UserActionRequest: Sendable {
    package static let actions = ["LIKE", "DISLIKE", "FOLLOW", "UNFOLLOW", "FLAG", "SKIP_AD"]
    static let contexts = ["ALBUM", "ARTIST", "CHANNEL", "COACH", "EPISODE", "MOVIE", "PLAYER", "PLAYLIST", "SERIES", "TEAM",
                           "TRACK", "UNKNOWN_CONTEXT"]

    var userAction: String
    var context: String?
    /// true: undo it (un-like).
    var clear: Bool
    var customData: JSONValue?

    init(_ body: JSONReader) throws(RequestRejection) {
        (userAction, context, clear, customData) = try params { () throws(JSONReadError) in
            guard let action = body["userAction"] else { throw body.error("USER_ACTION needs userAction") }
            let name = try action.string()
            guard Self.actions.contains(name) else { throw action.expected("one of \(Self.actions.joined(separator: ", "))") }
            var context: String?
            if let reader = body["userActionContext"] {
                context = try reader.string()
                guard Self.contexts.contains(context!) else { throw reader.expected("one of \(Self.contexts.joined(separator: ", "))") }
            }
            _ = try body.optionalString("source")
            return (name, context, try body.optionalBool("clear") ?? false, try body.optionalObject("customData")?.value)
        }
    }
}
