import CastDevice
import CastScenario
import CastWire
import Logging
import NIOCore
import NIOSSL

/// In relay mode, where every sender's messages go (device auth aside), the TLS context of
/// the links there, and each sender connection's own link.
struct RelayLinks {
    let configuration: RelayConfiguration
    /// nil when it could not be made: each link then fails.
    let tls: Result<NIOSSLContext, any Error>
    var links: [ConnectionID: UpstreamLink] = [:]

    init(_ configuration: RelayConfiguration) {
        self.configuration = configuration
        tls = Result { try UpstreamLink.makeTLSContext() }
    }

    var connections: [ConnectionID] { links.keys.sorted() }

    /// The link whose own end `peer` is: a sender connection that is the relay connecting
    /// to itself.
    func link(from peer: SocketAddress?) -> UpstreamLink? {
        guard let peer else { return nil }
        return links.values.first { $0.localAddress == peer }
    }
}

// The relay: each sender connection gets its own link to the upstream device; messages go
// both ways through the journal, as the device's own would.

extension DeviceRunner {
    /// Whether a connection just accepted is one of the relay's own links coming back (its
    /// upstream is itself, however addressed): ends that link, and so its sender's
    /// connection, rather than opening a link for this one, and the next, without end.
    /// The link's TCP connect completed on this loop before the TLS handshake that
    /// accepted `channel` could.
    func refusesAsLoop(_ channel: any Channel) -> Bool {
        guard let link = relay?.link(from: channel.remoteAddress) else { return false }
        link.endAsLoop()
        return true
    }

    /// Connects the sender's own link to the upstream; what the sender sends meanwhile waits.
    func openUpstream(for id: ConnectionID) {
        guard let configuration = relay?.configuration, writer.sinks[id] != nil else { return }
        let link = UpstreamLink(connection: id, configuration: configuration, callbacks: .init(
            connected: { [weak self] link in self?.serially { self?.upstreamConnected(link) } },
            received: { [weak self] link, envelopes in
                guard let self else { return }
                batch { serially { [self] in relayDownstream(envelopes, over: link) } }
            },
            ended: { [weak self] link, reason, level in self?.serially { self?.upstreamEnded(link, reason: reason, level: level) } }))
        relay?.links[id] = link
        switch relay?.tls {
        case .success(let context)?:
            link.start(on: loop, tls: context)
        case .failure(let error)?:
            upstreamEnded(link, reason: "no TLS client for the upstream: \(error)", level: .error)
        case nil:
            break
        }
    }

    private func upstreamConnected(_ link: UpstreamLink) {
        let id = link.connection
        guard relay?.links[id] === link else { return }
        logger.info("upstream \(link.configuration.hostAndPort) connected", metadata: ["connection": "\(id)"])
        news.publish(.upstream(id, connected: true, reason: nil))
        for frame in link.takePending() { forward(frame, over: link) }
    }

    /// A sender's message on its way upstream: journalled, then written (or held until
    /// the link is up).
    func forwardUpstream(_ envelope: CastEnvelope, from id: ConnectionID) {
        // No link: it failed and the sender's connection is closing.
        guard let link = relay?.links[id] else { return }
        let frame: ByteBuffer
        do {
            frame = try CastFraming.frame(envelope)
        } catch {
            logger.error("not relayed: \(error)", metadata: ["connection": "\(id)", "namespace": "\(envelope.namespace)"])
            return
        }
        carryOut(session.relayed(.inbound, envelope, connections: [id], now: now))
        forward(frame, over: link)
    }

    private func forward(_ frame: ByteBuffer, over link: UpstreamLink) {
        let limit = writer.queueLimit
        switch link.state {
        case .connecting:
            if link.pendingBytes + frame.readableBytes > limit {
                upstreamEnded(link, reason: "upstream \(link.configuration.hostAndPort) is not up yet and \(link.pendingBytes) bytes wait for it, over the \(limit)-byte limit",
                              level: .warning)
                link.close()
                return
            }
            link.hold(frame)
        case .open(let sink):
            if !sink.admits(frame.readableBytes, limit: limit) {
                upstreamEnded(link, reason: "upstream \(link.configuration.hostAndPort) is not reading: \(sink.queuedBytes) bytes queued, over the \(limit)-byte limit",
                              level: .warning)
                link.close()
                return
            }
            writer.enqueue(frame, on: sink)
        case .closed:
            break
        }
    }

    /// The upstream's messages to its sender: journalled as the device's, and written to
    /// that one connection as the device's replies are.
    private func relayDownstream(_ envelopes: [CastEnvelope], over link: UpstreamLink) {
        let id = link.connection
        guard relay?.links[id] === link, writer.sinks[id] != nil else { return }
        for envelope in envelopes {
            carryOut(session.relayed(.outbound, envelope, connections: [id], now: now))
        }
    }

    /// The upstream closed or failed (or the link could not go on): the sender's
    /// connection closes too, after what the upstream sent before.
    private func upstreamEnded(_ link: UpstreamLink, reason: String, level: Logger.Level) {
        let id = link.connection
        guard relay?.links[id] === link else { return }
        relay?.links[id] = nil
        logger.log(level: level, "closing connection: \(LogText.escape(reason, limit: 300))", metadata: ["connection": "\(id)"])
        news.publish(.upstream(id, connected: false, reason: reason))
        // The device's side ends it, as a real device that goes away.
        writer.drop(id, as: .device)
    }

    /// Closes a sender's upstream link from this side (the sender went, the device resets).
    func closeUpstream(of id: ConnectionID, because reason: String) {
        guard let link = relay?.links.removeValue(forKey: id) else { return }
        link.close()
        logger.debug("upstream link closed: \(reason)", metadata: ["connection": "\(id)"])
        news.publish(.upstream(id, connected: false, reason: reason))
    }

    /// Closes every upstream link (the device stops).
    func closeEveryUpstream() {
        guard let links = relay?.links.values else { return }
        for link in links { link.close() }
        relay?.links.removeAll()
    }
}
