import CastDevice
import CastWire

/// The connections a journal entry names: the sender of an inbound message, or every
/// connection an outbound one was written to.
///
/// Nearly every entry names one connection, and a journal keeps ten thousand of them: one
/// is held inline, so it costs neither an array (48 bytes on the heap) nor the allocation
/// for each message a sender sends.
public struct ConnectionList: RandomAccessCollection, Sendable, Hashable, ExpressibleByArrayLiteral, CustomStringConvertible {
    private enum Storage: Sendable, Hashable {
        case one(ConnectionID)
        case many([ConnectionID])
    }

    private var storage: Storage

    public init(_ connection: ConnectionID) { storage = .one(connection) }

    /// A list of one keeps it inline, so the array the device made can go.
    public init(_ connections: [ConnectionID]) {
        storage = connections.count == 1 ? .one(connections[0]) : .many(connections)
    }

    public init(arrayLiteral connections: ConnectionID...) { self.init(connections) }

    public var startIndex: Int { 0 }

    public var endIndex: Int {
        switch storage {
        case .one: 1
        case .many(let connections): connections.count
        }
    }

    public subscript(position: Int) -> ConnectionID {
        switch storage {
        case .one(let connection):
            precondition(position == 0, "ConnectionList index out of range")
            return connection
        case .many(let connections): return connections[position]
        }
    }

    public var description: String { Array(self).description }

    /// The ids as a JSON array, as their ``JSONValue`` array writes them (`[1,2]`): for the
    /// writers that put a journal entry or a recorded message straight into bytes.
    package func writeJSON(to output: inout [UInt8]) {
        output.append(UInt8(ascii: "["))
        for (index, connection) in enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            JSONValue.writeNumber(Double(connection.rawValue), to: &output)
        }
        output.append(UInt8(ascii: "]"))
    }

    /// What the list keeps on the heap: nothing for one connection, held inline.
    var heapBytes: Int {
        switch storage {
        case .one: 0
        case .many(let connections): connections.count * MemoryLayout<ConnectionID>.stride
        }
    }
}
