import CastSimulator
import NIOConcurrencyHelpers
import Testing

@Suite("A batch queue: what waits taken together, the oldest dropped past the limit, a nudge, an end")
struct BatchQueueTests {
    @Test("What waits is taken in one go, in order; past the limit the oldest go; finished, the rest and then nil")
    func takesTogether() async {
        let queue = BatchQueue<String>(limit: 3)
        for text in ["a", "b", "c", "d", "e"] { queue.yield(text) }
        #expect(await queue.next() == ["c", "d", "e"])
        queue.yield("f")
        queue.finish()
        queue.yield("after the end")
        #expect(await queue.next() == ["f"])
        #expect(await queue.next() == nil)
    }

    @Test("Past the byte limit the oldest go too, the newest always stays; the writer learns how many went")
    func byteLimit() async {
        let queue = BatchQueue<String>(limit: 100, byteLimit: 10) { $0.utf8.count }
        for text in ["aaaa", "bbbb", "cccc"] { queue.yield(text) }
        #expect(queue.takeDropped() == 1)
        #expect(queue.takeDropped() == 0)
        #expect(await queue.next() == ["bbbb", "cccc"])
        // The count starts again from an empty queue.
        for text in ["dddd", "eeee"] { queue.yield(text) }
        #expect(await queue.next() == ["dddd", "eeee"] && queue.takeDropped() == 0)
        queue.yield("a line longer than the limit")
        queue.yield("ffff")
        #expect(queue.takeDropped() == 1)
        queue.yield("another line longer than the limit")
        #expect(queue.takeDropped() == 1)
        #expect(await queue.next() == ["another line longer than the limit"])
    }

    @Test("A writer waiting is handed the next item; a cancelled one gets nil")
    func waiting() async {
        let queue = BatchQueue<String>(limit: 10)
        let reader = Task { await queue.next() }
        try? await Task.sleep(for: .milliseconds(50))
        queue.yield("x")
        #expect(await reader.value == ["x"])
        let cancelled = Task { await queue.next() }
        try? await Task.sleep(for: .milliseconds(50))
        cancelled.cancel()
        #expect(await cancelled.value == nil)
    }

    @Test("A nudge wakes the writer with an empty batch, waiting or not, once; items win over it")
    func nudge() async {
        let queue = BatchQueue<String>(limit: 10)
        let reader = Task { await queue.next() }
        try? await Task.sleep(for: .milliseconds(50))
        queue.nudge()
        #expect(await reader.value == [])
        queue.nudge()
        #expect(await queue.next() == [])
        queue.nudge()
        queue.yield("y")
        #expect(await queue.next() == ["y"])
        #expect(await queue.next() == [], "the nudge is still owed")
        queue.finish()
        queue.nudge()
        #expect(await queue.next() == nil)
    }

    @Test("The finish action runs once, whoever finishes, and at once on a queue already finished")
    func finishAction() {
        let runs = NIOLockedValueBox(0)
        let queue = BatchQueue<Int>(limit: 1)
        queue.onFinish { runs.withLockedValue { $0 += 1 } }
        #expect(runs.withLockedValue { $0 } == 0)
        queue.finish()
        queue.finish()
        #expect(runs.withLockedValue { $0 } == 1)
        queue.onFinish { runs.withLockedValue { $0 += 10 } }
        #expect(runs.withLockedValue { $0 } == 11)
    }
}
