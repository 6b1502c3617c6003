import CastDevice
import CastSimulatorTesting
import CastWire
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

    @Test("YouTube answers the screen id on its mdx namespace, with the request's id")
    func youTube() throws {
        var harness = CastTestDevice()
        let (connection, transportId) = harness.launch("233637DE")
        let reply = harness.send(connection, to: transportId, "urn:x-cast:com.google.youtube.mdx", ["type": "getMdxSessionStatus", "requestId": 9])
        #expect(reply.first?.json["type"] == "mdxSessionStatus" && reply.first?.requestId == 9)
        #expect(reply.first?.json["data"]?["screenId"]?.stringValue?.isEmpty == false)
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
