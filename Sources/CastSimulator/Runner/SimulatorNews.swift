import CastDevice
import CastScenario
import CastWire

/// Everything that happens on a running device, as its news bus tells it (``NewsBus``):
/// the journal, the household, the advertiser, the control API's event streams and the
/// recorder all hear the same news in the same order.
public enum SimulatorNews: Sendable {
    /// A typed event of the device (or a fault the scenario applied).
    case event(DeviceEvent)
    /// A message, in either direction, numbered as the journal keeps it.
    case message(JournalEntry)
    /// The inbound message numbered `sequence`, told before, turned out to be unhandled when
    /// it reached the device (a scenario rule had held it back).
    case unhandled(sequence: Int, reason: String)
    /// A manual clock moves from `from` to this time (told before what happens on the way).
    case clock(SimTime, from: SimTime)
    /// The device started again (a reset, or a scenario loaded).
    case reset
    /// A sender's connection opened (`peer`: its address).
    case connected(ConnectionID, peer: String?, at: SimTime)
    /// A sender's connection closed, and how.
    case disconnected(ConnectionID, how: ConnectionEnding, at: SimTime)
    /// An operator input through the control API, as its request wrote it.
    case input(JSONValue, at: SimTime)
    /// In relay mode: a sender connection's link to the upstream came up (TLS done), or
    /// ended, with why (the upstream refused, reset or closed; the sender went).
    case upstream(ConnectionID, connected: Bool, reason: String?)
    /// What discovery does for the device changed (it was withdrawn or restored, its
    /// advertiser started): the status as it is now.
    case discovery(DiscoveryStatus)
}

extension SimulatorNews {
    /// About what the news holds in memory while a reader's queue keeps it: a message's
    /// payload, and a round figure for the rest (its strings are shared with the journal,
    /// but a queue that outlives the journal's copy keeps them alive).
    package var queuedBytes: Int {
        if case .message(let entry) = self { return entry.envelope.payloadByteCount + 256 }
        return 256
    }
}
