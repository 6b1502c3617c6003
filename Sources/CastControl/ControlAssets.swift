/// The files the control server serves, as they are in `Assets/` (carried in the binary
/// as SwiftPM resources). The OpenAPI document is served as ``ControlOpenAPI`` completes it.
enum ControlAssets {
    /// The dashboard page (GET /).
    static let dashboardHTML = String(decoding: PackageResources.dashboard_html, as: UTF8.self)
    /// The dashboard's scripts, in the order the page loads them. The base: API access, toasts,
    /// formatting, the apps, the device state.
    static let dashboardJS = String(decoding: PackageResources.dashboard_js, as: UTF8.self)
    /// The TV, the position bar and the panels.
    static let dashboardPanelsJS = String(decoding: PackageResources.dashboard_panels_js, as: UTF8.self)
    /// The message log.
    static let dashboardLogJS = String(decoding: PackageResources.dashboard_log_js, as: UTF8.self)
    /// The event stream, the actions, the replay hooks, the start.
    static let dashboardLiveJS = String(decoding: PackageResources.dashboard_live_js, as: UTF8.self)
    /// The dashboard's recording player.
    static let recordingJS = String(decoding: PackageResources.recording_js, as: UTF8.self)
    /// The dashboard's style sheet.
    static let dashboardCSS = String(decoding: PackageResources.dashboard_css, as: UTF8.self)
    /// The OpenAPI document as written, before the scenario's and the apps' schemas are put in.
    static let openAPIBase = PackageResources.openapi_json
}
