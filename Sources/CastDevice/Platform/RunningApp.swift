import CastWire

/// An app instance: one launch of an app definition, with its session and transport ids,
/// and the app itself.
package struct RunningApp: Sendable {
    /// What the launch fixed, which stays as it is while the app runs. Held by reference:
    /// reading the device's optional running app copies it (twice a request, for the next
    /// deadline), and a copy then takes one count rather than one for each of the
    /// definition's strings and lists.
    private final class Launch: Sendable {
        let definition: CastAppDefinition
        let sessionId: String
        let transportId: String

        init(definition: CastAppDefinition, sessionId: String, transportId: String) {
            self.definition = definition
            self.sessionId = sessionId
            self.transportId = transportId
        }
    }

    private let launch: Launch
    package var app: any CastApp

    package var definition: CastAppDefinition { launch.definition }
    /// Modern devices use the same UUID for both (docs/protocol/platform.md §6.1).
    package var sessionId: String { launch.sessionId }
    package var transportId: String { launch.transportId }

    package init(definition: CastAppDefinition, sessionId: String, transportId: String, app: any CastApp) {
        launch = Launch(definition: definition, sessionId: sessionId, transportId: transportId)
        self.app = app
    }

    package var instance: AppInstance {
        AppInstance(appId: definition.appId, displayName: definition.displayName, sessionId: sessionId,
                    transportId: transportId, isIdleScreen: app.isIdleScreen, statusText: app.statusText)
    }
}

extension SimulatedDevice {
    /// Starts `definition` in place of whatever runs, with a new session id (or the one
    /// given: a group leader's stand-in carries its group's).
    mutating func launch(_ definition: CastAppDefinition, sessionId: String? = nil) {
        stopRunningApp()
        let id = sessionId ?? ids.uuidString()
        let launch = AppLaunch(definition: definition, sessionId: id, transportId: id, configuration: configuration, now: now)
        guard let app = registry.launch(launch) else {
            log(.warning, nil, "app \(definition.appId) not launched: no app of behaviour \(definition.behaviour) is registered")
            return
        }
        let running = RunningApp(definition: definition, sessionId: id, transportId: id, app: app)
        runningApp = running
        appHeardAt = now
        // An idle screen coming back is routine; an app a sender launched is news.
        log(app.isIdleScreen ? .debug : .info, nil, "app \(definition.appId) (\(definition.displayName)) launched, session \(id)")
        raise(.appLaunched(running.instance))
        if !app.isIdleScreen { groupPlaybackSessionUpdated() }
    }

    /// Stops the running app: it ends what it has running, its senders' virtual connections
    /// get CLOSE. Does not broadcast RECEIVER_STATUS; the caller does, with its requestId.
    mutating func stopRunningApp() {
        guard let running = runningApp else { return }
        withRunningApp { app, context in app.stop(context: &context) }
        closeVirtualConnections(to: running.transportId)
        runningApp = nil
        log(running.app.isIdleScreen ? .debug : .info, nil, "app \(running.definition.appId) (\(running.definition.displayName)) stopped")
        raise(.appStopped(running.instance))
        memberAppStopped(running)
        if !running.app.isIdleScreen { groupPlaybackSessionUpdated() }
    }

    /// When nothing runs, a video device returns to its idle screen.
    mutating func returnToIdleScreen() {
        if runningApp == nil, let idle = configuration.idleScreenAppId.flatMap(configuration.app(withId:)) {
            launch(idle)
        }
    }
}
