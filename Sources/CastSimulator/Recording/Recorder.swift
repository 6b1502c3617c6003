import CastDevice
import CastScenario
import CastWire
import Foundation
import Logging
import NIOConcurrencyHelpers
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a recording (`docs/recording.md`) of a running device.
///
/// The device's loop only appends each event, as a value, to a queue; a thread of the
/// recorder's own encodes and writes the queue every ``flushInterval``. So the device never
/// waits for the disk, and a process killed loses at most the last twentieth of a second.
/// The loop's part is kept to the least there is: a message goes in as the journal's entry
/// (its text shared, not copied) with the wall clock's reading. A busy device's loop is
/// what its senders wait on, and each microsecond it spends here cost it 2 to 3 more in a
/// busy run (measured: encoding the lines on the loop, in chunks for the writer, cost the
/// process 1.8 µs a request more than this, though the writer's share fell by 1 µs).
package final class Recorder: Sendable {
    /// How often, in seconds, the writer empties the queue: often enough that what it reads
    /// is still in a cache (every 250 ms, its share was a quarter more at 10 busy senders).
    static let flushInterval = 0.05
    /// What the queue holds before it drops the newest (and says so in the recording): a
    /// disk that stalls costs a bounded amount of memory, never the device's time.
    static let queueLimit = 100_000
    static let queueByteLimit = 64 * 1024 * 1024
    /// What the writer gathers before a write.
    static let chunkBytes = 256 * 1024
    /// The largest queue storage kept from one pass to the next (some 0.4 s of a busy
    /// device's events); a burst's larger one is let go.
    static let keptQueueCapacity = 32 * 1024

    /// What to do about a file that is already there.
    package enum Existing: Sendable {
        /// Refuse to start.
        case refuse
        /// Replace it (the command line: the person named the file).
        case replace
        /// Replace it only if it is empty or a castsim recording (the control API: a client
        /// must not be able to replace any file castsim may write).
        case replaceRecording
    }

    package let path: String
    package let redaction: PayloadRedaction
    private let state: NIOLockedValueBox<State>
    /// Signalled by ``stop()`` so the writer does not sleep out its interval.
    private let wake = ConditionLock(value: 0)
    private let finished = ConditionLock(value: 0)

    private struct State {
        var queue = RecorderQueue()
        var queuedBytes = 0
        /// Dropped since the last `dropped` line.
        var dropped = 0
        var droppedTotal = 0
        var written = 0
        var stopping = false
        var failure: String?

        /// Whether an event of about `size` bytes may join the queue; counts it dropped if not.
        mutating func admit(_ size: Int) -> Bool {
            guard !stopping else { return false }
            guard queue.count < Recorder.queueLimit, queuedBytes + size <= Recorder.queueByteLimit else {
                dropped += 1
                droppedTotal += 1
                return false
            }
            queuedBytes += size
            return true
        }
    }

    package struct Status: Sendable {
        package var path: String
        /// Events written so far (the header not counted).
        package var events: Int
        /// Events lost because the writer fell behind, or after the disk refused a write.
        package var dropped: Int
        /// Why writing stopped, if the disk refused.
        package var failure: String?
    }

    /// Opens the file, writes the header and starts the writer. Blocking file I/O: call it
    /// off the device's loop.
    package init(path: String, header: RecordingHeader, redaction: PayloadRedaction, existing: Existing, logger: Logger)
        throws(RecorderError)
    {
        self.path = path
        self.redaction = redaction
        var header = header
        header.redacted = redaction.paths
        if existing == .replaceRecording, let first = Self.firstLine(of: path), !first.isEmpty,
           (try? JSONValue.parse(first))?["format"] != .string(RecordingHeader.format) {
            throw RecorderError(path: path, reason: "the file exists and is no castsim recording; it is left alone", kind: .exists)
        }
        // A folder is no file to replace: said as that, not as a file that exists.
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            throw RecorderError(path: path, reason: "it is a directory; name a file", kind: .cannotWrite)
        }
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (existing == .refuse ? O_EXCL : O_TRUNC)
        let descriptor = open(path, flags, 0o644)
        guard descriptor >= 0 else {
            let code = errno
            if code == EEXIST { throw RecorderError(path: path, reason: "the file exists; choose another or ask to overwrite it", kind: .exists) }
            throw RecorderError(path: path, reason: String(cString: strerror(code)), kind: .cannotWrite)
        }
        if let problem = Self.writeAll(descriptor, Array(Recording.line(header.json).utf8)) {
            close(descriptor)
            throw RecorderError(path: path, reason: problem, kind: .cannotWrite)
        }
        state = NIOLockedValueBox(State())
        NamedThread.start("castsim-record") { [state, wake, finished, redaction] in
            var stopping = false
            // Lines are written a chunk at a time from one buffer kept for the recording: a
            // buffer for each pass grew by doubling to megabytes, each new one fresh pages.
            var bytes: [UInt8] = []
            bytes.reserveCapacity(Self.chunkBytes + 64 * 1024)
            // The queue the device appends to and the one being written swap places, so the
            // device's appends reuse storage rather than grow a new array from empty each pass.
            var events = RecorderQueue()
            while !stopping {
                if wake.lock(whenValue: 1, timeoutSeconds: Self.flushInterval) { wake.unlock() }
                let (dropped, stop, failed) = state.withLockedValue { state in
                    swap(&state.queue, &events)
                    let taken = (state.dropped, state.stopping, state.failure != nil)
                    state.queuedBytes = 0
                    state.dropped = 0
                    return taken
                }
                stopping = stop
                if failed {
                    // The disk refused once: what follows would be appended to a broken line.
                    state.withLockedValue { $0.droppedTotal += events.count }
                } else if !events.isEmpty || dropped > 0 {
                    if let problem = Self.writeLines(of: events, dropped: dropped, to: descriptor, through: &bytes, redacting: redaction) {
                        logger.error("recording to \(path) stopped: \(problem); \(events.count) events lost, and everything after them")
                        state.withLockedValue {
                            $0.failure = problem
                            $0.droppedTotal += events.count
                        }
                    } else {
                        state.withLockedValue { $0.written += events.count }
                    }
                }
                events.removeAll(keptCapacity: Self.keptQueueCapacity)
            }
            close(descriptor)
            finished.lock()
            finished.unlock(withValue: 1)
        }
    }

    /// Writes the lines of `events`, and a `dropped` line after them if any were dropped,
    /// a chunk at a time through `bytes`; why not, or nil.
    private static func writeLines(of events: RecorderQueue, dropped: Int, to descriptor: Int32, through bytes: inout [UInt8],
                                   redacting redaction: PayloadRedaction) -> String? {
        defer { bytes.removeAll(keepingCapacity: true) }
        let (problem, last) = events.writeLines(through: &bytes, redacting: redaction) { bytes in
            guard bytes.count >= chunkBytes else { return nil }
            defer { bytes.removeAll(keepingCapacity: true) }
            return writeAll(descriptor, bytes)
        }
        if let problem { return problem }
        if dropped > 0, !events.isEmpty {
            RecordedEvent(time: last.time, wall: last.wall, kind: .dropped(count: dropped)).appendLine(to: &bytes)
        }
        return bytes.isEmpty ? nil : writeAll(descriptor, bytes)
    }

    /// Writes every byte, through short writes and interruptions; why not, or nil.
    private static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> String? {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return String(cString: strerror(errno))
            }
            offset += written
        }
        return nil
    }

    /// The first line of a file, if it can be read (at most 4 KiB of it).
    private static func firstLine(of path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: 4096)) ?? Data()
        return String(decoding: data.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
    }

    /// Wall time now, milliseconds since 1970: the clock read directly, as this is on the
    /// device's loop for every message.
    static var wallNow: Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1000 + (Int64(now.tv_nsec) + 500_000) / 1_000_000
    }

    /// Queues a message; called on the device's loop, so it only appends.
    package func record(_ entry: JournalEntry) {
        let size = entry.envelope.payloadByteCount + 200
        let wall = Self.wallNow
        state.withLockedValue { state in
            guard state.admit(size) else { return }
            state.queue.append(entry, wall: wall)
        }
    }

    /// Queues an event; called on the device's loop, so it only appends.
    package func record(_ kind: RecordedEvent.Kind, at time: SimTime) {
        let event = RecordedEvent(time: time, wall: Self.wallNow, kind: kind)
        state.withLockedValue { state in
            guard state.admit(200) else { return }
            state.queue.append(event)
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

    /// ``stop()`` without holding a thread of the caller's pool while the writer finishes.
    package func stopped() async -> Status {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: self.stop()) }
            thread.start()
        }
    }

    package var status: Status {
        state.withLockedValue { Status(path: path, events: $0.written, dropped: $0.droppedTotal, failure: $0.failure) }
    }
}

package struct RecorderError: Error, Sendable, CustomStringConvertible {
    package enum Kind: Sendable { case exists, busy, cannotWrite }
    package var path: String
    package var reason: String
    package var kind: Kind
    package var description: String { "cannot record to \(path): \(reason)" }
}

extension Recorder {
    /// What a piece of news other than a message (queued as the journal's entry, by
    /// ``record(_:)``) is in a recording, if anything; `scenario`: what the device runs, for
    /// a reset. Connections' opening and closing come as their own news (with the peer and
    /// how it ended), not as the device's events.
    static func kind(of news: SimulatorNews, now: SimTime, scenario: () -> JSONValue?) -> (RecordedEvent.Kind, SimTime)? {
        switch news {
        case .message: nil
        case .event(let event):
            switch event.kind {
            case .faultApplied(let fault): (.fault(fault), event.time)
            case .streaming(let streaming): (.streaming(streaming.json), event.time)
            default: nil
            }
        case .clock(let time, let from): (.clock(to: time), from)
        case .reset: (.reset(scenario: scenario()), .zero)
        case .connected(let id, let peer, let time): (.connected(id, peer: peer), time)
        case .disconnected(let id, let how, let time): (.disconnected(id, how: how), time)
        case .input(let action, let time): (.input(action), time)
        case .upstream(let id, let connected, let reason): (.upstream(id, connected: connected, reason: reason), now)
        // The journal's late note on a message a rule held back: the recording has the message.
        // Discovery follows the advertisement changes the recording has as faults and inputs.
        case .unhandled, .discovery: nil
        }
    }
}

extension DeviceRunner {
    /// The header of a recording of this device, starting now.
    package func recordingHeader(host: String?, castPort: Int?, version: String = CastsimVersion.current) -> RecordingHeader {
        RecordingHeader(castsim: version, recordedAt: Recorder.wallNow, source: .device, device: session.scenario.device.identity,
                        host: host, castPort: castPort, clock: clockReading.mode,
                        scenario: session.scenario.source ?? ["name": .string(session.scenario.name), "device": session.scenario.device.scenarioJSON])
    }

    /// Hands everything that happens from now on to `recorder`; returns the subscription.
    /// Connections already open are recorded as opening now, so the recording has every
    /// connection its messages name.
    package func feed(_ recorder: Recorder) -> Int {
        for (id, peer) in openConnections { recorder.record(.connected(id, peer: peer), at: now) }
        return subscribe { [unowned self] news in
            if case .message(let entry) = news { return recorder.record(entry) }  // the most of what comes
            guard let (kind, time) = Recorder.kind(of: news, now: now, scenario: { self.session.scenario.source }) else { return }
            recorder.record(kind, at: time)
        }
    }
}
