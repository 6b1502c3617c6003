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
/// The device's loop only appends each event, as a value, to a batch of its own, with no
/// lock (``RecorderBatch``), and hands a full batch over; a thread of the recorder's own
/// encodes and writes what was handed over every ``flushInterval``. So the device never
/// waits for the disk, and a process killed loses at most the last tenth of a second.
/// The loop's part is kept to the least there is: a message goes in as the journal's entry
/// (its text shared, not copied) with the wall clock's reading. A busy device's loop is
/// what its senders wait on, and each microsecond it spends here cost it 2 to 3 more in a
/// busy run (measured: encoding the lines on the loop, in chunks for the writer, cost the
/// process 1.8 µs a request more than this, though the writer's share fell by 1 µs).
package final class Recorder: Sendable {
    /// How often, in seconds, the writer empties the queue, and the loop hands over a batch
    /// that is not full: often enough that what the writer reads is still in a cache (every
    /// 250 ms, its share was a quarter more at 10 busy senders).
    static let flushInterval = 0.05
    /// Events the device's loop gathers before it hands them over: one lock a batch, where
    /// one a message was a third of what feeding the recorder cost the loop in perf.
    static let batchSize = 256
    /// Emptied batches kept for the loop to fill again (a busy device's pass is some 12).
    static let keptSpares = 64
    /// What the queue holds before it drops the newest (and says so in the recording): a
    /// disk that stalls costs a bounded amount of memory, never the device's time.
    static let queueLimit = 100_000
    static let queueByteLimit = 64 * 1024 * 1024
    /// What the writer gathers before a write.
    static let chunkBytes = 256 * 1024

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
        /// The batches handed over since the writer's last pass, in order.
        var batches: [RecorderQueue] = []
        /// Batches the writer emptied, for the loop to fill again: their storage is reused.
        var spares: [RecorderQueue] = []
        var queuedEvents = 0
        var queuedBytes = 0
        /// Dropped since the last `dropped` line.
        var dropped = 0
        var droppedTotal = 0
        var written = 0
        var stopping = false
        var failure: String?

        /// Whether `count` events of about `size` bytes may join the queue; counts them
        /// dropped if not.
        mutating func admit(_ count: Int, size: Int) -> Bool {
            guard !stopping else { return false }
            guard queuedEvents + count <= Recorder.queueLimit, queuedBytes + size <= Recorder.queueByteLimit else {
                dropped += count
                droppedTotal += count
                return false
            }
            queuedEvents += count
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
            var batches: [RecorderQueue] = []
            var lines = RecordingLineWriter()
            while !stopping {
                if wake.lock(whenValue: 1, timeoutSeconds: Self.flushInterval) { wake.unlock() }
                let (dropped, stop, failed) = state.withLockedValue { state in
                    swap(&state.batches, &batches)
                    let taken = (state.dropped, state.stopping, state.failure != nil)
                    state.queuedEvents = 0
                    state.queuedBytes = 0
                    state.dropped = 0
                    return taken
                }
                stopping = stop
                let count = batches.reduce(0) { $0 + $1.count }
                if failed {
                    // The disk refused once: what follows would be appended to a broken line.
                    state.withLockedValue { $0.droppedTotal += count }
                } else if count > 0 || dropped > 0 {
                    if let problem = Self.writeLines(of: batches, dropped: dropped, to: descriptor, through: &bytes, with: &lines,
                                                  redacting: redaction) {
                        logger.error("recording to \(path) stopped: \(problem); \(count) events lost, and everything after them")
                        state.withLockedValue {
                            $0.failure = problem
                            $0.droppedTotal += count
                        }
                    } else {
                        state.withLockedValue { $0.written += count }
                    }
                }
                // Emptied here, off the device's loop, and given back for it to fill again.
                for index in batches.indices { batches[index].removeAll(keptCapacity: 2 * Self.batchSize) }
                state.withLockedValue { state in
                    while state.spares.count < Self.keptSpares, let batch = batches.popLast() { state.spares.append(batch) }
                }
                batches.removeAll(keepingCapacity: true)
            }
            close(descriptor)
            finished.lock()
            finished.unlock(withValue: 1)
        }
    }

    /// Takes a batch of events from the device's loop (``RecorderBatch``), about `size`
    /// bytes; leaves `batch` empty for the loop to fill next. The whole batch is dropped,
    /// and counted so, when the queue is full.
    func take(_ batch: inout RecorderQueue, size: Int) {
        let taken = state.withLockedValue { state -> Bool in
            guard state.admit(batch.count, size: size) else { return false }
            var next = state.spares.popLast() ?? RecorderQueue(capacity: Self.batchSize)
            swap(&next, &batch)
            state.batches.append(next)
            return true
        }
        if !taken { batch.removeAll(keptCapacity: 2 * Self.batchSize) }
    }

    /// Writes the lines of `batches` (messages' through `lines`, kept for the recording), and
    /// a `dropped` line after them if any were dropped, a chunk at a time through `bytes`;
    /// why not, or nil.
    private static func writeLines(of batches: [RecorderQueue], dropped: Int, to descriptor: Int32, through bytes: inout [UInt8],
                                   with lines: inout RecordingLineWriter, redacting redaction: PayloadRedaction) -> String? {
        defer { bytes.removeAll(keepingCapacity: true) }
        var last: (time: SimTime, wall: Int64)?
        for batch in batches where !batch.isEmpty {
            let (problem, batchLast) = batch.writeLines(through: &bytes, with: &lines, redacting: redaction) { bytes in
                guard bytes.count >= chunkBytes else { return nil }
                defer { bytes.removeAll(keepingCapacity: true) }
                return writeAll(descriptor, bytes)
            }
            if let problem { return problem }
            last = batchLast
        }
        if dropped > 0, let last {
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
}
