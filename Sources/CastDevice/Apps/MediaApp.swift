/// An app whose player is a ``MediaReceiver`` (the Default Media Receiver and the public
/// receivers built like it): its deadlines, operator inputs, stop and snapshot are the
/// player's unless the app says otherwise, so each app writes only what differs.
package protocol MediaApp: CastApp {
    var media: MediaReceiver { get set }
}

extension MediaApp {
    package func nextDeadline(now: SimTime) -> SimTime? { media.nextDeadline(now: now) }

    package mutating func advance(context: inout AppContext) { media.advance(context: &context) }

    package mutating func apply(_ input: AppInput, context: inout AppContext) { media.apply(input, context: &context) }

    package mutating func stop(context: inout AppContext) { media.stop(context: &context) }

    package func snapshot(at now: SimTime) -> AppStateSnapshot { AppStateSnapshot(media: media.snapshot(at: now)) }
}
