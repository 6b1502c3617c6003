import CastControl
import NIOCore
import Testing

@Suite("An event stream's queue of frames: taken together, the oldest dropped past the limit")
struct FrameQueueTests {
    static func frame(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }
    static func texts(_ frames: [ByteBuffer]?) -> [String]? { frames?.map { String(buffer: $0) } }

    @Test("What waits is taken in one go, in order; past the limit the oldest go; finished, the rest and then nil")
    func takesTogether() async {
        let queue = FrameQueue(limit: 3)
        for text in ["a", "b", "c", "d", "e"] { queue.yield(Self.frame(text)) }
        #expect(Self.texts(await queue.next()) == ["c", "d", "e"])
        queue.yield(Self.frame("f"))
        queue.finish()
        queue.yield(Self.frame("after the end"))
        #expect(Self.texts(await queue.next()) == ["f"])
        #expect(await queue.next() == nil)
    }

    @Test("A writer waiting is handed the next frame; a cancelled one gets nil")
    func waiting() async {
        let queue = FrameQueue(limit: 10)
        let reader = Task { await queue.next() }
        try? await Task.sleep(for: .milliseconds(50))
        queue.yield(Self.frame("x"))
        #expect(Self.texts(await reader.value) == ["x"])
        let cancelled = Task { await queue.next() }
        try? await Task.sleep(for: .milliseconds(50))
        cancelled.cancel()
        #expect(await cancelled.value == nil)
    }
}
