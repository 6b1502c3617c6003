/// Why the device will not carry out a control request (the control API's `act`) now.
public enum ControlRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// A connection by id that is not open, or (all, first, last) no connection at all.
    case noSuchConnection(TimelineStep.ConnectionSelector)
    case noSuchApp(String, offered: [String])
    /// A sender endpoint (destination id) with no virtual connection on any connection.
    case noSuchSender(String)
    case clockNotManual(ClockMode)
    /// An app's own action (`action`) while another app (`running`, nil: none) runs.
    case appNotRunning(action: String, running: String?)
    /// A player's input (`action`: remote, buffering, playerError, adBreak) or stopApp while
    /// only the idle screen runs: there is no player, and no app to stop.
    case onlyIdleScreen(action: String)
    /// A player's input (or stopApp) the running app (`app`) would ignore as things are:
    /// no media session to pause, stall or fail, no next item.
    case changesNothing(action: String, app: String)
    /// A household step that cannot be done now (a leader offline ...), or that names a
    /// device or group the household does not have (`namesNothing`).
    case household(String, namesNothing: Bool = false)

    public var description: String {
        switch self {
        case .noSuchConnection(.connection(let id)): "no open connection \(id.rawValue)"
        case .noSuchConnection: "no connection is open: no sender would get it"
        case .noSuchSender(let id): "no sender \(id) is connected (CONNECT); name its connection too (\"to\": ID) to send it anyway"
        case .noSuchApp(let appId, let offered):
            "this device offers no app \(appId); it offers \(offered.joined(separator: ", ")) (a scenario's device.apps)"
        case .household(let reason, _): reason
        case .appNotRunning(let action, let running):
            "\(action) is the action of an app that is not running (\(running.map { "\($0) runs" } ?? "no app runs")); launch it first"
        case .onlyIdleScreen(let action):
            "\(action): only the idle screen runs, so nothing would change; launch an app (a sender's LAUNCH, or launchApp) first"
        case .changesNothing(let action, let app):
            "\(action): \(app) would change nothing now (no media is loaded, or the input has nothing to act on); a sender's LOAD starts media"
        case .clockNotManual(let mode):
            "the clock is \(mode.name); only a manual clock (--manual-clock, or a scenario's \"clock\": {\"mode\": \"manual\"}) is advanced by hand"
        }
    }
}
