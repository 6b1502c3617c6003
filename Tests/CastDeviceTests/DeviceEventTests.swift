import CastDevice
import CastSimulatorTesting
import CastWire
import Testing

@Suite("Typed device events: each raised once, at its own simulated time")
struct DeviceEventTests {
    /// The events of one kind, as (seconds, kind).
    private func events(_ device: CastTestDevice, _ filter: (DeviceEvent.Kind) -> Bool) -> [(Double, DeviceEvent.Kind)] {
        device.events.filter { filter($0.kind) }.map { ($0.time.seconds, $0.kind) }
    }

    @Test("An hour of a queue in one advance: every item change, state change and the end, at its own time")
    func hourOfQueue() throws {
        var device = CastTestDevice { configuration in
            configuration.heartbeatInterval = nil
            configuration.idleTimeout = nil
            configuration.mediaCatalog.add("song-*", MediaLoadBehaviour(loadDelay: 2))
        }
        let (connection, transportId) = device.launch()
        let items = JSONValue.array((1...6).map { ["media": ["contentId": .string("song-\($0)"), "duration": 600]] })
        device.send(connection, to: transportId, CastNamespace.media, ["type": "QUEUE_LOAD", "requestId": 2, "items": items])
        device.advance(3600)
        device.advance(100)

        let started = events(device) { if case .mediaSessionStarted = $0 { true } else { false } }
        #expect(started.map(\.0) == [2])
        #expect(started.first?.1 == .mediaSessionStarted(mediaSessionId: 1, itemId: 1))
        let changes = events(device) { if case .itemChanged = $0 { true } else { false } }
        #expect(changes.map(\.0) == [604, 1206, 1808, 2410, 3012])
        #expect(changes.map(\.1) == (2...6).map { .itemChanged(mediaSessionId: 1, itemId: $0) })
        let ended = events(device) { if case .mediaSessionEnded = $0 { true } else { false } }
        #expect(ended.map(\.0) == [3612])
        #expect(ended.first?.1 == .mediaSessionEnded(mediaSessionId: 1, reason: .finished))
        // The player: loading, then playing and loading in turn, and idle at the end.
        let states = device.events.compactMap { event -> String? in
            guard case .playerStateChanged(_, let from, let to) = event.kind else { return nil }
            return "\(NumberText.format(event.time.seconds)) \(from.rawValue)→\(to.rawValue)"
        }
        #expect(states.first == "0 idle→loading" && states.dropFirst().first == "2 loading→playing")
        #expect(states.last == "3612 playing→idle")
        #expect(states.count == 2 + 2 * 5 + 1)
    }

    @Test("Apps and senders: launched, stopped, connected with the user agent, gone when their app stops")
    func appsAndSenders() {
        var device = CastTestDevice { $0.heartbeatInterval = nil }
        #expect(device.events.map(\.kind).first.map { if case .appLaunched(let app) = $0 { app.isIdleScreen } else { false } } == true)
        device.advance(5)
        let connection = device.open(1)
        device.send(connection, CastNamespace.connection, ["type": "CONNECT", "userAgent": "PyChromecast"])
        device.send(connection, CastNamespace.connection, ["type": "CONNECT", "userAgent": "PyChromecast"])
        let link = VirtualConnection(connection: connection, localId: "receiver-0", peerId: "sender-0")
        #expect(events(device) { if case .senderConnected = $0 { true } else { false } }.map(\.1)
            == [.senderConnected(link, .strong, userAgent: "PyChromecast")], "a repeated CONNECT is not a new sender")
        let (_, transportId) = device.launch()
        let kinds = device.events.map(\.kind)
        #expect(kinds.contains { if case .appStopped(let app) = $0 { app.appId == "E8C28D3C" } else { false } })
        #expect(kinds.contains { if case .appLaunched(let app) = $0 { app.appId == "CC1AD845" && app.transportId == transportId } else { false } })
        device.advance(5)
        device.send(connection, CastNamespace.receiver, ["type": "STOP", "requestId": 9])
        let left = events(device) { if case .senderDisconnected = $0 { true } else { false } }
        #expect(left.map(\.0) == [10])
        #expect(left.first?.1 == .senderDisconnected(VirtualConnection(connection: connection, localId: transportId, peerId: "sender-0")))
    }

    @Test("A silent connection: closed by the idle timeout at that very time, once, however the runtime reports it later")
    func idleTimeout() {
        var device = CastTestDevice { $0.heartbeatInterval = nil; $0.idleTimeout = 30 }
        let connection = device.open(1)
        device.connect(connection)
        device.advance(100)
        let closed = events(device) { if case .connectionClosed = $0 { true } else { false } }
        #expect(closed.map(\.0) == [30])
        #expect(closed.first?.1 == .connectionClosed(connection, reason: .idleTimeout))
        #expect(events(device) { if case .senderDisconnected = $0 { true } else { false } }.map(\.0) == [30])
        device.close(connection)
        #expect(events(device) { if case .connectionClosed = $0 { true } else { false } }.count == 1)
        #expect(events(device) { if case .connectionOpened = $0 { true } else { false } }.map(\.1) == [.connectionOpened(connection)])
    }

    @Test("A change to the same value raises nothing: volumes, rate, tracks, style, standby")
    func onlyChanges() {
        var media = TestMediaSender()
        let tracks: JSONValue = [["trackId": 1, "type": "TEXT", "language": "en"], ["trackId": 2, "type": "TEXT", "language": "fr"]]
        media.send(["type": "LOAD", "media": ["contentId": "a.mp4", "duration": 100, "tracks": tracks]])
        let before = media.device.events.count
        for _ in 0..<2 {
            media.device.send(media.connection, CastNamespace.receiver, ["type": "SET_VOLUME", "volume": ["level": 0.5], "requestId": 3])
            media.send(["type": "SET_VOLUME", "volume": ["muted": true]])
            media.send(["type": "SET_PLAYBACK_RATE", "playbackRate": 1.5])
            media.send(["type": "EDIT_TRACKS_INFO", "activeTrackIds": [2]])
            media.send(["type": "EDIT_TRACKS_INFO", "textTrackStyle": ["fontScale": 1.2]])
            media.device.apply(.setStandby(true))
        }
        let kinds = media.device.events[before...].map(\.kind)
        #expect(kinds == [
            .volumeChanged(Volume(level: 0.5, muted: false)),
            .streamVolumeChanged(mediaSessionId: 1, Volume(level: 1, muted: true)),
            .playbackRateChanged(mediaSessionId: 1, rate: 1.5),
            .activeTracksChanged(mediaSessionId: 1, trackIds: [2]),
            .textTrackStyleChanged(mediaSessionId: 1, style: ["fontScale": 1.2]),
            .standbyChanged(true),
        ])
    }

    @Test("The player's phases: paused, stalled, playing again, stopped")
    func phases() {
        var media = TestMediaSender()
        media.send(["type": "LOAD", "media": ["contentId": "a.mp4", "duration": 100]])
        media.advance(10)
        media.send(["type": "PAUSE"])
        media.device.apply(.buffer(seconds: 3))
        media.advance(3)
        media.send(["type": "STOP"])
        let phases = media.device.events.compactMap { event -> String? in
            guard case .playerStateChanged(_, _, let to) = event.kind else { return nil }
            return "\(NumberText.format(event.time.seconds)) \(to.rawValue)"
        }
        #expect(phases == ["0 loading", "0 playing", "10 paused", "10 buffering", "13 playing", "13 idle"])
        #expect(media.device.events.last?.kind == .mediaSessionEnded(mediaSessionId: 1, reason: .cancelled))
    }
}
