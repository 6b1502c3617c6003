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
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("castsim-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let device = EmbeddedCastSimulator(scenario: scenario)
        try device.startRecording(to: path)
        let sender = device.connectSender()
        sender.connect()
        for burst in 0..<2 {
            // The writer wakes every quarter second: the second burst goes to the queue it handed back.
            if burst == 1 { Thread.sleep(forTimeInterval: 0.4) }
            for _ in 0..<requests {
                sender.request(CastNamespace.receiver, to: CastEndpoint.platformReceiver, ["type": "GET_STATUS"])
            }
            sender.discardReceived()
        }
        device.stop()
        let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
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
}
