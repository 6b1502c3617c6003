import CastWire

/// An app whose player is a ``MediaReceiver`` (the Default Media Receiver and the public
/// receivers built like it): its deadlines, operator inputs, stop and snapshot are the
/// player's unless the app says otherwise, so each app writes only what differs.
package protocol MediaApp: CastApp {
    var media: MediaReceiver { get set }
}

extension MediaApp {
    /// A receiver with nothing but a player: the media namespace goes to it; the app's other
    /// namespaces (a debug overlay, cac) are taken and not answered.
    package mutating func receiveMediaOnly(_ message: AppMessage, app definition: CastAppDefinition, context: inout AppContext) {
        guard message.envelope.namespace == CastNamespace.media else {
            context.acceptWithoutAnswer(message, app: definition)
            return
        }
        media.receive(message, context: &context)
    }

    package func nextDeadline(now: SimTime) -> SimTime? { media.nextDeadline(now: now) }

    package mutating func advance(context: inout AppContext) { media.advance(context: &context) }

    package mutating func apply(_ input: AppInput, context: inout AppContext) { media.apply(input, context: &context) }

    package mutating func stop(context: inout AppContext) { media.stop(context: &context) }

    package func snapshot(at now: SimTime) -> AppStateSnapshot { AppStateSnapshot(media: media.snapshot(at: now)) }
}
