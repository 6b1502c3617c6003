import CastWire

/// What inspection shows of an app's own state.
public struct AppStateSnapshot: Sendable, Equatable {
    /// The media session of a media receiver app; nil when it has none (or is no media app).
    public var media: MediaSnapshot?
    /// The app's own state, as its panel shows it (``AppPanel``); nil when it has none now.
    public var panel: JSONValue?

    public init(media: MediaSnapshot? = nil, panel: JSONValue? = nil) {
        self.media = media
        self.panel = panel
    }
}
