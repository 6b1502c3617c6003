import CastDevice
import CastScenario
import NIOCore
import NIOPosix

/// The device's side of its sender connections: each one's write queue, with what a
/// sender has not read yet counted against a limit, written replies flushed once per batch,
/// and how each close came about. Used on the device's loop only.
final class ConnectionWriter {
    private(set) var sinks: [ConnectionID: ConnectionSink] = [:]
    /// Connections the device side is closing, and how, for the news of their end.
    private var closing: [ConnectionID: ConnectionEnding] = [:]
    /// Connections written to since the last flush.
    private var unflushed: [ConnectionSink] = []
    /// Bytes a sender may leave unread before it is dropped.
    let queueLimit: Int

    init(queueLimit: Int) { self.queueLimit = queueLimit }

    func add(_ id: ConnectionID, channel: any Channel) {
        sinks[id] = ConnectionSink(channel: channel)
    }

    /// A connection's channel is gone: forgets it, and says how it ended (the device's own
    /// closes are known here and win over what the channel saw). nil: it was forgotten before.
    func remove(_ id: ConnectionID, seen how: ConnectionEnding) -> ConnectionEnding? {
        guard sinks.removeValue(forKey: id) != nil else { return nil }
        return closing.removeValue(forKey: id) ?? how
    }

    /// Notes that the device is ending `id`, unless an ending was noted already.
    func noteEnding(_ id: ConnectionID, _ ending: ConnectionEnding) {
        if sinks[id] != nil, closing[id] == nil { closing[id] = ending }
    }

    /// Queues a frame for `id`, to be flushed with the batch; false when the sender has
    /// left more than ``queueLimit`` unread and must be dropped (nothing is queued then).
    func write(_ frame: ByteBuffer, to id: ConnectionID) -> Bool {
        guard let sink = sinks[id] else { return true }
        guard sink.admits(frame.readableBytes, limit: queueLimit) else { return false }
        enqueue(frame, on: sink)
        return true
    }

    func enqueue(_ frame: ByteBuffer, on sink: ConnectionSink) {
        if sink.enqueue(frame) { unflushed.append(sink) }
    }

    func flushWrites() {
        // Flushing can call back in (a sender reading again hands over its held messages),
        // so the list is taken before any of it is flushed.
        while !unflushed.isEmpty {
            let sinks = unflushed
            unflushed.removeAll(keepingCapacity: true)
            for sink in sinks { sink.flush() }
        }
    }

    /// Closes `id` from the device's side, after what was written to it: at once, without
    /// the TLS goodbye (``Channel/drop()``). The news of its end says `ending`.
    func drop(_ id: ConnectionID, as ending: ConnectionEnding) {
        guard let sink = sinks[id] else { return }
        noteEnding(id, ending)
        sink.flush()
        sink.channel.drop()
    }

    /// Drops `id` and forgets it now (a reset; a sender that is not reading, whose unread
    /// replies are not flushed): no news comes of it later.
    func evict(_ id: ConnectionID, flushing: Bool) {
        guard let sink = sinks.removeValue(forKey: id) else { return }
        closing[id] = nil
        if flushing { sink.flush() }
        sink.channel.drop()
    }

    /// A scenario's close: clean (TLS close_notify, then FIN), or a TCP reset.
    func close(_ id: ConnectionID, reset: Bool) {
        guard let sink = sinks[id] else { return }
        closing[id] = .device
        sink.flush()
        if reset, let socket = sink.channel as? any SocketOptionProvider {
            // SO_LINGER 0: close() sends RST instead of FIN; a reset is abrupt, so
            // without the TLS close_notify either.
            let channel = sink.channel
            socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.drop() }
        } else {
            sink.channel.close(promise: nil)
        }
    }

    /// Drops and forgets every connection (a reset); returns their ids.
    func evictAll() -> [ConnectionID] {
        let ids = sinks.keys.sorted()
        for id in ids { evict(id, flushing: true) }
        unflushed.removeAll()
        return ids
    }

    /// Drops every connection, after what was written to each (the device stopping, or
    /// moving); each one's end is news as its channel goes.
    func dropAll(as ending: ConnectionEnding) {
        for id in sinks.keys.sorted() { drop(id, as: ending) }
    }
}

/// One connection's write side: the frames of the batch not flushed yet, and what the
/// channel holds that the socket has not taken.
///
/// A batch's frames are held until its flush and go down the pipeline then: the one frame
/// a batch nearly always has in one `writeAndFlush` (a pass through the handlers, not a
/// `write` and a `flush`: a broadcast to a thousand senders makes a thousand of each).
///
/// What the socket has not taken is the channel's own count, asked only when it may
/// matter: while the channel is writable it holds less than its high water mark, so a
/// frame that keeps the batch under the limit less that mark needs no question. Counting
/// it here instead took a promise and a callback per batch, some 0.5 µs a reply.
final class ConnectionSink {
    let channel: any Channel
    /// The batch's first frame, and any after it: nearly every batch has one, held without
    /// an array (an idle sender's sink keeps no storage).
    private var first: ByteBuffer?
    private var more: [ByteBuffer] = []
    private var batchBytes = 0

    /// The most a writable channel holds unsent: the high water mark that Cast connections
    /// and upstream links share.
    static let writableHolds = CastConnectionHandler.writeBufferWaterMark.high

    init(channel: any Channel) { self.channel = channel }

    /// Bytes handed to the sink that the socket has not taken yet: the batch, and what
    /// the channel buffers (TLS records, a little more than the frames in them).
    var queuedBytes: Int {
        let buffered = (try? channel.syncOptions?.getOption(.bufferedWritableBytes)) ?? 0
        return batchBytes + buffered
    }

    /// Whether `size` more bytes keep ``queuedBytes`` within `limit`.
    func admits(_ size: Int, limit: Int) -> Bool {
        if batchBytes + size + Self.writableHolds <= limit, channel.isWritable { return true }
        return queuedBytes + size <= limit
    }

    /// Takes a frame, to be written with the next flush; true when the sink was clean until now.
    func enqueue(_ frame: ByteBuffer) -> Bool {
        batchBytes += frame.readableBytes
        guard first == nil else {
            more.append(frame)
            return false
        }
        first = frame
        return true
    }

    func flush() {
        guard let first else { return }
        self.first = nil
        batchBytes = 0
        guard !more.isEmpty else {
            channel.writeAndFlush(first, promise: nil)
            return
        }
        // Taken before writing: a write can call back in (a writability change lets a
        // sender's held messages through), and what that adds is the next batch.
        var rest = more
        more = []
        let last = rest.removeLast()
        channel.write(first, promise: nil)
        for frame in rest { channel.write(frame, promise: nil) }
        channel.writeAndFlush(last, promise: nil)
    }
}

extension RawFrame {
    /// Bytes of a frame no sender should have to accept.
    var bytes: ByteBuffer {
        var buffer = ByteBuffer()
        switch self {
        case .malformed:
            // A correct length, then a body that is no protobuf.
            buffer.writeInteger(UInt32(16), endianness: .big)
            buffer.writeBytes([UInt8](repeating: 0xFF, count: 16))
        case .oversized:
            // A length far over the 64 KiB limit, then the start of a body.
            buffer.writeInteger(UInt32(1 << 20), endianness: .big)
            buffer.writeBytes([UInt8](repeating: 0x08, count: 64))
        }
        return buffer
    }
}
