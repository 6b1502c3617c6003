/// An app instance: one launch of an app definition, with its session and transport ids.
public struct RunningApp: Sendable {
    public let definition: CastAppDefinition
    /// Modern devices use the same UUID for both (§5.6).
    public let sessionId: String
    public let transportId: String
    /// The media receiver's state, for apps with ``CastAppDefinition/Behaviour/mediaReceiver``.
    public internal(set) var media: MediaPlayer?
}

extension SimulatedDevice {
    mutating func makeRunningApp(_ definition: CastAppDefinition) -> RunningApp {
        let id = ids.uuidString()
        let media = definition.behaviour == .mediaReceiver ? MediaPlayer() : nil
        return RunningApp(definition: definition, sessionId: id, transportId: id, media: media)
    }

    /// Stops the running app: ends its media session, CLOSEs its senders' virtual
    /// connections. Does not broadcast RECEIVER_STATUS; the caller does, with its requestId.
    mutating func stopRunningApp() {
        guard let app = runningApp else { return }
        endMediaSessionForAppStop()
        closeVirtualConnections(to: app.transportId)
        runningApp = nil
        log(.info, nil, "app \(app.definition.appId) (\(app.definition.displayName)) stopped")
    }

    /// Starts `definition` in place of whatever runs.
    mutating func launch(_ definition: CastAppDefinition) {
        stopRunningApp()
        let app = makeRunningApp(definition)
        runningApp = app
        log(.info, nil, "app \(definition.appId) (\(definition.displayName)) launched, session \(app.sessionId)")
    }

    /// After an app stops, a video device returns to its idle screen.
    mutating func returnToIdleScreen() {
        if runningApp == nil, let idle = configuration.idleScreenAppId.flatMap(configuration.app(withId:)) {
            runningApp = makeRunningApp(idle)
        }
    }
}
