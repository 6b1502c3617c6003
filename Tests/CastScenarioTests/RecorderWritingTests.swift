import CastDevice
import CastScenario
import CastSimulatorTesting
import CastWire
import Foundation
import Testing

@Suite("The recorder under a busy device: every event written, in order, however the writer cuts its writes")
struct RecorderWritingTests {
    @Test("Two bursts of 1,500 GET_STATUS, a writer pass apart: every request and answer is in the file, in order, each line its event's own")
    func busyRunWrittenWhole() throws {
        let scenario = try ScenarioText.parse(#"{"name": "busy", "device": {"heartbeatInterval": "0s", "idleTimeout": "0s"}}"#)
        let requests = 1500
        let text = try recordedText(scenario) { device in
            let sender = device.connectSender()
            sender.connect()
            for burst in 0..<2 {
                // The writer wakes every 50 ms: the second burst goes to the queue it handed back.
                if burst == 1 { Thread.sleep(forTimeInterval: 0.4) }
                for _ in 0..<requests {
                    sender.request(CastNamespace.receiver, to: CastEndpoint.platformReceiver, ["type": "GET_STATUS"])
                }
                sender.discardReceived()
            }
        }
        let recording = try Recording.read(Data(text.utf8))

        let messages = recording.events.compactMap { event -> RecordedMessage? in
            guard case .message(let message) = event.kind, message.envelope.namespace == CastNamespace.receiver else { return nil }
            return message
        }
        // Some 2 MB of lines (a RECEIVER_STATUS is about 700 bytes): several of the writer's writes.
        #expect(text.utf8.count > 1_500_000)
        #expect(messages.count == 2 * requests * 2)
        #expect(messages.map { $0.payload?["requestId"]?.intValue ?? -1 } == (1...2 * requests).flatMap { [$0, $0] })
        #expect(messages.enumerated().allSatisfy { index, message in message.direction == (index.isMultiple(of: 2) ? .inbound : .outbound) })
        #expect(messages.allSatisfy { Array($0.connections) == [ConnectionID(1)] })
        // Every line whole: each is the line its event writes.
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.last == "" && lines.count == recording.events.count + 2)
        #expect(zip(lines.dropFirst(), recording.events).allSatisfy { line, event in line + "\n" == event.line() })
    }

    #if os(Linux)
    @Test("The writer is a thread named castsim-record, as top -H, ps -L and perf show it")
    func writerThreadNamed() throws {
        let scenario = try ScenarioText.parse(#"{"name": "named", "device": {"heartbeatInterval": "0s", "idleTimeout": "0s"}}"#)
        var names: [String] = []
        _ = try recordedText(scenario) { _ in
            let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")
            names = tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
        }
        #expect(names.contains("castsim-record\n"))
    }
    #endif

    @Test("Messages and the other events are written in the order they happened, however they were queued")
    func orderKept() throws {
        let scenario = try ScenarioText.parse(#"{"name": "order", "device": {"heartbeatInterval": "0s", "idleTimeout": "0s"}}"#)
        let recording = try recordRun(scenario) { device in
            let first = device.connectSender()
            first.connect()
            first.request(CastNamespace.receiver, to: CastEndpoint.platformReceiver, ["type": "GET_STATUS"])
            let second = device.connectSender()
            first.close()
            second.connect()
            try device.act(["volume": ["level": 0.5]])
            second.request(CastNamespace.receiver, to: CastEndpoint.platformReceiver, ["type": "GET_STATUS"])
            second.close()
        }
        func summary(_ event: RecordedEvent) -> String {
            switch event.kind {
            case .message(let message):
                "\(message.direction.rawValue) \(message.type ?? "?") \(message.connections.map(\.rawValue))"
            case .connected(let id, _): "connected \(id.rawValue)"
            case .disconnected(let id, _): "disconnected \(id.rawValue)"
            case .input: "input"
            default: event.kind.name
            }
        }
        #expect(recording.events.map(summary) == [
            "connected 1", "in CONNECT [1]", "in GET_STATUS [1]", "out RECEIVER_STATUS [1]",
            "connected 2", "disconnected 1", "in CONNECT [2]",
            "input", "out RECEIVER_STATUS [2]", "out DEVICE_UPDATED [2]", "in GET_STATUS [2]", "out RECEIVER_STATUS [2]",
            "disconnected 2",
        ])
    }

    @Test("A sender's JSON payload is written as it came when it is one line; one with line breaks is written compact")
    func senderTextKept() throws {
        let scenario = try ScenarioText.parse(#"{"name": "text", "device": {"heartbeatInterval": "0s", "idleTimeout": "0s"}}"#)
        let oneLine = #"{"type": "GET_STATUS",  "requestId": 7, "z": {"b": 1, "a": [1, 2.50]}}"#
        let broken = "{\"type\": \"GET_STATUS\",\n \"requestId\": 8}"
        let text = try recordedText(scenario) { device in
            let sender = device.connectSender()
            sender.connect()
            for text in [oneLine, broken, "not JSON"] {
                _ = sender.send(CastEnvelope(sourceId: CastEndpoint.platformSender, destinationId: CastEndpoint.platformReceiver,
                                             namespace: CastNamespace.receiver, payload: .string(text)))
            }
        }
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains(#","payload":"# + oneLine + #","source":"#) }, "the sender's text, its spaces and order kept")
        #expect(lines.contains { $0.contains(#","payload":{"requestId":8,"type":"GET_STATUS"},"#) }, "no line break inside a line")
        #expect(lines.contains { $0.contains(#""text":"not JSON""#) })
        // Each reads back as the message the device took in.
        let recording = try Recording.read(Data(text.utf8))
        let payloads = recording.events.compactMap { event -> JSONValue? in
            guard case .message(let message) = event.kind, message.direction == .inbound else { return nil }
            return message.payload
        }
        #expect(payloads.contains(try JSONValue.parse(oneLine)) && payloads.contains(["type": "GET_STATUS", "requestId": 8]))
    }
}
