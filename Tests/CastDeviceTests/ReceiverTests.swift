import CastDevice
import CastWire
import CastSimulatorTesting
import Foundation
import Testing

@Suite("urn:x-cast:com.google.cast.receiver")
struct ReceiverTests {
    private func connected() -> (CastTestDevice, ConnectionID) {
        var harness = CastTestDevice()
        let connection = harness.open(1)
        harness.connect(connection)
        return (harness, connection)
    }

    @Test("GET_STATUS is answered unicast with the same requestId and the idle Backdrop")
    func getStatus() throws {
        var (harness, connection) = connected()
        let other = harness.open(2)
        harness.connect(other)
        let replies = harness.send(connection, to: "receiver-0", CastNamespace.receiver, ["type": "GET_STATUS", "requestId": 41])
        try #require(replies.count == 1)
        let reply = replies[0]
        #expect(reply.to == [connection])
        #expect(reply.envelope.destinationId == "sender-0" && reply.envelope.sourceId == "receiver-0")
        #expect(reply.type == "RECEIVER_STATUS" && reply.requestId == 41)
        let status = try #require(reply.json["status"])
        #expect(status["volume"] == ["controlType": "attenuation", "level": 1, "muted": false, "stepInterval": 0.05])
        #expect(status["isActiveInput"] == true && status["isStandBy"] == false)
        let app = try #require(status["applications"]?.arrayValue?.first)
        #expect(app["appId"] == "E8C28D3C" && app["isIdleScreen"] == true)
        #expect(app["sessionId"] == app["transportId"])
    }

    @Test("An audio device with nothing running reports no applications key at all")
    func audioDeviceIdle() throws {
        var harness = CastTestDevice { configuration in
            configuration = DeviceConfiguration(identity: try! DeviceIdentity(
                uuid: "0123456789abcdef0123456789abcdef", supportsVideo: false))
        }
        let connection = harness.open(1)
        harness.connect(connection)
        let reply = harness.send(connection, to: "receiver-0", CastNamespace.receiver, ["type": "GET_STATUS", "requestId": 1])
        let status = try #require(reply.first?.json["status"]?.objectValue)
        #expect(status["applications"] == nil)
        #expect(status["isActiveInput"] == nil)
    }

    @Test("LAUNCH: the broadcast carrying the LAUNCH requestId already lists the app with transportId and namespace objects")
    func launch() throws {
        var (harness, connection) = connected()
        let watcher = harness.open(2)
        harness.connect(watcher)
        let replies = harness.send(connection, to: "receiver-0", CastNamespace.receiver,
                                   ["type": "LAUNCH", "appId": "CC1AD845", "requestId": 3, "language": "en-US"])
        let launchStatus = try #require(replies.first { $0.type == "LAUNCH_STATUS" })
        #expect(launchStatus.json == ["type": "LAUNCH_STATUS", "launchRequestId": 3, "status": "USER_ALLOWED"])
        #expect(launchStatus.to == [connection])
        let status = try #require(replies.first { $0.type == "RECEIVER_STATUS" })
        #expect(status.requestId == 3)
        #expect(status.isBroadcast)
        #expect(status.to == [connection, watcher])
        let app = try #require(status.json["status"]?["applications"]?.arrayValue?.first)
        #expect(app["appId"] == "CC1AD845" && app["displayName"] == "Default Media Receiver")
        #expect(app["isIdleScreen"] == false)
        let namespaces = try #require(app["namespaces"]?.arrayValue)
        #expect(namespaces.contains(["name": "urn:x-cast:com.google.cast.media"]))
        let transportId = try #require(app["transportId"]?.stringValue)
        #expect(transportId == app["sessionId"]?.stringValue && transportId.count == 36)
    }

    @Test("LAUNCH of a new app CLOSEs the old app's senders from its transport id")
    func launchReplacesApp() throws {
        var harness = CastTestDevice()
        let (connection, oldTransport) = harness.launch()
        // Make the DMR the "old" app by launching Backdrop over it.
        let replies = harness.send(connection, to: "receiver-0", CastNamespace.receiver,
                                   ["type": "LAUNCH", "appId": "E8C28D3C", "requestId": 9])
        let close = try #require(replies.first { $0.envelope.namespace == CastNamespace.connection })
        #expect(close.json == ["type": "CLOSE"])
        #expect(close.envelope.sourceId == oldTransport && close.envelope.destinationId == "sender-0")
        #expect(replies.last?.type == "RECEIVER_STATUS" && replies.last?.requestId == 9)
        #expect(harness.transportId != oldTransport)
        // The old transport is gone: media requests to it are dropped.
        #expect(harness.send(connection, to: oldTransport, CastNamespace.media, ["type": "GET_STATUS", "requestId": 10]).isEmpty)
    }

    @Test("LAUNCH of the running app answers the current status with the requestId, same session")
    func launchRunningApp() throws {
        var harness = CastTestDevice()
        let (connection, transportId) = harness.launch()
        let replies = harness.send(connection, to: "receiver-0", CastNamespace.receiver,
                                   ["type": "LAUNCH", "appId": "CC1AD845", "requestId": 5])
        let status = try #require(replies.first { $0.type == "RECEIVER_STATUS" })
        #expect(status.requestId == 5)
        #expect(status.json["status"]?["applications"]?.arrayValue?.first?["transportId"]?.stringValue == transportId)
        #expect(!replies.contains { $0.envelope.namespace == CastNamespace.connection })
    }

    @Test("LAUNCH of an unknown app → LAUNCH_ERROR NOT_FOUND; without appId → BAD_PARAMETER")
    func launchErrors() {
        var (harness, connection) = connected()
        let unknown = harness.send(connection, to: "receiver-0", CastNamespace.receiver, ["type": "LAUNCH", "appId": "DEADBEEF", "requestId": 7])
        #expect(unknown.map(\.json) == [["type": "LAUNCH_ERROR", "requestId": 7, "reason": "NOT_FOUND", "appId": "DEADBEEF"]])
        let missing = harness.send(connection, to: "receiver-0", CastNamespace.receiver, ["type": "LAUNCH", "requestId": 8])
        #expect(missing.map(\.json) == [["type": "LAUNCH_ERROR", "requestId": 8, "reason": "BAD_PARAMETER"]])
        #expect(harness.snapshot.runningApp?.appId == "E8C28D3C")
    }

    @Test("STOP with a null or missing sessionId stops the running app and returns to Backdrop", arguments: [true, false])
    func stopCurrent(nullSessionId: Bool) throws {
        var harness = CastTestDevice()
        let (connection, transportId) = harness.launch()
        var stop: JSONValue = ["type": "STOP", "requestId": 12]
        if nullSessionId, case .object(var fields) = stop { fields["sessionId"] = .null; stop = .object(fields) }
        let replies = harness.send(connection, to: "receiver-0", CastNamespace.receiver, stop)
        let close = try #require(replies.first { $0.envelope.namespace == CastNamespace.connection })
        #expect(close.envelope.sourceId == transportId && close.json == ["type": "CLOSE"])
        let status = try #require(replies.last)
        #expect(status.type == "RECEIVER_STATUS" && status.requestId == 12 && status.isBroadcast)
        #expect(status.json["status"]?["applications"]?.arrayValue?.first?["appId"] == "E8C28D3C")
    }

    @Test("STOP of an unknown sessionId → INVALID_REQUEST INVALID_SESSION_ID, app untouched")
    func stopUnknownSession() {
        var harness = CastTestDevice()
        let (connection, _) = harness.launch()
        let replies = harness.send(connection, to: "receiver-0", CastNamespace.receiver,
                                   ["type": "STOP", "sessionId": "not-a-session", "requestId": 4])
        #expect(replies.map(\.json) == [["type": "INVALID_REQUEST", "requestId": 4, "reason": "INVALID_SESSION_ID"]])
        #expect(harness.snapshot.runningApp?.appId == "CC1AD845")
    }

    @Test("SET_VOLUME clamps the level, keeps muted separate, broadcasts with the requestId")
    func setVolume() throws {
        var (harness, connection) = connected()
        let other = harness.open(2)
        harness.connect(other)
        var replies = harness.send(connection, to: "receiver-0", CastNamespace.receiver,
                                   ["type": "SET_VOLUME", "volume": ["level": 1.7], "requestId": 20])
        #expect(replies.count == 1 && replies[0].isBroadcast && replies[0].to == [connection, other] && replies[0].requestId == 20)
        #expect(replies[0].json["status"]?["volume"]?["level"] == 1.0)
        replies = harness.send(connection, to: "receiver-0", CastNamespace.receiver,
                               ["type": "SET_VOLUME", "volume": ["muted": true], "requestId": 21])
        #expect(replies[0].json["status"]?["volume"]?["muted"] == true && replies[0].json["status"]?["volume"]?["level"] == 1.0)
        replies = harness.send(connection, to: "receiver-0", CastNamespace.receiver,
                               ["type": "SET_VOLUME", "volume": ["level": -3, "muted": false], "requestId": 22])
        #expect(harness.snapshot.volume == Volume(level: 0, muted: false))
        replies = harness.send(connection, to: "receiver-0", CastNamespace.receiver,
                               ["type": "SET_VOLUME", "volume": ["level": "loud"], "requestId": 23])
        #expect(replies.map(\.json) == [["type": "INVALID_REQUEST", "requestId": 23, "reason": "INVALID_PARAMS"]])
        #expect(replies[0].to == [connection])
    }

    @Test("GET_APP_AVAILABILITY answers each requested app id")
    func appAvailability() {
        var (harness, connection) = connected()
        let replies = harness.send(connection, to: "receiver-0", CastNamespace.receiver,
                                   ["type": "GET_APP_AVAILABILITY", "appId": ["CC1AD845", "84912283", "0000BEEF"], "requestId": 2])
        // The device's own app, a public receiver any device can fetch, and an id no one has.
        #expect(replies.map(\.json) == [[
            "type": "GET_APP_AVAILABILITY", "responseType": "GET_APP_AVAILABILITY", "requestId": 2,
            "availability": ["CC1AD845": "APP_AVAILABLE", "84912283": "APP_AVAILABLE", "0000BEEF": "APP_UNAVAILABLE"],
        ]])
    }

    @Test("Unknown types, missing requestIds and non-JSON payloads get INVALID_REQUEST")
    func invalidRequests() {
        var (harness, connection) = connected()
        #expect(harness.send(connection, to: "receiver-0", CastNamespace.receiver, ["type": "REBOOT", "requestId": 6]).map(\.json)
            == [["type": "INVALID_REQUEST", "requestId": 6, "reason": "INVALID_COMMAND"]])
        #expect(harness.send(connection, to: "receiver-0", CastNamespace.receiver, ["type": "GET_STATUS"]).map(\.json)
            == [["type": "INVALID_REQUEST", "requestId": 0, "reason": "INVALID_COMMAND"]])
        let garbage = CastEnvelope(sourceId: "sender-0", destinationId: "receiver-0", namespace: CastNamespace.receiver,
                                   payload: .string("{not json"))
        #expect(harness.sendRaw(connection, garbage).map(\.json) == [["type": "INVALID_REQUEST", "requestId": 0, "reason": "INVALID_COMMAND"]])
        // JSON the parser refuses (too deep, a number past a double, a lone surrogate) is
        // answered with the requestId its text has: the sender waits on that id.
        let deep = String(repeating: "[", count: 33) + String(repeating: "]", count: 33)
        for (text, requestId) in [(#"{"type":"GET_STATUS","x":\#(deep),"requestId":103}"#, 103),
                                  (#"{"requestId":104,"type":"SET_VOLUME","volume":{"level":1e999}}"#, 104),
                                  (#"{"type":"GET_STATUS","requestId":105,"note":"\ud800"}"#, 105)] {
            let envelope = CastEnvelope(sourceId: "sender-0", destinationId: "receiver-0", namespace: CastNamespace.receiver, payload: .string(text))
            #expect(harness.sendRaw(connection, envelope).map(\.json) == [["type": "INVALID_REQUEST", "requestId": .number(Double(requestId)), "reason": "INVALID_COMMAND"]], "\(text)")
        }
    }

    @Test("Session ids are deterministic for a device UUID")
    func deterministicIds() {
        var first = CastTestDevice()
        var second = CastTestDevice()
        #expect(first.launch().1 == second.launch().1)
    }
}

@Suite("RECEIVER_STATUS text")
struct ReceiverStatusTextTests {
    /// The `status` text is reused while nothing changed: what goes out must still be the
    /// status of the moment, byte for byte what encoding it afresh gives.
    @Test("Every RECEIVER_STATUS is the exact text of its status, through volume, launch, connect, stop, standby, mute, another input and an app's own statusText")
    func textFollowsEveryChange() throws {
        var device = CastTestDevice()
        let first = device.open(1)
        device.connect(first)
        var texts: [String] = []
        func getStatus(_ requestId: Int) {
            let replies = device.send(first, to: CastEndpoint.platformReceiver, CastNamespace.receiver,
                                      ["type": "GET_STATUS", "requestId": .number(Double(requestId))])
            for reply in replies.ofType("RECEIVER_STATUS") {
                let text = try! #require(reply.envelope.utf8)
                #expect(text == reply.json.jsonText())
                #expect(reply.requestId == requestId)
                texts.append(text)
            }
        }
        getStatus(1)
        getStatus(2)  // unchanged: the text differs only by its requestId
        _ = device.send(first, to: CastEndpoint.platformReceiver, CastNamespace.receiver,
                        ["type": "SET_VOLUME", "requestId": 3, "volume": ["level": 0.3]])
        getStatus(4)
        let (_, transportId) = device.launch(on: 1)
        getStatus(5)
        // The sender leaves the app: senderConnected turns false, nothing else changes.
        _ = device.send(first, to: transportId, CastNamespace.connection, ["type": "CLOSE"])
        getStatus(6)
        _ = device.send(first, to: CastEndpoint.platformReceiver, CastNamespace.receiver, ["type": "STOP", "requestId": 7])
        getStatus(8)
        _ = device.apply(.setStandby(true))
        getStatus(9)
        _ = device.apply(.setDeviceVolume(level: nil, muted: true))
        getStatus(10)
        // Ids written as digits, on either side of where the number's own writer takes over.
        getStatus(4_294_967_296)
        getStatus(1_000_000_000_000_007)
        // Out of standby onto another input: isActiveInput false, isStandBy false.
        _ = device.apply(.setStandby(false))
        _ = device.apply(.setActiveInput(false))
        getStatus(13)
        // An app's own statusText changes with nothing else: DashCast's page becomes ready.
        _ = device.launch(CastAppDefinition.dashCast.appId, on: 1)
        getStatus(14)
        _ = device.advance(0.6)  // its page takes half a second
        getStatus(15)
        #expect(texts.count == 13)
        #expect(texts[8].hasPrefix(#"{"requestId":4294967296,"#) && texts[9].hasPrefix(#"{"requestId":1000000000000007,"#))
        #expect(texts[10].contains(#""isActiveInput":false"#) && texts[10].contains(#""isStandBy":false"#))
        #expect(texts[11].contains(#""statusText":"Application is starting""#))
        #expect(texts[12].contains(#""statusText":"Application ready""#))
        #expect(texts[0].replacingOccurrences(of: #""requestId":1"#, with: #""requestId":2"#) == texts[1])
        #expect(texts[2].contains(#""level":0.3"#) && !texts[1].contains(#""level":0.3"#))
        #expect(texts[3].contains(#""appId":"CC1AD845""#) && texts[3].contains(#""senderConnected":true"#))
        #expect(texts[4].contains(#""senderConnected":false"#))
        #expect(!texts[5].contains("CC1AD845"))
        #expect(texts[6].contains(#""isStandBy":true"#) && texts[5].contains(#""isStandBy":false"#))
        #expect(texts[7].contains(#""muted":true"#) && texts[6].contains(#""muted":false"#))
    }
}
