import CastWire

// What CAF does with the session beyond playing it (docs/protocol/media.md §2.3, §7):
// stores it for a transfer, takes user actions and credentials, preloads an item.

extension MediaReceiver {
    /// A session moved here from another device (a household's `transferSession`): loaded
    /// from its `loadRequestData` as RESUME_SESSION would, every sender told.
    mutating func resumeSession(_ state: JSONValue, context: inout AppContext) {
        guard let load = JSONReader(state, nullIsAbsent: true)["loadRequestData"] else { return }
        do {
            try startSession(try LoadRequest(load).start, label: "RESUME_SESSION", from: nil, context: &context)
        } catch {
            context.log(.warning, nil, "the session moved here cannot be resumed: \(error.detail)")
        }
    }

    /// STORE_SESSION: SESSION_STATE to the asker, with what a RESUME_SESSION on another
    /// device needs to go on from here (the media, the queue, the position, the rate, the
    /// tracks, customData). The session goes on: whoever moves it stops it here.
    mutating func storeSession(_ command: MediaCommand, from requester: Requester, context: inout AppContext)
        throws(RequestRejection)
    {
        let session = try addressedSession(command)
        guard let state = snapshot(at: context.now)?.sessionState else { throw .invalidPlayerState("no current item to store") }
        context.send(JSONPayload(["type": "SESSION_STATE", "requestId": .number(Double(requester.requestId)), "sessionState": state]),
                     namespace: CastNamespace.media, to: requester)
        context.log(.info, requester.connection, "STORE_SESSION: media session \(session.mediaSessionId) stored at \(NumberText.format(phase.currentTime(at: context.now))) s")
    }

    /// USER_ACTION: the current item's `userActionStates` gains the action (or loses it,
    /// with `clear`), and every sender sees it. An action the item does not take is
    /// refused with ERROR NOT_SUPPORTED, as CAF refuses a command it did not declare.
    mutating func userAction(_ action: UserActionRequest, _ command: MediaCommand, from requester: Requester,
                             context: inout AppContext) throws(RequestRejection)
    {
        let session = try addressedSession(command)
        guard session.userActions.contains(action.userAction) else {
            throw RequestRejection(reply: .error(.notSupported),
                                   detail: "USER_ACTION \(action.userAction): the item takes \(session.userActions.isEmpty ? "none" : session.userActions.joined(separator: ", ")) (the media entry's userActions)")
        }
        changeCurrentMedia(answering: requester, context: &context) { media in
            var states = media.passthrough["userActionStates"]?.arrayValue ?? []
            states.removeAll { $0["userAction"]?.stringValue == action.userAction }
            if !action.clear {
                var state: [String: JSONValue] = ["userAction": .string(action.userAction)]
                if let customData = action.customData { state["customData"] = customData }
                states.append(.object(state))
            }
            media.passthrough["userActionStates"] = .array(states)
        }
    }

    /// SET_CREDENTIALS: the session's credentials change; MEDIA_STATUS answers.
    mutating func setCredentials(_ credentials: String, _ command: MediaCommand, from requester: Requester, context: inout AppContext)
        throws(RequestRejection)
    {
        guard var session = phase.session else {
            context.send(JSONPayload(mediaStatusMessage(requestId: requester.requestId, entries: [])), namespace: CastNamespace.media,
                         to: requester)
            return
        }
        session = try addressedSession(command)
        session.credentials = credentials
        phase.replaceSession(session)
        broadcastStatus(answering: requester, context: &context)
    }

    /// PRELOAD: an item of the queue is made ready ahead (`preloadedItemId`).
    mutating func preload(_ itemId: Int, _ command: MediaCommand, from requester: Requester, context: inout AppContext)
        throws(RequestRejection)
    {
        var session = try addressedSession(command)
        guard session.queue.item(itemId) != nil else {
            throw .invalidParams("itemId \(itemId) is not in the queue")
        }
        session.preloadedItemId = itemId == session.currentItemId ? nil : itemId
        phase.replaceSession(session)
        broadcastStatus(answering: requester, context: &context)
    }
}
