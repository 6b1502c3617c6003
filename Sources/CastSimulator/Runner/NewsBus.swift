/// The one line news of a device travels on: whoever wants to know what happens
/// subscribes, and hears everything, in order, on the device's loop. A subscriber must not
/// take long: the device waits for it.
final class NewsBus {
    private var subscribers: [(id: Int, hear: (SimulatorNews) -> Void)] = []
    private var lastId = 0

    /// Adds a subscriber; returns what removes it.
    func subscribe(_ hear: @escaping (SimulatorNews) -> Void) -> Int {
        lastId += 1
        subscribers.append((lastId, hear))
        return lastId
    }

    func unsubscribe(_ id: Int) {
        subscribers.removeAll { $0.id == id }
    }

    var count: Int { subscribers.count }

    func publish(_ news: SimulatorNews) {
        for subscriber in subscribers { subscriber.hear(news) }
    }
}
