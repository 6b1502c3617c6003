import CastDevice
import CastScenario
import CastSimulatorTesting
import CastWire
import Foundation
import Testing

/// The public receivers senders launch besides the Default Media Receiver
/// (docs/apps/receivers.md): DashCast, Home Assistant Cast, YouTube's first step, and the
/// media receivers of pychromecast's quick_play.
@Suite("Public receiver apps: DashCast, Home Assistant Cast, YouTube, quick_play's media apps")
struct ReceiverAppTests {
    private func statusText(_ messages: [SentMessage]) -> String? {
        messages.last { $0.type == "RECEIVER_STATUS" }?.json["status"]?["applications"]?[0]?["statusText"]?.stringValue
    }

    @Test("DashCast: 'Application is starting', then half a second later every sender hears 'Application ready'")
    func dashCastStartsUp() throws {
        var harness = CastTestDevice()
        let connection = harness.open(1)
        harness.connect(connection)
        let launched = harness.send(connection, to: "receiver-0", CastNamespace.receiver, ["type": "LAUNCH", "appId": "84912283", "requestId": 1])
        #expect(statusText(launched) == "Application is starting")
        #expect(launched.last { $0.type == "RECEIVER_STATUS" }?.json["status"]?["applications"]?[0]?["namespaces"]
            == [["name": "urn:x-cast:com.madmod.dashcast"]])
        #expect(harness.advance(0.4).isEmpty)
        let ready = harness.advance(0.2)
        #expect(statusText(ready) == "Application ready")
        #expect(ready.last?.isBroadcast == true && ready.last?.requestId == 0)
        #expect(harness.advance(3).allSatisfy { $0.type != "RECEIVER_STATUS" })
    }

    @Test("DashCast: load_url is echoed unchanged to its sender; with force, nothing comes back")
    func dashCastLoad() throws {
        var harness = CastTestDevice()
        let (connection, transportId) = harness.launch("84912283")
        let load: JSONValue = ["url": "https://example.test/dash", "force": false, "reload": true, "reload_time": 60000,
                               "requestId": 7, "sessionId": .string(transportId)]
        let echo = harness.send(connection, to: transportId, "urn:x-cast:com.madmod.dashcast", load)
        #expect(echo.map(\.json) == [load] && echo.first?.to == [connection])
        let forced = harness.send(connection, to: transportId, "urn:x-cast:com.madmod.dashcast",
                                  ["url": "https://example.test/", "force": true, "reload": false, "reload_time": 0, "requestId": 8])
        #expect(forced.isEmpty)
    }

    private static let hast = "urn:x-cast:com.nabucasa.hast"

    @Test("Home Assistant Cast: show before connect is refused with 21; connect tells every sender; the view is shown")
    func homeAssistant() throws {
        var harness = CastTestDevice()
        let (first, transportId) = harness.launch("A078F6B0", on: 1)
        let second = harness.open(2)
        harness.connect(second)
        harness.connect(second, to: transportId)
        let early = harness.send(first, to: transportId, Self.hast, ["type": "show_lovelace_view", "viewPath": "kitchen", "requestId": 3])
        #expect(early.map(\.json) == [
            ["type": "receiver_status", "connected": false, "showDemo": false],
            ["type": "receiver_error", "error_code": 21, "error_message": "Cannot show Lovelace because we're not connected."],
        ])
        let connect = harness.send(first, to: transportId, Self.hast, [
            "type": "connect", "refreshToken": "token", "clientId": nil, "hassUrl": "https://ha.example", "hassUUID": "abc", "requestId": 4,
        ])
        let connected: JSONValue = ["type": "receiver_status", "connected": true, "showDemo": false, "hassUrl": "https://ha.example",
                                    "hassUUID": "abc", "lovelacePath": nil]
        #expect(connect.map(\.json) == [connected] && Set(connect.flatMap(\.to)) == [first, second])
        let shown = harness.send(first, to: transportId, Self.hast, [
            "type": "show_lovelace_view", "hassUrl": "https://ha.example", "hassUUID": "abc", "viewPath": "kitchen", "urlPath": nil,
            "requestId": 5,
        ])
        #expect(shown.first?.json["lovelacePath"] == "kitchen" && shown.first?.json["urlPath"] == .null)
        #expect(Set(shown.flatMap(\.to)) == [first, second])
        // Another instance asking: 20, to that sender alone.
        let other = harness.send(second, to: transportId, Self.hast, ["type": "get_status", "hassUrl": "https://other.example", "hassUUID": "x"])
        #expect(other.first?.json["error_code"] == 20 && other.allSatisfy { $0.to == [second] })
        // A plain-http Home Assistant cannot be cast.
        let http = harness.send(first, to: transportId, Self.hast, ["type": "connect", "hassUrl": "http://ha.local", "hassUUID": "abc"])
        #expect(http.first?.json["error_code"] == 5)
    }

    @Test("A scenario's homeAssistantCast section: connect fails (1, 2) or the dashboard's config does (22), told to every sender")
    func homeAssistantErrors() throws {
        for (section, type, code) in [(["connect": "connection-failed"] as JSONValue, "connect", 1),
                                      (["connect": "authentication-failed"], "connect", 2),
                                      (["dashboard": "fetch-config-failed"], "show_lovelace_view", 22)] {
            var harness = CastTestDevice { $0.appSections["homeAssistantCast"] = section }
            let (connection, transportId) = harness.launch("A078F6B0")
            let connect = harness.send(connection, to: transportId, Self.hast, ["type": "connect", "hassUrl": "https://ha.example", "hassUUID": "abc"])
            var replies = connect
            if type == "show_lovelace_view" {
                replies = harness.send(connection, to: transportId, Self.hast, ["type": "show_lovelace_view", "viewPath": "x"])
            }
            #expect(replies.map(\.json["error_code"]) == [.number(Double(code))], "\(section)")
            #expect(replies.allSatisfy { $0.isBroadcast }, "\(section)")
        }
        let error = try #require(throws: ScenarioValidationError.self) {
            try Scenario.parse(Data(#"{"name": "x", "homeAssistantCast": {"connect": "maybe", "views": 1}}"#.utf8))
        }
        #expect(error.issues.map(\.description).contains { $0.hasPrefix(#"homeAssistantCast.connect: expected one of "accept""#) }, "\(error)")
        #expect(error.issues.map(\.description).contains { $0.hasPrefix("homeAssistantCast.views: unknown key") }, "\(error)")
    }

    @Test("YouTube answers the screen id on its mdx namespace, with the request's id")
    func youTube() throws {
        var harness = CastTestDevice()
        let (connection, transportId) = harness.launch("233637DE")
        let reply = harness.send(connection, to: transportId, "urn:x-cast:com.google.youtube.mdx", ["type": "getMdxSessionStatus", "requestId": 9])
        #expect(reply.first?.json["type"] == "mdxSessionStatus" && reply.first?.requestId == 9)
        #expect(reply.first?.json["data"]?["screenId"]?.stringValue?.isEmpty == false)
    }

    @Test("Yle Areena plays the entry id of a LOAD without contentId; another receiver refuses such a LOAD")
    func yleAreena() throws {
        let load: JSONValue = ["type": "LOAD", "requestId": 4, "autoplay": true, "currentTime": 0,
                               "media": ["streamType": "BUFFERED", "customData": ["mediaInfo": ["entryId": "0_whwjqpry"], "textLanguage": "off"]]]
        var yle = CastTestDevice()
        let (connection, transportId) = yle.launch("A9BCCB7C")
        let played = yle.send(connection, to: transportId, CastNamespace.media, load)
        let status = try #require(played.last { $0.type == "MEDIA_STATUS" && $0.requestId == 4 }?.mediaStatus)
        #expect(status["playerState"] == "PLAYING" && status["media"]?["contentId"] == "0_whwjqpry")
        var dmr = CastTestDevice()
        let (other, otherTransport) = dmr.launch()
        let refused = dmr.send(other, to: otherTransport, CastNamespace.media, load)
        #expect(refused.first?.json["type"] == "INVALID_REQUEST" && refused.first?.json["reason"] == "INVALID_PARAMS")
    }

    @Test("quick_play's media apps launch with their own id and name and play a LOAD as the DMR does")
    func publicMediaReceivers() throws {
        var harness = CastTestDevice()
        let (connection, transportId) = harness.launch("3927FA74")
        #expect(harness.snapshot.runningApp?.appId == "3927FA74" && harness.snapshot.runningApp?.displayName == "BubbleUPnP")
        let loaded = harness.send(connection, to: transportId, CastNamespace.media, [
            "type": "LOAD", "requestId": 3, "sessionId": .string(transportId),
            "media": ["contentId": "http://example.test/a.mp3", "contentType": "audio/mp3", "streamType": "BUFFERED",
                      "customData": ["queue_item_id": "q1"]],
        ])
        let status = loaded.last { $0.type == "MEDIA_STATUS" }?.mediaStatus
        #expect(status?["playerState"] == "PLAYING")
        #expect(status?["media"]?["customData"] == ["queue_item_id": "q1"])
    }
}

/// Music Assistant's receiver and the remote's next and previous keys.
@Suite("Music Assistant's receiver; the remote's next and previous")
struct MusicAssistantTests {
    static let namespace = "urn:x-cast:io.music-assistant.cast"
    static let queue: JSONValue = [
        "type": "QUEUE_LOAD", "requestId": 2, "startIndex": 0,
        "items": [["media": ["contentId": "a", "streamType": "BUFFERED", "contentType": "audio/flac", "customData": ["queue_item_id": "q1"]]],
                  ["media": ["contentId": "b", "streamType": "BUFFERED", "contentType": "audio/flac"]]],
    ]

    private func loaded(_ appId: String) -> (CastTestDevice, ConnectionID, String) {
        var harness = CastTestDevice()
        let (connection, transportId) = harness.launch(appId)
        let loaded = harness.send(connection, to: transportId, CastNamespace.media, Self.queue)
        // Music Assistant reads its queue_item_id back from the status.
        #expect(loaded.last { $0.type == "MEDIA_STATUS" }?.mediaStatus?["media"]?["customData"] == ["queue_item_id": "q1"])
        return (harness, connection, transportId)
    }

    @Test("A queue jump tells every sender player_command and leaves the queue; the status answers the request")
    func jump() throws {
        var (harness, connection, transportId) = loaded("C35B0678")
        let mediaSessionId = try #require(harness.snapshot.media?.mediaSessionId)
        let replies = harness.send(connection, to: transportId, CastNamespace.media,
                                   ["type": "QUEUE_UPDATE", "requestId": 3, "jump": 1, "mediaSessionId": .number(Double(mediaSessionId))])
        #expect(replies.first?.json == ["type": "player_command", "command": "next"] && replies.first?.isBroadcast == true)
        let status = try #require(replies.last { $0.type == "MEDIA_STATUS" && $0.requestId == 3 }?.mediaStatus)
        #expect(status["currentItemId"] == 1 && harness.snapshot.media?.currentItemId == 1)
        #expect(status["supportedMediaCommands"]?.intValue.map { $0 & ~12_495 } == 0)
        // The remote's previous key: the same, by the receiver.
        let previous = harness.apply(.remote(.previous))
        #expect(previous.map(\.json) == [["type": "player_command", "command": "previous"]])
    }

    @Test("With no media loaded the remote's next still tells the senders: the device would not ignore it, where the Default Media Receiver would")
    func nextWithoutMedia() {
        var music = CastTestDevice()
        music.launch("C35B0678")
        let (musicNext, musicPause) = (music.device.wouldIgnore(.remote(.next)), music.device.wouldIgnore(.remote(.pause)))
        #expect(!musicNext && musicPause)
        #expect(music.apply(.remote(.next)).map(\.json) == [["type": "player_command", "command": "next"]])
        var plain = CastTestDevice()
        plain.launch(CastAppDefinition.defaultMediaReceiver.appId)
        let plainNext = plain.device.wouldIgnore(.remote(.next))
        #expect(plainNext && plain.apply(.remote(.next)).isEmpty)
    }

    @Test("PLAY's customData.metadata becomes the current media's metadata, for every sender; another session's PLAY changes nothing")
    func flowMetadata() throws {
        var (harness, connection, transportId) = loaded("C35B0678")
        let mediaSessionId = try #require(harness.snapshot.media?.mediaSessionId)
        let metadata: JSONValue = ["metadataType": 3, "title": "Next song", "artist": "Band", "images": [["url": "http://ma.local/a.jpg"]]]
        let replies = harness.send(connection, to: transportId, CastNamespace.media,
                                   ["type": "PLAY", "requestId": 5, "mediaSessionId": .number(Double(mediaSessionId)),
                                    "customData": ["metadata": metadata]])
        let unsolicited = try #require(replies.first { $0.type == "MEDIA_STATUS" && $0.requestId == 0 })
        #expect(unsolicited.isBroadcast && unsolicited.mediaStatus?["media"]?["metadata"] == metadata)
        #expect(replies.last { $0.type == "MEDIA_STATUS" }?.requestId == 5)
        #expect(harness.snapshot.media?.currentItem?.media.passthrough["metadata"] == metadata)
        // The Default Media Receiver leaves a PLAY's customData alone.
        var (dmr, other, otherTransport) = loaded("CC1AD845")
        let dmrSession = try #require(dmr.snapshot.media?.mediaSessionId)
        _ = dmr.send(other, to: otherTransport, CastNamespace.media,
                     ["type": "PLAY", "requestId": 5, "mediaSessionId": .number(Double(dmrSession)), "customData": ["metadata": metadata]])
        #expect(dmr.snapshot.media?.currentItem?.media.passthrough["metadata"] != metadata)
        // A PLAY for another media session is refused and changes nothing.
        let wrong = harness.send(connection, to: transportId, CastNamespace.media,
                                 ["type": "PLAY", "requestId": 6, "mediaSessionId": .number(Double(mediaSessionId + 7)),
                                  "customData": ["metadata": ["metadataType": 3, "title": "Other"]]])
        #expect(wrong.map(\.type) == ["INVALID_REQUEST"] && harness.snapshot.media?.currentItem?.media.passthrough["metadata"] == metadata)
    }

    @Test("show_dashboard (either shape) and hide_dashboard answer receiver_status connected to the sender")
    func dashboard() {
        var harness = CastTestDevice()
        let (connection, transportId) = harness.launch("C35B0678")
        for message: JSONValue in [["type": "show_dashboard", "url": "http://ma.local:8095/"],
                                   ["type": "show_dashboard", "remoteId": "r", "dashboardCode": "c", "path": "/party"],
                                   ["type": "hide_dashboard"]] {
            let reply = harness.send(connection, to: transportId, Self.namespace, message)
            #expect(reply.map(\.json) == [["type": "receiver_status", "connected": true]] && reply.first?.to == [connection])
        }
    }

    @Test("On the Default Media Receiver the remote's next and previous move through the queue, and stop at its ends")
    func remoteKeys() throws {
        var (harness, _, _) = loaded("CC1AD845")
        _ = harness.apply(.remote(.next))
        #expect(harness.snapshot.media?.currentItemId == 2)
        _ = harness.apply(.remote(.next))
        #expect(harness.snapshot.media?.currentItemId == 2)
        _ = harness.apply(.remote(.previous))
        #expect(harness.snapshot.media?.currentItemId == 1)
    }
}
