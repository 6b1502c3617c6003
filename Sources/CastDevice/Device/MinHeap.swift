/// A binary min-heap: the earliest of many deadlines in O(1), a push or a pop in
/// O(log n). Deliberately small; the device core depends on nothing but CastWire.
struct MinHeap<Element: Comparable & Sendable>: Sendable {
    private var storage: [Element] = []

    var min: Element? { storage.first }
    var count: Int { storage.count }
    var isEmpty: Bool { storage.isEmpty }

    mutating func push(_ element: Element) {
        storage.append(element)
        var child = storage.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard storage[child] < storage[parent] else { break }
            storage.swapAt(child, parent)
            child = parent
        }
    }

    @discardableResult
    mutating func popMin() -> Element? {
        guard !storage.isEmpty else { return nil }
        storage.swapAt(0, storage.count - 1)
        let smallest = storage.removeLast()
        siftDown(from: 0)
        return smallest
    }

    mutating func removeAll() { storage.removeAll() }

    /// Drops the elements `shouldBeRemoved` picks, in O(n).
    mutating func removeAll(where shouldBeRemoved: (Element) -> Bool) {
        storage.removeAll(where: shouldBeRemoved)
        for parent in stride(from: storage.count / 2 - 1, through: 0, by: -1) { siftDown(from: parent) }
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < storage.count else { return }
            let right = left + 1
            let child = right < storage.count && storage[right] < storage[left] ? right : left
            guard storage[child] < storage[parent] else { return }
            storage.swapAt(child, parent)
            parent = child
        }
    }
}
