import CastDevice
import CastWire
import CastSimulatorTesting
import Foundation
import Testing

@Suite("tp.connection and tp.heartbeat")
struct TransportTests {
    @Test("CONNECT without a version gets no reply; with one, CONNECTED with version 0")
    func connectReplies() {
        var harness = CastTestDevice()
        let connection = harness.open(1)
        let plain = harness.send(connection, to: "receiver-0", CastNamespace.connection,
                                 ["type": "CONNECT", "origin": [:], "userAgent": "PyChromecast", "senderInfo": ["sdkType": 2]])
        #expect(plain.isEmpty)
        let versioned = harness.send(connection, from: "sender-12345", to: "receiver-0", CastNamespace.connection,
                                     ["type": "CONNECT", "protocolVersionList": [0, 1, 2, 3], "connType": 0])
        #expect(versioned.count == 1)
        #expect(versioned[0].json == ["type": "CONNECTED", "protocolVersion": 0])
        #expect(versioned[0].envelope.sourceId == "receiver-0")
        #expect(versioned[0].envelope.destinationId == "sender-12345")
        #expect(versioned[0].to == [connection])
    }

    @Test("CONNECT to an unknown endpoint or with a bad connType is answered with CLOSE")
    func connectRefused() {
        var harness = CastTestDevice()
        let connection = harness.open(1)
        let unknown = harness.send(connection, to: "web-42", CastNamespace.connection, ["type": "CONNECT"])
        #expect(unknown.map(\.json) == [["type": "CLOSE"]])
        #expect(unknown[0].envelope.sourceId == "web-42")
        let badType = harness.send(connection, to: "receiver-0", CastNamespace.connection, ["type": "CONNECT", "connType": 7])
        #expect(badType.map(\.json) == [["type": "CLOSE"]])
        // Neither created a virtual connection: receiver requests are dropped.
        let dropped = harness.send(connection, to: "receiver-0", CastNamespace.receiver, ["type": "GET_STATUS", "requestId": 1])
        #expect(dropped.isEmpty)
    }

    @Test("Non-transport messages without a prior CONNECT are dropped and logged")
    func droppedWithoutConnect() {
        var harness = CastTestDevice()
        let connection = harness.open(1)
        let replies = harness.send(connection, to: "receiver-0", CastNamespace.receiver, ["type": "GET_STATUS", "requestId": 1])
        #expect(replies.isEmpty)
        #expect(harness.logs.contains { $0.message.contains("no CONNECT") })
    }

    @Test("Virtual connections are keyed by socket: the same sender id on two sockets is two connections")
    func keyedBySocket() {
        var harness = CastTestDevice()
        let first = harness.open(1)
        let second = harness.open(2)
        harness.connect(first)
        // sender-0 on the second socket has not connected yet.
        #expect(harness.send(second, to: "receiver-0", CastNamespace.receiver, ["type": "GET_STATUS", "requestId": 1]).isEmpty)
        harness.connect(second)
        let reply = harness.send(second, to: "receiver-0", CastNamespace.receiver, ["type": "GET_STATUS", "requestId": 2])
        #expect(reply.count == 1 && reply[0].to == [second])
    }

    @Test("CLOSE from the sender removes only that virtual connection")
    func closeRemovesOnlyThatLink() {
        var harness = CastTestDevice()
        let connection = harness.open(1)
        harness.connect(connection, from: "sender-0")
        harness.connect(connection, from: "sender-1")
        #expect(harness.send(connection, from: "sender-0", to: "receiver-0", CastNamespace.connection, ["type": "CLOSE", "origin": [:]]).isEmpty)
        #expect(harness.send(connection, from: "sender-0", to: "receiver-0", CastNamespace.receiver, ["type": "GET_STATUS", "requestId": 1]).isEmpty)
        #expect(harness.send(connection, from: "sender-1", to: "receiver-0", CastNamespace.receiver, ["type": "GET_STATUS", "requestId": 2]).count == 1)
    }

    @Test("PING gets PONG with ids swapped, whatever extra keys the PING carries")
    func pingPong() {
        var harness = CastTestDevice()
        let connection = harness.open(1)
        let replies = harness.send(connection, to: "receiver-0", CastNamespace.heartbeat, ["type": "PING", "requestId": 25])
        #expect(replies.map(\.json) == [["type": "PONG"]])
        #expect(replies[0].envelope.sourceId == "receiver-0" && replies[0].envelope.destinationId == "sender-0")
        #expect(replies[0].envelope.namespace == CastNamespace.heartbeat)
    }

    @Test("A message from an empty id or from \"*\", or to an empty id, is dropped, and the journal hears why: an answer would have no address")
    func noAddressToAnswer() {
        var harness = CastTestDevice()
        let connection = harness.open(1)
        for (source, destination, namespace) in [("", "receiver-0", CastNamespace.heartbeat), ("*", "receiver-0", CastNamespace.heartbeat),
                                                 ("sender-0", "", CastNamespace.heartbeat), ("", "receiver-0", CastNamespace.connection)] {
            let before = harness.events.count
            let replies = harness.send(connection, from: source, to: destination, namespace, ["type": namespace == CastNamespace.heartbeat ? "PING" : "CONNECT"])
            #expect(replies.isEmpty, "\(source) → \(destination)")
            let reasons = harness.events.dropFirst(before).compactMap { event -> String? in
                if case .messageUnhandled(_, _, let reason) = event.kind { reason } else { nil }
            }
            #expect(reasons.count == 1 && reasons[0].contains("needs its own endpoint id"), "\(reasons)")
        }
    }

    @Test("What the transport namespaces cannot read (binary, no JSON object, an unknown type) is ignored, and the journal hears why")
    func unreadableTransportMessages() {
        var harness = CastTestDevice()
        let connection = harness.open(1)
        for (namespace, payload, reason) in [(CastNamespace.heartbeat, CastEnvelope.Payload.binary(Data([1, 2])), "heartbeat: the payload is binary, not JSON, ignored"),
                                             (CastNamespace.connection, .binary(Data([1])), "connection namespace: the payload is binary, not JSON, ignored"),
                                             (CastNamespace.heartbeat, .string("[1]"), "heartbeat: the payload is not a JSON object, ignored"),
                                             (CastNamespace.connection, .string(#"{"type":"OPEN"}"#), #"connection namespace: unknown type "OPEN" ignored"#)] {
            let before = harness.events.count
            let envelope = CastEnvelope(sourceId: "sender-0", destinationId: "receiver-0", namespace: namespace, payload: payload)
            #expect(harness.sendRaw(connection, envelope).isEmpty)
            let reasons = harness.events.dropFirst(before).compactMap { event -> String? in
                if case .messageUnhandled(_, _, let reason) = event.kind { reason } else { nil }
            }
            #expect(reasons == [reason])
        }
    }

    @Test("The device PINGs each connection every interval from Tr@n$p0rt-0")
    func devicePings() {
        var harness = CastTestDevice { $0.idleTimeout = nil }
        let connection = harness.open(1)
        #expect(harness.advance(4.9).isEmpty)
        let pings = harness.advance(0.1)
        #expect(pings.count == 1)
        #expect(pings[0].json == ["type": "PING"])
        #expect(pings[0].envelope.sourceId == "Tr@n$p0rt-0" && pings[0].envelope.destinationId == "Tr@n$p0rt-0")
        #expect(pings[0].to == [connection])
        // 60 s later: one PING per 5 s, each at its own time.
        #expect(harness.advance(60).count == 12)
    }

    @Test("Heartbeats are the connection's, not the simulation's: a simulation clock moved by hours sends no PING and drops no one")
    func heartbeatsIgnoreSimulationTime() {
        var harness = CastTestDevice { $0.idleTimeout = 60 }
        let connection = harness.open(1)
        #expect(harness.advanceSimulationClock(7200).isEmpty)
        #expect(harness.closed.isEmpty && harness.device.openConnections == [connection])
        #expect(harness.device.nextDeadline == nil, "the device itself waits for nothing")
    }

    @Test("Heartbeat interval off: no PINGs")
    func heartbeatOff() {
        var harness = CastTestDevice { $0.heartbeatInterval = nil; $0.idleTimeout = nil }
        _ = harness.open(1)
        #expect(harness.advance(3600).isEmpty)
    }

    @Test("A silent connection is closed after the idle timeout; any message resets it")
    func idleTimeout() {
        var harness = CastTestDevice { $0.idleTimeout = 30 }
        let quiet = harness.open(1)
        let chatty = harness.open(2)
        harness.advance(20)
        harness.send(chatty, to: "receiver-0", CastNamespace.heartbeat, ["type": "PONG"])
        harness.advance(10)
        #expect(harness.closed.map(\.0) == [quiet])
        #expect(harness.closed[0].1.contains("idle timeout 30s"))
        harness.advance(19.9)
        #expect(harness.closed.count == 1)
        harness.advance(0.1)
        #expect(harness.closed.map(\.0) == [quiet, chatty])
    }
}

@Suite("Deadlines with awkward floating point")
struct DeadlineRoundingTests {
    @Test("An idle deadline whose subtraction rounds below the timeout still closes the connection")
    func roundingIdleTimeout() {
        // 0.7 + 0.1 - 0.7 < 0.1 in binary floating point.
        var harness = CastTestDevice { $0.idleTimeout = 0.1; $0.heartbeatInterval = nil }
        harness.now = SimTime(seconds: 0.7)
        let connection = harness.open(1)
        harness.advance(0.1)
        #expect(harness.closed.map(\.0) == [connection])
        #expect(harness.device.openConnections.isEmpty)
    }
}
