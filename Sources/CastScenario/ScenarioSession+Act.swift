import CastDevice

extension ScenarioSession {
    /// Why `action` would do nothing if carried out now, as the control API's `act`: it
    /// targets connections and none of them is open, sends to a sender no one connected,
    /// launches an app the device does not offer, advances a clock that is not manual, or
    /// gives the player an input (or stops the app) while only the idle screen runs, or that
    /// the running app would ignore (a pause with no media loaded).
    /// nil: it can be done. Household steps are the household's to refuse.
    package func refusal(of action: TimelineStep.Action, clock: ClockMode) -> ControlRefusal? {
        if let selector = action.targetedConnections, !selects(selector) {
            return .noSuchConnection(selector)
        }
        if case .emit(_, _, .all, let destination?, _) = action,
           !device.snapshot.senders.contains(where: { $0.link.peerId == destination }) {
            return .noSuchSender(destination)
        }
        if case .device(.launchApp(let appId)) = action {
            let offered = scenario.device.apps.map(\.appId)
            if !offered.contains(appId) { return .noSuchApp(appId, offered: offered) }
        }
        if case .advance = action, clock != .manual { return .clockNotManual(clock) }
        if case .device(let input) = action, let name = input.playerInputName {
            guard let running = device.runningApp, !running.app.isIdleScreen else { return .onlyIdleScreen(action: name) }
            if device.wouldIgnore(input) { return .changesNothing(action: name, app: running.definition.displayName) }
        }
        if case .device(.app(let appAction)) = action {
            let running = device.runningApp?.definition
            if running?.behaviour != AppRegistry.builtIn.behaviour(ofAction: appAction.key) {
                return .appNotRunning(action: appAction.key, running: running?.displayName)
            }
        }
        return nil
    }
}

extension OperatorInput {
    /// The timeline action's name of an input for the running app's player, or of stopApp:
    /// inputs that change nothing while only the idle screen runs.
    var playerInputName: String? {
        switch self {
        case .remote(let key): "remote \(key.rawValue)"
        case .buffer: "buffering"
        case .playerError: "playerError"
        case .adBreak: "adBreak"
        case .stopApp: "stopApp"
        default: nil
        }
    }
}

extension TimelineStep.Action {
    /// The connections an action is for, if it is for some: at least one must be open.
    var targetedConnections: TimelineStep.ConnectionSelector? {
        switch self {
        case .emit(_, _, let to, _, _): to
        case .closeConnection(let which, _), .sendFrame(let which, _): which
        case .delayReplies(_, _, let which): which
        default: nil
        }
    }
}
