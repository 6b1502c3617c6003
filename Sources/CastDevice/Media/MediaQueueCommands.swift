import CastWire

// The queue requests of docs/protocol/media.md §2.1: QUEUE_INSERT, QUEUE_UPDATE, QUEUE_REMOVE,
// QUEUE_REORDER, QUEUE_NEXT / QUEUE_PREV, QUEUE_SHUFFLE and the three queue queries.
//
// Every mutation is broadcast as QUEUE_CHANGE (with the new sequenceNumber) and completes
// with a MEDIA_STATUS carrying the request's id: the Android SDK completes queue requests
// only on that MEDIA_STATUS.

extension MediaReceiver {
    mutating func queueInsert(_ insert: QueueInsertRequest, _ command: MediaCommand, from requester: Requester,
                              context: inout AppContext) throws(RequestRejection) {
        var session = try addressedSession(command)
        if let insertBefore = insert.insertBefore, session.queue.index(of: insertBefore) == nil {
            throw .invalidParams("insertBefore: no item with itemId \(insertBefore)")
        }
        if let currentItemId = insert.currentItemId, session.queue.index(of: currentItemId) == nil {
            throw .invalidParams("currentItemId: no item with itemId \(currentItemId)")
        }
        let ids = session.queue.insert(insert.items, before: insert.insertBefore)
        broadcastQueueChange(session, "INSERT", itemIds: ids, insertBefore: insert.insertBefore, context: &context)
        // currentItemIndex points into the inserted items; currentItemId at an existing one.
        let target = insert.currentItemIndex.map { ids[$0] } ?? insert.currentItemId
        finishQueueCommand(requester, session: session, jumpTo: target, position: insert.currentTime, context: &context)
    }

    mutating func queueUpdate(_ update: QueueUpdateRequest, _ command: MediaCommand, from requester: Requester,
                              context: inout AppContext) throws(RequestRejection) {
        var session = try addressedSession(command)
        if let currentItemId = update.currentItemId, session.queue.index(of: currentItemId) == nil {
            throw .invalidParams("currentItemId: no item with itemId \(currentItemId)")
        }
        // Check everything before changing anything: a failed request leaves the state alone.
        for (index, item) in (update.items ?? []).enumerated() where session.queue.index(of: item.itemId) == nil {
            throw .invalidParams("items[\(index)].itemId: must name an item of the queue")
        }
        var probe = session.queue
        if let repeatMode = update.repeatMode { probe.repeatMode = repeatMode }
        var target = update.currentItemId
        if let jump = update.jump, jump != 0 {
            guard let item = probe.item(from: update.currentItemId ?? session.currentItemId, offset: jump) else {
                throw .invalidRequest(.endOfQueue,
                                      "jump \(jump) from item \(session.currentItemId) leaves the queue (\(probe.repeatMode.rawValue))")
            }
            target = item.itemId
        }

        if let items = update.items, !items.isEmpty {
            let changed = session.queue.update(items)
            broadcastQueueChange(session, "ITEMS_CHANGE", itemIds: changed, context: &context)
        }
        if let repeatMode = update.repeatMode { session.queue.repeatMode = repeatMode }
        if update.shuffle == true {
            session.queue.shuffle(using: &context.ids)
            broadcastQueueChange(session, "UPDATE", itemIds: session.queue.itemIds, context: &context)
        }
        if target == nil, let currentTime = update.currentTime, phase.load == nil {
            // A position in the current item, like a SEEK that keeps the player state.
            let position = session.clampedPosition(currentTime, at: context.now)
            session.preloadedItemId = nil
            switch phase {
            case .playing: phase = .playing(session, .init(position: position, since: context.now))
            case .paused: phase = .paused(session, position: position)
            case .buffering(_, let stall): phase = .buffering(session, .init(position: position, until: stall.until))
            case .idle, .loading: break
            }
        }
        finishQueueCommand(requester, session: session, jumpTo: target, position: update.currentTime, context: &context)
    }

    mutating func queueJump(by offset: Int, _ command: MediaCommand, from requester: Requester, context: inout AppContext)
        throws(RequestRejection)
    {
        let session = try addressedSession(command)
        guard let item = session.queue.item(from: session.currentItemId, offset: offset) else {
            throw .invalidRequest(.endOfQueue,
                                  "no item \(offset > 0 ? "after" : "before") \(session.currentItemId) (\(session.queue.repeatMode.rawValue))")
        }
        finishQueueCommand(requester, session: session, jumpTo: item.itemId, position: nil, context: &context)
    }

    mutating func queueRemove(_ itemIds: [Int], currentItemId: Int?, currentTime: Double?, _ command: MediaCommand,
                              from requester: Requester, context: inout AppContext) throws(RequestRejection) {
        var session = try addressedSession(command)
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
        broadcastQueueChange(session, "REMOVE", itemIds: removed, context: &context)
        guard !session.queue.items.isEmpty else {
            // Removing every item ends the session.
            phase.replaceSession(session)
            endSession(reason: .cancelled, answering: requester, context: &context)
            return
        }
        let target = currentItemId ?? (removing.contains(session.currentItemId) ? successor : nil)
        finishQueueCommand(requester, session: session, jumpTo: target, position: currentTime, context: &context)
    }

    mutating func queueReorder(_ reorder: QueueReorderRequest, _ command: MediaCommand, from requester: Requester,
                               context: inout AppContext) throws(RequestRejection) {
        var session = try addressedSession(command)
        for id in reorder.itemIds where session.queue.index(of: id) == nil {
            throw .invalidParams("itemIds: no item with itemId \(id)")
        }
        if let insertBefore = reorder.insertBefore,
           session.queue.index(of: insertBefore) == nil || reorder.itemIds.contains(insertBefore) {
            throw .invalidParams("insertBefore: \(insertBefore) must be a queue item that is not being moved")
        }
        if let currentItemId = reorder.currentItemId, session.queue.index(of: currentItemId) == nil {
            throw .invalidParams("currentItemId: no item with itemId \(currentItemId)")
        }
        session.queue.reorder(reorder.itemIds, before: reorder.insertBefore)
        // UPDATE carries the whole new order; reorderItemIds the items that moved.
        broadcastQueueChange(session, "UPDATE", itemIds: session.queue.itemIds, reorderItemIds: reorder.itemIds,
                             context: &context)
        finishQueueCommand(requester, session: session, jumpTo: reorder.currentItemId, position: reorder.currentTime,
                           context: &context)
    }

    mutating func queueShuffle(_ command: MediaCommand, from requester: Requester, context: inout AppContext)
        throws(RequestRejection)
    {
        var session = try addressedSession(command)
        session.queue.shuffle(using: &context.ids)
        broadcastQueueChange(session, "UPDATE", itemIds: session.queue.itemIds, context: &context)
        finishQueueCommand(requester, session: session, jumpTo: nil, position: nil, context: &context)
    }

    /// Completes a queue command: jumps if asked (the status that answers the request
    /// then comes when the item has loaded), otherwise answers at once with the new items.
    mutating func finishQueueCommand(_ requester: Requester?, session: MediaSession, jumpTo target: Int?,
                                             position: Double?, context: inout AppContext) {
        if let target, let item = session.queue.item(target) {
            if let load = phase.load { cancel(load, context: &context) }
            beginLoad(of: item, in: session, requester: requester, autoplay: item.autoplay, position: position, initial: false,
                      context: &context)
            if phase.load?.readyAt == context.now {
                completeDueLoad(context: &context)
            } else {
                broadcastStatus(answering: nil, parts: [.items], context: &context)
            }
            return
        }
        phase.replaceSession(session)
        broadcastStatus(answering: requester, parts: [.items], context: &context)
    }

    // MARK: Queries

    mutating func queueGetItemIds(_ command: MediaCommand, from requester: Requester, context: inout AppContext)
        throws(RequestRejection)
    {
        let session = try addressedSession(command)
        // All or nothing: a shortened id list would tell the sender the queue is shorter
        // than it is. One too large for a frame is refused where replies are sent.
        context.send(JSONPayload([
            "type": "QUEUE_ITEM_IDS", "requestId": .number(Double(requester.requestId)),
            "itemIds": .array(session.queue.itemIds.map { .number(Double($0)) }),
            "sequenceNumber": .number(Double(session.queue.sequenceNumber)),
        ]), namespace: CastNamespace.media, to: requester)
    }

    mutating func queueGetItems(_ itemIds: [Int], _ command: MediaCommand, from requester: Requester, context: inout AppContext)
        throws(RequestRejection)
    {
        let session = try addressedSession(command)
        // Unknown ids are left out; as many items as fit in one message (the sender asks
        // again for the rest, as it does for a page).
        let items = itemIds.compactMap(session.queue.item).map(\.json)
        let message = { (items: [JSONValue]) -> JSONValue in
            ["type": "QUEUE_ITEMS", "requestId": .number(Double(requester.requestId)), "items": .array(items),
             "sequenceNumber": .number(Double(session.queue.sequenceNumber))]
        }
        let kept = fittingPrefix(items, in: message)
        if kept < items.count {
            context.log(.info, requester.connection, "QUEUE_ITEMS answers \(kept) of \(items.count) items: the rest would not fit one message")
        }
        context.send(JSONPayload(message(Array(items.prefix(kept)))), namespace: CastNamespace.media, to: requester)
    }

    mutating func queueGetItemRange(itemId: Int?, nextCount: Int, prevCount: Int, _ command: MediaCommand,
                                    from requester: Requester, context: inout AppContext) throws(RequestRejection) {
        let session = try addressedSession(command)
        guard let itemId, let position = session.queue.index(of: itemId) else {
            throw .invalidParams("itemId: must name an item of the queue")
        }
        let order = session.queue.itemIds
        var range = nextCount > 0
            ? Array(order[(position + 1)...].prefix(nextCount))
            : Array(order[..<position].suffix(prevCount))
        // A shorter range is a range too: the ids farthest from the item go first.
        let message = { (ids: [JSONValue]) -> JSONValue in
            queueChangeMessage(session, "NO_CHANGE", itemIds: ids.compactMap(\.intValue), requestId: requester.requestId)
        }
        let ids = range.map { JSONValue.number(Double($0)) }
        let kept = nextCount > 0 ? fittingPrefix(ids, in: message) : fittingPrefix(Array(ids.reversed()), in: message)
        if kept < range.count {
            context.log(.info, requester.connection, "QUEUE_GET_ITEM_RANGE answers \(kept) of \(range.count) ids: the rest would not fit one message")
            range = nextCount > 0 ? Array(range.prefix(kept)) : Array(range.suffix(kept))
        }
        // Answered as a QUEUE_CHANGE with the requestId (the Android SDK resolves it so).
        context.send(JSONPayload(queueChangeMessage(session, "NO_CHANGE", itemIds: range, requestId: requester.requestId)),
                     namespace: CastNamespace.media, to: requester)
    }

    /// How many of `elements`, from the first, fit one message built by `message` within
    /// the payload limit. Each element is encoded once: the message's size is the empty
    /// message's plus each element's text and a comma.
    private func fittingPrefix(_ elements: [JSONValue], in message: ([JSONValue]) -> JSONValue) -> Int {
        var size = message([]).jsonText().utf8.count
        for (index, element) in elements.enumerated() {
            size += element.jsonText().utf8.count + (index > 0 ? 1 : 0)
            if size > CastFraming.maxPayloadBytes { return index }
        }
        return elements.count
    }
}
