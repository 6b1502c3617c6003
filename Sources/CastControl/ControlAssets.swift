/// The files the control server serves, as they are in `Assets/` (carried in the binary
/// by EmbedAssetsPlugin). The OpenAPI document is served as ``ControlOpenAPI`` completes it.
enum ControlAssets {
    /// The dashboard page (GET /).
    static let dashboardHTML = EmbeddedAssets.dashboard_html
    /// The dashboard's scripts, in the order the page loads them. The base: API access, toasts,
    /// formatting, the apps, the device state.
    static let dashboardJS = EmbeddedAssets.dashboard_js
    /// The TV, the position bar and the panels.
    static let dashboardPanelsJS = EmbeddedAssets.dashboard_panels_js
    /// The message log.
    static let dashboardLogJS = EmbeddedAssets.dashboard_log_js
    /// The event stream, the actions, the replay hooks, the start.
    static let dashboardLiveJS = EmbeddedAssets.dashboard_live_js
    /// The dashboard's recording player.
    static let recordingJS = EmbeddedAssets.recording_js
    /// The dashboard's style sheet.
    static let dashboardCSS = EmbeddedAssets.dashboard_css
    /// The OpenAPI document as written, before the scenario's and the apps' schemas are put in.
    static let openAPIBase = EmbeddedAssets.openapi_json
}
