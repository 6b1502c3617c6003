import CastDevice
import CastScenario
import NIOCore

/// The device's side of a recording: its loop appends each event to a batch of its own,
/// with no lock, and hands the batch to the ``Recorder`` when it is full
/// (``Recorder/batchSize``) and every ``Recorder/flushInterval``. Touched only on the loop.
final class RecorderBatch {
    let recorder: Recorder
    private var events = RecorderQueue(capacity: Recorder.batchSize)
    /// About what the batch's lines take, for the queue's bound.
    private var size = 0

    init(_ recorder: Recorder) { self.recorder = recorder }

    func add(_ entry: JournalEntry) {
        size += entry.envelope.payloadByteCount + 200
        events.append(entry, wall: Recorder.wallNow)
        if events.count >= Recorder.batchSize { handOver() }
    }

    func add(_ kind: RecordedEvent.Kind, at time: SimTime) {
        size += 200
        events.append(RecordedEvent(time: time, wall: Recorder.wallNow, kind: kind))
        if events.count >= Recorder.batchSize { handOver() }
    }

    /// Hands what the batch holds to the writer.
    func handOver() {
        guard !events.isEmpty else { return }
        recorder.take(&events, size: size)
        size = 0
    }
}

/// A recording fed by a device: ended on the device's loop (``end(_:)``).
package struct RecorderFeed: Sendable {
    let subscription: Int
    let batch: NIOLoopBound<RecorderBatch>
    let handOvers: RepeatedTask

    /// Stops feeding the recorder, and hands it what the loop still holds: after this, the
    /// recorder has every event, and ``Recorder/stop()`` writes them. On the device's loop.
    package func end(_ runner: DeviceRunner) {
        runner.unsubscribe(subscription)
        handOvers.cancel()
        batch.value.handOver()
    }
}

extension DeviceRunner {
    /// Hands everything that happens from now on to `recorder`. Connections already open are
    /// recorded as opening now, so the recording has every connection its messages name.
    package func feed(_ recorder: Recorder) -> RecorderFeed {
        let batch = RecorderBatch(recorder)
        for (id, peer) in openConnections { batch.add(.connected(id, peer: peer), at: now) }
        let subscription = subscribe { [unowned self] news in
            if case .message(let entry) = news { return batch.add(entry) }  // the most of what comes
            guard let (kind, time) = Recorder.kind(of: news, now: now, scenario: { self.session.scenario.source }) else { return }
            batch.add(kind, at: time)
        }
        let bound = NIOLoopBound(batch, eventLoop: loop)
        let interval = TimeAmount.nanoseconds(Int64(Recorder.flushInterval * 1e9))
        let handOvers = loop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in bound.value.handOver() }
        return RecorderFeed(subscription: subscription, batch: bound, handOvers: handOvers)
    }
}
