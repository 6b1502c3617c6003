import CastDevice
import CastWire
import CastSimulatorTesting
import Foundation
import Testing

@Suite("Operator inputs, isolation, media catalog facts")
struct OperatorInputTests {
    @Test("The remote's volume, standby, app stop and launch are broadcast with requestId 0")
    func remoteReceiverChanges() throws {
        var media = TestMediaSender()
        var sent = media.device.apply(.setDeviceVolume(level: 0.3, muted: nil))
        #expect(sent.count == 2 && sent[0].requestId == 0 && sent[0].json["status"]?["volume"]?["level"] == 0.3)
        // Then, on the multizone namespace, the device about itself.
        #expect(sent[1].type == "DEVICE_UPDATED" && sent[1].json["device"]?["volume"]?["level"] == 0.3)
        sent = media.device.apply(.setStandby(true))
        #expect(sent[0].json["status"]?["isStandBy"] == true && sent[0].json["status"]?["isActiveInput"] == false)
        sent = media.device.apply(.stopApp)
        #expect(sent.contains { $0.json == ["type": "CLOSE"] && $0.envelope.sourceId == media.transportId })
        #expect(sent.last?.json["status"]?["applications"]?.arrayValue?.first?["appId"] == "E8C28D3C")
        sent = media.device.apply(.launchApp(appId: "CC1AD845"))
        #expect(sent.last?.json["status"]?["applications"]?.arrayValue?.first?["appId"] == "CC1AD845")
    }

    @Test("Buffering for a while: BUFFERING (clock held), then PLAYING again; a player error ends the session")
    func bufferingAndError() throws {
        var media = TestMediaSender()
        media.send(["type": "LOAD", "media": ["contentId": "a.mp4", "duration": 100]])
        media.advance(10)
        var sent = media.device.apply(.buffer(seconds: 4))
        #expect(sent.statuses.first?["playerState"] == "BUFFERING" && sent.statuses.first?["currentTime"] == 10)
        #expect(media.advance(3.9).isEmpty)
        sent = media.advance(0.1)
        #expect(sent.statuses.first?["playerState"] == "PLAYING" && sent.statuses.first?["currentTime"] == 10)
        // The item now ends 4 s later than it would have.
        #expect(media.device.device.nextDeadline == SimTime(seconds: 104))
        sent = media.device.apply(.playerError(detailedErrorCode: 301))
        #expect(sent.statuses.first?["idleReason"] == "ERROR" && media.session == nil)
    }

    @Test("A player error while the load is pending fails that load: LOAD_FAILED with its code, then IDLE/ERROR")
    func errorWhileLoading() throws {
        var media = TestMediaSender { $0.mediaCatalog.add("slow.mp4", MediaLoadBehaviour(loadDelay: 5)) }
        media.send(["type": "LOAD", "requestId": 7, "media": ["contentId": "slow.mp4"]])
        var sent = media.device.apply(.playerError(detailedErrorCode: 301))
        #expect(sent.map(\.type) == ["LOAD_FAILED", "MEDIA_STATUS"])
        #expect(sent.first?.json == ["type": "LOAD_FAILED", "requestId": 7, "itemId": 1, "detailedErrorCode": 301])
        #expect(sent.statuses.first?["idleReason"] == "ERROR" && media.session == nil)
        // Without a code, CAF's generic load failure.
        media.send(["type": "LOAD", "requestId": 8, "media": ["contentId": "slow.mp4"]])
        sent = media.device.apply(.playerError(detailedErrorCode: nil))
        #expect(sent.first?.json["detailedErrorCode"] == 905)
        #expect(media.advance(10).isEmpty)
    }

    @Test("Catalog facts: the real duration wins, buffering phases stall at their position, metadata fills in")
    func catalogFacts() throws {
        var media = TestMediaSender { configuration in
            configuration.mediaCatalog.add("http://cdn.test/*", MediaLoadBehaviour(
                duration: 50, contentType: "video/mp4", metadata: ["metadataType": 1, "title": "From catalog"],
                bufferingPhases: [.init(position: 20, duration: 5)]))
        }
        let status = try #require(media.send(["type": "LOAD", "media": ["contentId": "http://cdn.test/x", "duration": 999]]).last?.mediaStatus)
        #expect(status["media"]?["duration"] == 50 && status["media"]?["contentType"] == "video/mp4")
        #expect(status["media"]?["metadata"]?["title"] == "From catalog")
        let stall = media.advance(20).statuses
        #expect(stall.first?["playerState"] == "BUFFERING" && stall.first?["currentTime"] == 20)
        #expect(media.advance(5).statuses.first?["playerState"] == "PLAYING")
        let end = media.advance(30).statuses
        #expect(end.first?["idleReason"] == "FINISHED" && end.first?["currentTime"] == 50)
    }

    @Test("isolateRequestIds: the requester gets its id, the other senders a copy with requestId 0")
    func isolation() throws {
        var media = TestMediaSender { $0.isolateRequestIds = true }
        let watcher = media.device.open(2)
        media.device.connect(watcher, from: "sender-0", to: media.transportId)
        let replies = media.send(["type": "LOAD", "requestId": 5, "media": ["contentId": "a.mp4"]])
        let tagged = replies.filter { $0.requestId == 5 }
        #expect(tagged.count == 1 && tagged[0].to == [media.connection] && tagged[0].envelope.destinationId == "sender-0")
        let copy = try #require(replies.last)
        #expect(copy.requestId == 0 && copy.to == [watcher] && copy.isBroadcast)
        #expect(copy.mediaStatus?["playerState"] == "PLAYING")
    }

    @Test("sendMessage: any payload on any namespace, broadcast or to one connection")
    func sendMessage() {
        var media = TestMediaSender()
        let custom: JSONValue = ["type": "CUSTOM", "value": 1]
        var sent = media.device.apply(
            .sendMessage(namespace: "urn:x-cast:test", source: nil, connection: nil, payload: custom))
        #expect(sent.count == 1 && sent[0].isBroadcast && sent[0].envelope.sourceId == media.transportId && sent[0].json == custom)
        sent = media.device.apply(
            .sendMessage(namespace: "urn:x-cast:test", source: "receiver-0", connection: media.connection, payload: custom))
        #expect(sent.count == 1 && sent[0].envelope.destinationId == "sender-0" && sent[0].to == [media.connection])

        // To one sender endpoint: only where it is connected, addressed to it.
        let other = media.device.open(9)
        media.device.connect(other, from: "sender-other", to: media.transportId)
        media.device.connect(other, from: "sender-third", to: media.transportId)
        sent = media.device.apply(
            .sendMessage(namespace: "urn:x-cast:test", source: nil, connection: nil, destination: "sender-other", payload: custom))
        #expect(sent.count == 1 && sent[0].to == [other] && sent[0].envelope.destinationId == "sender-other" && !sent[0].isBroadcast)
        // Named with a connection, it goes there even without a CONNECT (any message).
        sent = media.device.apply(
            .sendMessage(namespace: "urn:x-cast:test", source: nil, connection: media.connection, destination: "sender-other", payload: custom))
        #expect(sent.count == 1 && sent[0].to == [media.connection] && sent[0].envelope.destinationId == "sender-other")
        sent = media.device.apply(
            .sendMessage(namespace: "urn:x-cast:test", source: nil, connection: nil, destination: "sender-nobody", payload: custom))
        #expect(sent.isEmpty)
    }
}
