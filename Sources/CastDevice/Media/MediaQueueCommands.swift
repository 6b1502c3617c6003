import CastWire

// The queue requests of §6.2: QUEUE_INSERT, QUEUE_UPDATE, QUEUE_REMOVE, QUEUE_REORDER,
// QUEUE_NEXT / QUEUE_PREV, QUEUE_SHUFFLE and the three queue queries.
//
// Every mutation is broadcast as QUEUE_CHANGE (with the new sequenceNumber) and completes
// with a MEDIA_STATUS carrying the request's id: the Android SDK completes queue requests
// only on that MEDIA_STATUS.

extension SimulatedDevice {
    mutating func handleQueueInsert(_ request: Request) throws(MediaRequestError) {
        var session = try addressedSession(request)
        guard let itemsJSON = request["items"] else { throw .invalidParams("QUEUE_INSERT without items") }
        let newItems = try params { () throws(InvalidParams) in try decodeItems(itemsJSON, path: "items", allowItemId: false) }
        guard !newItems.isEmpty else { throw .invalidParams("items: nothing to insert") }
        let (insertBefore, currentItemIndex, currentItemId, currentTime) = try params { () throws(InvalidParams) in
            (try request.int("insertBefore"), try request.int("currentItemIndex"), try request.int("currentItemId"),
             try request.double("currentTime"))
        }
        if let insertBefore, session.queue.index(of: insertBefore) == nil {
            throw .invalidParams("insertBefore: no item with itemId \(insertBefore)")
        }
        if let currentItemIndex, !newItems.indices.contains(currentItemIndex) {
            throw .invalidParams("currentItemIndex: \(currentItemIndex) is outside the \(newItems.count) inserted items")
        }
        if let currentItemId, session.queue.index(of: currentItemId) == nil {
            throw .invalidParams("currentItemId: no item with itemId \(currentItemId)")
        }
        let ids = session.queue.insert(newItems, before: insertBefore)
        broadcastQueueChange(session, "INSERT", itemIds: ids, insertBefore: insertBefore)
        // currentItemIndex points into the inserted items; currentItemId at an existing one.
        let target = currentItemIndex.map { ids[$0] } ?? currentItemId
        finishQueueCommand(request, session: &session, jumpTo: target, position: currentTime)
    }

    mutating func handleQueueUpdate(_ request: Request) throws(MediaRequestError) {
        var session = try addressedSession(request)
        let (currentItemId, jump, currentTime, shuffle) = try params { () throws(InvalidParams) in
            (try request.int("currentItemId"), try request.int("jump"), try request.double("currentTime"),
             try request["shuffle"].map { value throws(InvalidParams) in
                 guard let flag = value.boolValue else { throw InvalidParams("shuffle: expected a boolean, got \(value.typeName)") }
                 return flag
             })
        }
        let repeatMode = try params { () throws(InvalidParams) in
            try request["repeatMode"].map { json throws(InvalidParams) in try RepeatMode(json: json, path: "repeatMode") }
        }
        let updates = try params { () throws(InvalidParams) in
            try request["items"].map { json throws(InvalidParams) in try decodeItems(json, path: "items", allowItemId: true) }
        }
        if let currentItemId, session.queue.index(of: currentItemId) == nil {
            throw .invalidParams("currentItemId: no item with itemId \(currentItemId)")
        }
        // Check everything before changing anything: a failed request leaves the state alone.
        var updatedItems: [QueueItem] = []
        if let updates, let array = request["items"]?.arrayValue {
            for (index, item) in updates.enumerated() {
                guard let id = array[index]["itemId"]?.intValue, session.queue.index(of: id) != nil else {
                    throw .invalidParams("items[\(index)].itemId: must name an item of the queue")
                }
                var updated = item
                updated.itemId = id
                updatedItems.append(updated)
            }
        }
        var probe = session.queue
        if let repeatMode { probe.repeatMode = repeatMode }
        var target = currentItemId
        if let jump, jump != 0 {
            guard let item = probe.item(from: currentItemId ?? session.currentItemId, offset: jump) else {
                throw .invalidRequest(reason: "END_OF_QUEUE",
                                      detail: "jump \(jump) from item \(session.currentItemId) leaves the queue (\(probe.repeatMode.rawValue))")
            }
            target = item.itemId
        }

        if !updatedItems.isEmpty {
            let changed = session.queue.update(updatedItems)
            broadcastQueueChange(session, "ITEMS_CHANGE", itemIds: changed)
        }
        if let repeatMode { session.queue.repeatMode = repeatMode }
        if shuffle == true {
            session.queue.shuffle(using: &ids)
            broadcastQueueChange(session, "UPDATE", itemIds: session.queue.itemIds)
        }
        if target == nil, let currentTime, session.pendingLoad == nil {
            // A position in the current item, like a SEEK that keeps the player state.
            session.clock.seek(to: session.clampedPosition(currentTime, at: now), at: now)
            session.preloadedItemId = nil
        }
        finishQueueCommand(request, session: &session, jumpTo: target, position: currentTime)
    }

    mutating func handleQueueJump(_ request: Request, by offset: Int) throws(MediaRequestError) {
        var session = try addressedSession(request)
        guard let item = session.queue.item(from: session.currentItemId, offset: offset) else {
            throw .invalidRequest(reason: "END_OF_QUEUE",
                                  detail: "no item \(offset > 0 ? "after" : "before") \(session.currentItemId) (\(session.repeatMode.rawValue))")
        }
        finishQueueCommand(request, session: &session, jumpTo: item.itemId, position: nil)
    }

    mutating func handleQueueRemove(_ request: Request) throws(MediaRequestError) {
        var session = try addressedSession(request)
        let (itemIds, currentItemId, currentTime) = try params { () throws(InvalidParams) in
            (try request.intArray("itemIds"), try request.int("currentItemId"), try request.double("currentTime"))
        }
        guard let itemIds, !itemIds.isEmpty else { throw .invalidParams("QUEUE_REMOVE needs itemIds") }
        for id in itemIds where session.queue.index(of: id) == nil {
            throw .invalidParams("itemIds: no item with itemId \(id)")
        }
        if let currentItemId, session.queue.index(of: currentItemId) == nil || itemIds.contains(currentItemId) {
            throw .invalidParams("currentItemId: \(currentItemId) is not an item that stays in the queue")
        }
        // Where playback goes if the current item is removed: the first surviving item after it.
        let removing = Set(itemIds)
        let order = session.queue.itemIds
        let currentIndex = session.queue.index(of: session.currentItemId) ?? 0
        let successor = (order[currentIndex...].dropFirst() + order[..<currentIndex]).first { !removing.contains($0) }
        let removed = session.queue.remove(itemIds)
        broadcastQueueChange(session, "REMOVE", itemIds: removed)
        guard !session.items.isEmpty else {
            // Removing every item ends the session.
            mediaSession = session
            endCurrentSession(reason: .cancelled, requestId: request.requestId)
            return
        }
        let target = currentItemId ?? (removing.contains(session.currentItemId) ? successor : nil)
        finishQueueCommand(request, session: &session, jumpTo: target, position: currentTime)
    }

    mutating func handleQueueReorder(_ request: Request) throws(MediaRequestError) {
        var session = try addressedSession(request)
        let (itemIds, insertBefore, currentItemId, currentTime) = try params { () throws(InvalidParams) in
            (try request.intArray("itemIds"), try request.int("insertBefore"), try request.int("currentItemId"),
             try request.double("currentTime"))
        }
        guard let itemIds, !itemIds.isEmpty else { throw .invalidParams("QUEUE_REORDER needs itemIds") }
        guard Set(itemIds).count == itemIds.count else { throw .invalidParams("itemIds: an item is listed twice") }
        for id in itemIds where session.queue.index(of: id) == nil {
            throw .invalidParams("itemIds: no item with itemId \(id)")
        }
        if let insertBefore, session.queue.index(of: insertBefore) == nil || itemIds.contains(insertBefore) {
            throw .invalidParams("insertBefore: \(insertBefore) must be a queue item that is not being moved")
        }
        if let currentItemId, session.queue.index(of: currentItemId) == nil {
            throw .invalidParams("currentItemId: no item with itemId \(currentItemId)")
        }
        session.queue.reorder(itemIds, before: insertBefore)
        // UPDATE carries the whole new order; reorderItemIds the items that moved.
        broadcastQueueChange(session, "UPDATE", itemIds: session.queue.itemIds, reorderItemIds: itemIds)
        finishQueueCommand(request, session: &session, jumpTo: currentItemId, position: currentTime)
    }

    mutating func handleQueueShuffle(_ request: Request) throws(MediaRequestError) {
        var session = try addressedSession(request)
        session.queue.shuffle(using: &ids)
        broadcastQueueChange(session, "UPDATE", itemIds: session.queue.itemIds)
        finishQueueCommand(request, session: &session, jumpTo: nil, position: nil)
    }

    /// Completes a queue command: jumps if asked (the status that answers the request
    /// then comes when the item has loaded), otherwise answers at once with the new items.
    private mutating func finishQueueCommand(_ request: Request, session: inout MediaSession, jumpTo target: Int?,
                                             position: Double?) {
        if let target, let item = session.queue.item(target) {
            cancelPendingLoad(of: session)
            beginLoad(of: item, in: &session, requester: Requester(request), autoplay: item.autoplay,
                      position: position, initial: false)
            mediaSession = session
            if session.pendingLoad?.readyAt == now {
                completeDueLoad()
            } else {
                broadcastMediaStatus(session, requestId: 0, parts: [.items])
            }
            return
        }
        mediaSession = session
        broadcastMediaStatus(session, requestId: request.requestId, parts: [.items])
    }

    // MARK: Queries

    mutating func handleQueueGetItemIds(_ request: Request) throws(MediaRequestError) {
        let session = try addressedSession(request)
        reply(to: request.envelope, on: request.connection, [
            "type": "QUEUE_ITEM_IDS", "requestId": .number(Double(request.requestId)),
            "itemIds": .array(session.queue.itemIds.map { .number(Double($0)) }),
            "sequenceNumber": .number(Double(session.queue.sequenceNumber)),
        ])
    }

    mutating func handleQueueGetItems(_ request: Request) throws(MediaRequestError) {
        let session = try addressedSession(request)
        guard let itemIds = try params({ () throws(InvalidParams) in try request.intArray("itemIds") }) else {
            throw .invalidParams("QUEUE_GET_ITEMS needs itemIds")
        }
        // Unknown ids are left out; as many items as fit in one message.
        var items = itemIds.compactMap(session.queue.item).map(\.json)
        func message(_ items: [JSONValue]) -> JSONValue {
            ["type": "QUEUE_ITEMS", "requestId": .number(Double(request.requestId)), "items": .array(items),
             "sequenceNumber": .number(Double(session.queue.sequenceNumber))]
        }
        while items.count > 1, message(items).jsonText().utf8.count > Self.maxPayloadBytes { items.removeLast() }
        reply(to: request.envelope, on: request.connection, message(items))
    }

    mutating func handleQueueGetItemRange(_ request: Request) throws(MediaRequestError) {
        let session = try addressedSession(request)
        let (itemId, nextCount, prevCount) = try params { () throws(InvalidParams) in
            (try request.int("itemId"), try request.int("nextCount") ?? 0, try request.int("prevCount") ?? 0)
        }
        guard let itemId, let position = session.queue.index(of: itemId) else {
            throw .invalidParams("itemId: must name an item of the queue")
        }
        guard (nextCount > 0) != (prevCount > 0), nextCount >= 0, prevCount >= 0 else {
            throw .invalidParams("exactly one of nextCount and prevCount must be > 0")
        }
        let order = session.queue.itemIds
        let range = nextCount > 0
            ? Array(order[(position + 1)...].prefix(nextCount))
            : Array(order[..<position].suffix(prevCount))
        // Answered as a QUEUE_CHANGE with the requestId (the Android SDK resolves it so).
        reply(to: request.envelope, on: request.connection,
              queueChangeMessage(session, "NO_CHANGE", itemIds: range, requestId: request.requestId))
    }
}
