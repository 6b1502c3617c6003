import CastDevice
import CastScenario
import CastSimulatorTesting
import CastWire
import Foundation
import Testing

/// Streaming figures as the device tells them (a `measured` event each time the media plane
/// reports) and what a scenario's `streaming` expectations make of them.
@Suite("Cast Streaming: figures as events, and expectations on them")
struct StreamingExpectationTests {
    private static let sender = MirroringAppTests.sender
    private static let webrtc = MirroringAppTests.webrtc

    /// The mirroring app launched, an OFFER answered: the session's plan.
    private func streaming(_ harness: inout CastTestDevice) throws -> StreamingPlan {
        let (connection, transportId) = harness.launch("0F5096E8")
        harness.connect(connection, from: Self.sender, to: transportId)
        _ = harness.send(connection, from: Self.sender, to: transportId, Self.webrtc, MirroringAppTests.offer())
        let plan = try #require(harness.events.lazy.compactMap { if case .streaming(.negotiating(let plan)) = $0.kind { plan } else { nil } }.last)
        _ = harness.apply(.streaming(.opened(session: plan.session, udpPort: 5000)))
        return plan
    }

    private func figures(video frames: Int, audio audioFrames: Int = 0, fps: Double = 30) -> StreamingFigures {
        var audio = StreamingFigures.Stream(senderSsrc: 49762)
        audio.framesReceived = audioFrames
        var video = StreamingFigures.Stream(senderSsrc: 63938)
        video.framesReceived = frames
        video.framesPerSecond = fps
        video.ackLatencyP99Milliseconds = 1.5
        return StreamingFigures(streams: [audio, video])
    }

    @Test("Each report of the media plane is a measured event: the plan's streams with their figures, in the state's names")
    func measuredEvent() throws {
        var harness = CastTestDevice()
        let plan = try streaming(&harness)
        let counted = figures(video: 42, audio: 100)
        _ = harness.apply(.streaming(.figures(session: plan.session, counted)))
        #expect(harness.events.last?.kind == .streaming(.measured(plan, counted)))
        let json = StreamingEvent.measured(plan, counted).json
        #expect(json["phase"] == "measured" && json["session"] == .string(plan.session))
        let video = try #require(json["streams"]?[1])
        #expect(video["kind"] == "video" && video["codec"] == "vp8" && video["senderSsrc"] == 63938 && video["framesReceived"] == 42)
        #expect(video["ackLatencyP99"] == 1.5 && video["framesPerSecond"] == 30)
        #expect(json["streams"]?[0]?["framesReceived"] == 100 && json["senderReports"] == 0 && json["picture"] == .null)
        // The state shows the same stream, under the same names.
        let state = try #require(harness.snapshot.runningApp?.state.panel?["streaming"]?["streams"]?[1])
        #expect(state == video)
        // A report about another session is no measurement.
        let before = harness.events.count
        _ = harness.apply(.streaming(.figures(session: "elsewhere", counted)))
        #expect(harness.events.count == before)
    }

    @Test("A streaming expectation passes when one stream's figures meet it; one that is never met fails at its window with the nearest stream")
    func expectations() throws {
        var harness = try CastTestDevice(scenarioJSON: #"""
            {"name": "x", "device": {"heartbeatInterval": "0s"}, "expectations": [
              {"name": "100 video frames", "streaming": {"kind": "video", "framesReceived": {"$gte": 100}}, "within": "20s"},
              {"name": "any stream at 60 fps", "streaming": {"framesPerSecond": {"$gte": 60}, "ackLatencyP99": {"$lt": 5}}, "within": "10s"},
              {"name": "h264", "streaming": {"codec": "h264"}}
            ]}
            """#)
        let plan = try streaming(&harness)
        harness.advance(3)
        _ = harness.apply(.streaming(.figures(session: plan.session, figures(video: 90, audio: 150))))
        // 90 frames: not yet.
        #expect(harness.session.report().expectations[0].passed == false)
        harness.advance(1)
        _ = harness.apply(.streaming(.figures(session: plan.session, figures(video: 120, audio: 200))))
        let frames = try #require(harness.expectation("100 video frames"))
        #expect(frames.passed && frames.decidedAt == 4)
        let match = try #require(frames.evidence.first)
        #expect(frames.evidence.count == 1 && match.role == "match" && match.namespace == Self.webrtc && match.time == 4)
        #expect(match.payload?["kind"] == "video" && match.payload?["framesReceived"] == 120 && match.connection == plan.connection.rawValue)

        harness.advance(7)  // t = 11: past the 60 fps window
        let fps = try #require(harness.expectation("any stream at 60 fps"))
        #expect(!fps.passed && fps.reason == "no stream's figures met it within 10s" && fps.decidedAt == 10)
        // The nearest: the video stream, whose ACK latency met one of the two.
        #expect(fps.evidence.map(\.role) == ["closest"] && fps.evidence.first?.payload?["kind"] == "video")

        let report = harness.session.report()
        let codec = try #require(report.expectations.first { $0.name == "h264" })
        #expect(!codec.passed && codec.reason == "not seen by the end of the run" && codec.kind == "streaming")
        #expect(report.junitXML().contains(#"type="streaming""#))
    }
}
