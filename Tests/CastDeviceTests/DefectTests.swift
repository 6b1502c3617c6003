import CastDevice
import CastSimulatorTesting
import CastWire
import Foundation
import Testing

@Suite("Defects found by reading and running castsim", .timeLimit(.minutes(1)))
struct DefectTests {
    @Test("Heartbeats after a jump of three thousand years: one PING, and the next beat is computed, not counted up to")
    func heartbeatAfterAHugeJump() {
        var device = CastTestDevice { $0.heartbeatInterval = 5; $0.idleTimeout = nil }
        let connection = device.open(1)
        // The first thing the device hears of is a PONG at t = 1e11 s: every beat since 5 s is due at once.
        device.now = SimTime(seconds: 1e11)
        device.send(connection, CastNamespace.heartbeat, ["type": "PONG"])
        let sent = device.advance(0)
        #expect(sent.filter { $0.type == "PING" }.map(\.to) == [[connection]], "missed beats are skipped, not sent in a burst")
        #expect(device.nextHeartbeat == 1e11 + 5)
    }

    @Test("The next beat is the first on the grid after now, even at the edge of a beat", arguments: [
        (5.0, 5.0, 5.0, 10.0), (5.0, 5.0, 7.0, 10.0), (5.0, 5.0, 10.0, 15.0), (0.1, 0.1, 0.3, 0.4), (5.0, 5.0, 1e15, 1e15 + 5),
    ] as [(Double, Double, Double, Double)])
    func nextBeat(due: Double, interval: Double, now: Double, expected: Double) {
        let next = HeartbeatSchedule.nextBeat(after: due, interval: interval, now: now)
        #expect(next > now && abs(next - expected) < 1e-9 * max(1, expected))
    }

    @Test("GET_STATUS encodes its MEDIA_STATUS once")
    func getStatusEncodesOnce() throws {
        var media = TestMediaSender()
        media.send(["type": "LOAD", "media": ["contentId": "a.mp4"]])
        let request = CastEnvelope(sourceId: "sender-0", destinationId: media.transportId, namespace: CastNamespace.media,
                                   payload: .string(#"{"type":"GET_STATUS","requestId":77}"#))
        let counter = EncodingCounter()
        let replies = JSONValue.$encodingCounter.withValue(counter) { media.device.sendRaw(media.connection, request) }
        #expect(replies.count == 1 && replies.first?.requestId == 77)
        #expect(counter.total == 1)
    }

    @Test("Sender-supplied text in a log line is escaped: no forged lines, no terminal escapes")
    func logInjection() {
        var device = CastTestDevice()
        let connection = device.open(1)
        device.send(connection, from: "sender-0\nINFO forged: all is well", to: "receiver-0",
                    "urn:x-cast:evil\n2026-01-01 castsim: forged\u{1B}[2J", ["type": "X"])
        device.send(connection, to: "web-\u{1B}]0;owned\u{07}", CastNamespace.connection, ["type": "CONNECT"])
        let lines = device.logs.map(\.message)
        #expect(lines.contains { $0.contains(#"urn:x-cast:evil\n2026-01-01 castsim: forged\u{1B}[2J"#) })
        #expect(lines.contains { $0.contains(#"web-\u{1B}]0;owned\u{7}"#) })
        for line in lines {
            #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "\(line)")
        }
    }

    @Test("A configuration is data: written as JSON and read back, it is the same configuration")
    func configurationRoundTrip() throws {
        var configuration = DeviceConfiguration(identity: try DeviceIdentity(uuid: "0123456789abcdef0123456789abcdef", friendlyName: "Den"))
        configuration.heartbeatInterval = nil
        configuration.playbackRateRange = 0.25...4
        configuration.mediaCatalog.add("http://a.test/*.mp4", MediaLoadBehaviour(
            outcome: .fail(detailedErrorCode: 104, reason: "GONE"), loadDelay: 1.5, duration: 90, streamType: .live,
            contentType: "video/mp4", tracks: [["trackId": 1, "type": "TEXT"]], metadata: ["title": "x"],
            bufferingPhases: [.init(position: 10, duration: 2)]))
        configuration.mediaCatalog.add("hang.mp4", MediaLoadBehaviour(outcome: .neverAnswer))
        configuration.apps.append(CastAppDefinition(appId: "ABCD1234", displayName: "Mine", namespaces: ["urn:x-cast:mine"],
                                                    behaviour: .custom, allowedMediaCommands: [.pause, .seek]))
        let data = try JSONEncoder().encode(configuration)
        let decoded = try JSONDecoder().decode(DeviceConfiguration.self, from: data)
        #expect(decoded == configuration)
        #expect(decoded.mediaCatalog.behaviour(for: "http://a.test/x.mp4").outcome == .fail(detailedErrorCode: 104, reason: "GONE"))
        #expect(decoded.mediaCatalog.behaviour(for: "hang.mp4").outcome == .neverAnswer)
        // An identity that is not one is refused on the way in, not stored.
        let bad = String(decoding: data, as: UTF8.self).replacingOccurrences(of: "0123456789abcdef0123456789abcdef", with: "nope")
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(DeviceConfiguration.self, from: Data(bad.utf8)) }
    }
}
