import CastDevice
import CastScenario
import CastWire
import Foundation
import NIOConcurrencyHelpers

/// Writes a recording (`docs/recording.md`) of a running device.
///
/// The device's loop only appends each event, as a value, to a queue; a thread of the
/// recorder's own encodes and writes the queue every ``flushInterval``. So the device never
/// waits for the disk, and a process killed loses at most the last quarter second.
package final class Recorder: Sendable {
    /// How often, in seconds, the writer empties the queue.
    static let flushInterval = 0.25
    /// Events the queue holds before it drops the newest (and says so in the recording).
    static let queueLimit = 100_000

    package let path: String
    package let redaction: PayloadRedaction
    private let state: NIOLockedValueBox<State>
    /// Signalled by ``stop()`` so the writer does not sleep out its interval.
    private let wake = ConditionLock(value: 0)
    private let finished = ConditionLock(value: 0)

    private struct State {
        var queue: [RecordedEvent] = []
        var dropped = 0
        var written = 0
        var stopping = false
        var failure: String?
    }

    package struct Status: Sendable {
        package var path: String
        /// Events written so far (the header not counted).
        package var events: Int
        /// Events lost because the writer fell behind.
        package var dropped: Int
        /// Why writing stopped, if the disk refused.
        package var failure: String?
    }

    /// Creates the file (replacing one that is there only when `overwrite`), writes the
    /// header and starts the writer.
    package init(path: String, header: RecordingHeader, redaction: PayloadRedaction, overwrite: Bool) throws(RecorderError) {
        self.path = path
        self.redaction = redaction
        var header = header
        header.redacted = redaction.paths
        if !overwrite, FileManager.default.fileExists(atPath: path) {
            throw RecorderError(path: path, reason: "the file exists; choose another or ask to overwrite it")
        }
        guard FileManager.default.createFile(atPath: path, contents: Data(Recording.line(header.json).utf8)),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw RecorderError(path: path, reason: "cannot create the file (does its folder exist, may castsim write there?)")
        }
        handle.seekToEndOfFile()
        state = NIOLockedValueBox(State())
        let thread = Thread { [state, wake, finished, redaction] in
            var stopping = false
            while !stopping {
                if wake.lock(whenValue: 1, timeoutSeconds: Self.flushInterval) { wake.unlock() }
                let (events, dropped, stop) = state.withLockedValue { state in
                    defer {
                        state.queue.removeAll(keepingCapacity: true)
                        state.dropped = 0
                    }
                    return (state.queue, state.dropped, state.stopping)
                }
                stopping = stop
                var text = events.map { Recording.line($0.json(redacting: redaction)) }.joined()
                if dropped > 0, let last = events.last {
                    text += Recording.line(RecordedEvent(time: last.time, wall: last.wall, kind: .dropped(count: dropped)).json())
                }
                guard !text.isEmpty else { continue }
                do {
                    try handle.write(contentsOf: Data(text.utf8))
                    state.withLockedValue { $0.written += events.count }
                } catch {
                    state.withLockedValue { $0.failure = "\(error)" }
                }
            }
            try? handle.close()
            finished.lock()
            finished.unlock(withValue: 1)
        }
        thread.name = "castsim-recorder"
        thread.start()
    }

    /// Wall time now, milliseconds since 1970.
    static var wallNow: Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }

    /// Queues an event; called on the device's loop, so it only appends.
    package func record(_ kind: RecordedEvent.Kind, at time: SimTime) {
        let wall = Self.wallNow
        state.withLockedValue { state in
            guard !state.stopping else { return }
            if state.queue.count >= Self.queueLimit {
                state.dropped += 1
            } else {
                state.queue.append(RecordedEvent(time: time, wall: wall, kind: kind))
            }
        }
    }

    /// Writes what is queued and closes the file; returns once it is on disk.
    package func stop() -> Status {
        state.withLockedValue { $0.stopping = true }
        wake.lock()
        wake.unlock(withValue: 1)
        finished.lock(whenValue: 1)
        finished.unlock()
        return status
    }

    package var status: Status {
        state.withLockedValue { Status(path: path, events: $0.written, dropped: $0.dropped, failure: $0.failure) }
    }
}

package struct RecorderError: Error, Sendable, CustomStringConvertible {
    package var path: String
    package var reason: String
    package var description: String { "cannot record to \(path): \(reason)" }
}

extension Recorder {
    /// What a piece of news is in a recording, if anything; `scenario`: what the device
    /// runs, for a reset. Connections' opening and closing come as their own news (with
    /// the peer and how it ended), not as the device's events.
    static func kind(of news: SimulatorNews, now: SimTime, scenario: () -> JSONValue?) -> (RecordedEvent.Kind, SimTime)? {
        switch news {
        case .message(let entry): (.message(RecordedMessage(entry)), entry.time)
        case .event(let event):
            if case .faultApplied(let fault) = event.kind { (.fault(fault), event.time) } else { nil }
        case .clock(let time, let from): (.clock(to: time), from)
        case .reset: (.reset(scenario: scenario()), .zero)
        case .connected(let id, let peer, let time): (.connected(id, peer: peer), time)
        case .disconnected(let id, let how, let time): (.disconnected(id, how: how), time)
        case .input(let action, let time): (.input(action), time)
        case .upstream(let id, let connected, let reason): (.upstream(id, connected: connected, reason: reason), now)
        }
    }
}

extension DeviceRunner {
    /// The header of a recording of this device, starting now.
    package func recordingHeader(host: String?, castPort: Int?, version: String = CastsimVersion.current) -> RecordingHeader {
        RecordingHeader(castsim: version, recordedAt: Recorder.wallNow, source: .device, device: session.scenario.device.identity,
                        host: host, castPort: castPort, clock: clockReading.mode.setting, scenario: session.scenario.source)
    }

    /// Hands everything that happens from now on to `recorder`; returns the subscription.
    package func feed(_ recorder: Recorder) -> Int {
        subscribe { [unowned self] news in
            guard let (kind, time) = Recorder.kind(of: news, now: now, scenario: { self.session.scenario.source }) else { return }
            recorder.record(kind, at: time)
        }
    }
}
