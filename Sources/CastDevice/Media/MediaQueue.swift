import CastWire

/// The ordered items of a media session, with receiver-assigned ids, the repeat mode and
/// the `sequenceNumber` that every queue change increases.
public struct MediaQueue: Sendable, Equatable {

    public private(set) var items: [QueueItem] = []
    public var repeatMode: RepeatMode = .off
    /// Increases with every change of the queue's items or order.
    public private(set) var sequenceNumber = 0
    /// `queueData` of the load, echoed in MEDIA_STATUS (without its items).
    public var queueData: JSONValue?
    /// Ids are unique for the life of the queue: removed ids are never reused.
    private var lastItemId = 0

    public var itemIds: [Int] { items.map(\.itemId) }

    public func index(of itemId: Int) -> Int? { items.firstIndex { $0.itemId == itemId } }

    public func item(_ itemId: Int) -> QueueItem? { items.first { $0.itemId == itemId } }

    /// Assigns ids to `newItems` and inserts them before `insertBefore` (appends when nil).
    @discardableResult
    mutating func insert(_ newItems: [QueueItem], before insertBefore: Int?) -> [Int] {
        var assigned = newItems
        for index in assigned.indices {
            lastItemId += 1
            assigned[index].itemId = lastItemId
        }
        let position = insertBefore.flatMap(index(of:)) ?? items.count
        items.insert(contentsOf: assigned, at: position)
        sequenceNumber += 1
        return assigned.map(\.itemId)
    }

    /// Removes the listed items; returns the ids actually removed, in queue order.
    mutating func remove(_ itemIds: [Int]) -> [Int] {
        let removing = Set(itemIds)
        let removed = items.filter { removing.contains($0.itemId) }.map(\.itemId)
        guard !removed.isEmpty else { return [] }
        items.removeAll { removing.contains($0.itemId) }
        sequenceNumber += 1
        return removed
    }

    /// Moves `itemIds`, in that order, before `insertBefore` (to the end when nil).
    mutating func reorder(_ itemIds: [Int], before insertBefore: Int?) {
        let moving = itemIds.compactMap(item)
        let movingIds = Set(itemIds)
        var rest = items.filter { !movingIds.contains($0.itemId) }
        let position = insertBefore.flatMap { anchor in rest.firstIndex { $0.itemId == anchor } } ?? rest.count
        rest.insert(contentsOf: moving, at: position)
        items = rest
        sequenceNumber += 1
    }

    /// Replaces the content of existing items (QUEUE_UPDATE `items`), keeping their ids and order.
    mutating func update(_ updated: [QueueItem]) -> [Int] {
        var changed: [Int] = []
        for item in updated {
            guard let position = index(of: item.itemId) else { continue }
            items[position] = item
            changed.append(item.itemId)
        }
        if !changed.isEmpty { sequenceNumber += 1 }
        return changed
    }

    /// Shuffles the order with the device's deterministic generator.
    mutating func shuffle(using generator: inout IdentifierGenerator) {
        guard items.count > 1 else { return }
        // Fisher–Yates with our own generator, so replays shuffle identically.
        for index in stride(from: items.count - 1, to: 0, by: -1) {
            let other = Int(generator.next() % UInt64(index + 1))
            items.swapAt(index, other)
        }
        sequenceNumber += 1
    }

    /// Swaps in a new version of an item (same id), without counting it as a queue change.
    mutating func replaceItem(_ item: QueueItem) {
        if let position = index(of: item.itemId) { items[position] = item }
    }

    /// A queue over `newItems`, ids from 1: a fresh queue, so its sequence starts at 0.
    init(items newItems: [QueueItem], repeatMode: RepeatMode, queueData: JSONValue?) {
        self.repeatMode = repeatMode
        self.queueData = queueData
        items = newItems
        for index in items.indices {
            lastItemId += 1
            items[index].itemId = lastItemId
        }
    }

    /// The item `offset` places from `itemId`, wrapping when the repeat mode does;
    /// nil past either end otherwise.
    func item(from itemId: Int, offset: Int) -> QueueItem? {
        guard let position = index(of: itemId), !items.isEmpty else { return nil }
        var target = position + offset
        if repeatMode.wraps {
            target = ((target % items.count) + items.count) % items.count
        }
        guard items.indices.contains(target) else { return nil }
        return items[target]
    }

    func hasNext(after itemId: Int) -> Bool { items.count > 1 && item(from: itemId, offset: 1) != nil }

    func hasPrevious(before itemId: Int) -> Bool { items.count > 1 && item(from: itemId, offset: -1) != nil }
}
