import CastDevice
import CastWire
import CastSimulatorTesting
import Foundation
import Testing

@Suite("Media queue")
struct MediaQueueTests {
    @Test("QUEUE_LOAD: receiver-assigned ids, startIndex, repeatMode, currentTime; the reply carries items and the requestId")
    func queueLoad() throws {
        var media = TestMediaSender()
        let replies = media.queueLoad(3, repeatMode: "REPEAT_ALL", startIndex: 1, extra: ["currentTime": 12, "requestId": 7])
        let reply = try #require(replies.ofType("MEDIA_STATUS").last)
        #expect(reply.requestId == 7 && reply.isBroadcast)
        let status = try #require(reply.mediaStatus)
        #expect(status["currentItemId"] == 2)
        #expect(status["currentTime"] == 12)
        #expect(status["repeatMode"] == "REPEAT_ALL")
        #expect(status["playerState"] == "PLAYING")
        #expect(status["items"]?.arrayValue?.map { $0["itemId"] } == [1, 2, 3])
        #expect(status["media"]?["metadata"]?["title"] == "t2")
        // Queue bits: next and previous exist, repeat is on.
        let commands = try #require(status["supportedMediaCommands"]?.intValue)
        #expect(commands & (64 | 128 | 256 | 1024 | 2048) == 64 | 128 | 256 | 1024 | 2048)
        #expect(commands & 4096 == 0)
    }

    @Test("LOAD with queueData loads its items from startIndex and startTime, and echoes queueData without items")
    func loadWithQueueData() throws {
        var media = TestMediaSender()
        let replies = media.send([
            "type": "LOAD", "requestId": 9, "media": TestMediaSender.item("t2").objectValue!["media"]!,
            "queueData": [
                "name": "Album", "queueType": "ALBUM", "repeatMode": "REPEAT_SINGLE", "startIndex": 1, "startTime": 5,
                "items": [TestMediaSender.item("t1"), TestMediaSender.item("t2"), TestMediaSender.item("t3")],
            ],
        ])
        let status = try #require(replies.ofType("MEDIA_STATUS").last?.mediaStatus)
        #expect(status["currentItemId"] == 2 && status["currentTime"] == 5 && status["repeatMode"] == "REPEAT_SINGLE")
        #expect(status["queueData"] == ["name": "Album", "queueType": "ALBUM", "repeatMode": "REPEAT_SINGLE", "startIndex": 1, "startTime": 5])
        #expect(media.itemIds == [1, 2, 3])
    }

    @Test("A plain LOAD is a one-item queue: currentItemId 1, no queue commands")
    func plainLoadIsOneItem() throws {
        var media = TestMediaSender()
        let status = try #require(media.send(["type": "LOAD", "media": ["contentId": "a.mp4"]]).last?.mediaStatus)
        #expect(status["currentItemId"] == 1 && status["items"]?.arrayValue?.count == 1)
        #expect((status["supportedMediaCommands"]?.intValue ?? 0) & (64 | 128 | 256 | 3072) == 0)
    }

    @Test("QUEUE_INSERT appends or inserts before an item; QUEUE_CHANGE INSERT with a rising sequenceNumber; MEDIA_STATUS with the requestId")
    func queueInsert() throws {
        var media = TestMediaSender()
        media.queueLoad(2)
        var replies = media.send(["type": "QUEUE_INSERT", "requestId": 20, "items": [TestMediaSender.item("x")]])
        let change = try #require(replies.ofType("QUEUE_CHANGE").first)
        #expect(change.json == ["type": "QUEUE_CHANGE", "requestId": 0, "changeType": "INSERT", "itemIds": [3], "sequenceNumber": 1])
        #expect(change.isBroadcast)
        let status = try #require(replies.ofType("MEDIA_STATUS").first)
        #expect(status.requestId == 20 && status.mediaStatus?["items"]?.arrayValue?.count == 3)
        #expect(status.mediaStatus?["currentItemId"] == 1)

        replies = media.send(["type": "QUEUE_INSERT", "requestId": 21, "insertBefore": 2,
                              "items": [TestMediaSender.item("y"), TestMediaSender.item("z")]])
        #expect(replies.ofType("QUEUE_CHANGE").first?.json == [
            "type": "QUEUE_CHANGE", "requestId": 0, "changeType": "INSERT", "itemIds": [4, 5], "insertBefore": 2, "sequenceNumber": 2,
        ])
        #expect(media.itemIds == [1, 4, 5, 2, 3])
    }

    @Test("QUEUE_INSERT with currentItemIndex plays that inserted item; currentTime sets its position")
    func queueInsertJumps() throws {
        var media = TestMediaSender()
        media.queueLoad(2)
        let replies = media.send(["type": "QUEUE_INSERT", "requestId": 22, "currentItemIndex": 1, "currentTime": 7,
                                  "items": [TestMediaSender.item("a"), TestMediaSender.item("b")]])
        let status = try #require(replies.ofType("MEDIA_STATUS").last)
        #expect(status.requestId == 22)
        #expect(status.mediaStatus?["currentItemId"] == 4 && status.mediaStatus?["currentTime"] == 7)
        #expect(status.mediaStatus?["media"]?["metadata"]?["title"] == "b")
    }

    @Test("QUEUE_INSERT errors: a sender-supplied itemId, an unknown insertBefore, no items → INVALID_PARAMS, queue unchanged")
    func queueInsertErrors() {
        var media = TestMediaSender()
        media.queueLoad(2)
        let withId = TestMediaSender.item("x", extra: ["itemId": 77])
        for bad: [String: JSONValue] in [
            ["type": "QUEUE_INSERT", "requestId": 30, "items": [withId]],
            ["type": "QUEUE_INSERT", "requestId": 30, "items": [TestMediaSender.item("x")], "insertBefore": 99],
            ["type": "QUEUE_INSERT", "requestId": 30, "items": []],
            ["type": "QUEUE_INSERT", "requestId": 30],
        ] {
            #expect(media.send(bad).map(\.json) == [["type": "INVALID_REQUEST", "requestId": 30, "reason": "INVALID_PARAMS"]])
        }
        #expect(media.itemIds == [1, 2])
        #expect(media.session?.queue.sequenceNumber == 0)
    }

    @Test("Item ids are unique for the life of the queue: removed ids are never reused")
    func idsNotReused() {
        var media = TestMediaSender()
        media.queueLoad(3)
        media.send(["type": "QUEUE_REMOVE", "itemIds": [3]])
        media.send(["type": "QUEUE_INSERT", "items": [TestMediaSender.item("n")]])
        #expect(media.itemIds == [1, 2, 4])
    }

    @Test("QUEUE_UPDATE jump ±n moves through the queue; past the end under REPEAT_OFF → END_OF_QUEUE, state unchanged")
    func queueUpdateJump() throws {
        var media = TestMediaSender()
        media.queueLoad(3)
        var status = try #require(media.send(["type": "QUEUE_UPDATE", "requestId": 40, "jump": 2]).last)
        #expect(status.requestId == 40 && status.mediaStatus?["currentItemId"] == 3)
        status = try #require(media.send(["type": "QUEUE_UPDATE", "requestId": 41, "jump": -1]).last)
        #expect(status.mediaStatus?["currentItemId"] == 2)
        media.advance(10)
        let before = media.session
        let replies = media.send(["type": "QUEUE_UPDATE", "requestId": 42, "jump": 2])
        #expect(replies.map(\.json) == [["type": "INVALID_REQUEST", "requestId": 42, "reason": "END_OF_QUEUE"]])
        #expect(replies[0].to == [media.connection] && !replies[0].isBroadcast)
        #expect(media.session == before)
        #expect(media.send(["type": "QUEUE_PREV", "requestId": 43]).last?.mediaStatus?["currentItemId"] == 1)
        #expect(media.send(["type": "QUEUE_PREV", "requestId": 44]).map(\.json) == [["type": "INVALID_REQUEST", "requestId": 44, "reason": "END_OF_QUEUE"]])
    }

    @Test("Under REPEAT_ALL, next and jump wrap around the ends")
    func repeatAllWraps() {
        var media = TestMediaSender()
        media.queueLoad(3, repeatMode: "REPEAT_ALL", startIndex: 2)
        #expect(media.send(["type": "QUEUE_NEXT"]).last?.mediaStatus?["currentItemId"] == 1)
        #expect(media.send(["type": "QUEUE_UPDATE", "jump": -2]).last?.mediaStatus?["currentItemId"] == 2)
    }

    @Test("QUEUE_UPDATE sets currentItemId with currentTime, the repeat mode, and edits items with ITEMS_CHANGE")
    func queueUpdateFields() throws {
        var media = TestMediaSender()
        media.queueLoad(3)
        var replies = media.send(["type": "QUEUE_UPDATE", "requestId": 50, "currentItemId": 3, "currentTime": 20, "repeatMode": "REPEAT_SINGLE"])
        var status = try #require(replies.last?.mediaStatus)
        #expect(replies.last?.requestId == 50)
        #expect(status["currentItemId"] == 3 && status["currentTime"] == 20 && status["repeatMode"] == "REPEAT_SINGLE")

        var edited = TestMediaSender.item("renamed").objectValue!
        edited["itemId"] = 2
        replies = media.send(["type": "QUEUE_UPDATE", "requestId": 51, "items": [.object(edited)]])
        #expect(replies.ofType("QUEUE_CHANGE").first?.json == [
            "type": "QUEUE_CHANGE", "requestId": 0, "changeType": "ITEMS_CHANGE", "itemIds": [2], "sequenceNumber": 1,
        ])
        status = try #require(replies.ofType("MEDIA_STATUS").first?.mediaStatus)
        #expect(status["items"]?.arrayValue?[1]["media"]?["metadata"]?["title"] == "renamed")
        #expect(media.send(["type": "QUEUE_UPDATE", "requestId": 52, "repeatMode": "REPEAT_SOMETIMES"]).first?.json["reason"] == "INVALID_PARAMS")
        #expect(media.send(["type": "QUEUE_UPDATE", "requestId": 53, "currentItemId": 99]).first?.json["reason"] == "INVALID_PARAMS")
    }

    @Test("QUEUE_UPDATE shuffle and QUEUE_SHUFFLE reorder the queue: QUEUE_CHANGE UPDATE with the full order")
    func shuffle() throws {
        var media = TestMediaSender()
        media.queueLoad(8)
        let replies = media.send(["type": "QUEUE_SHUFFLE", "requestId": 60])
        let change = try #require(replies.ofType("QUEUE_CHANGE").first)
        #expect(change.json["changeType"] == "UPDATE" && change.json["sequenceNumber"] == 1)
        let order = change.json["itemIds"]?.arrayValue?.compactMap { $0.intValue } ?? []
        #expect(order.sorted() == Array(1...8) && order != Array(1...8))
        #expect(media.itemIds == order)
        #expect(replies.ofType("MEDIA_STATUS").first?.requestId == 60)
        let again = media.send(["type": "QUEUE_UPDATE", "requestId": 61, "shuffle": true])
        #expect(again.ofType("QUEUE_CHANGE").first?.json["sequenceNumber"] == 2)
    }

    @Test("QUEUE_REMOVE: removing other items keeps playing; removing the current one moves on; removing all ends the session")
    func queueRemove() throws {
        var media = TestMediaSender()
        media.queueLoad(4)
        var replies = media.send(["type": "QUEUE_REMOVE", "requestId": 70, "itemIds": [3]])
        #expect(replies.ofType("QUEUE_CHANGE").first?.json == [
            "type": "QUEUE_CHANGE", "requestId": 0, "changeType": "REMOVE", "itemIds": [3], "sequenceNumber": 1,
        ])
        #expect(replies.last?.requestId == 70 && replies.last?.mediaStatus?["currentItemId"] == 1)
        replies = media.send(["type": "QUEUE_REMOVE", "requestId": 71, "itemIds": [1]])
        let status = try #require(replies.ofType("MEDIA_STATUS").last)
        #expect(status.requestId == 71 && status.mediaStatus?["currentItemId"] == 2)
        #expect(status.mediaStatus?["playerState"] == "PLAYING")
        #expect(media.send(["type": "QUEUE_REMOVE", "requestId": 72, "itemIds": [9]]).first?.json["reason"] == "INVALID_PARAMS")
        replies = media.send(["type": "QUEUE_REMOVE", "requestId": 73, "itemIds": [2, 4]])
        let last = try #require(replies.last)
        #expect(last.requestId == 73 && last.mediaStatus?["playerState"] == "IDLE")
        #expect(media.session == nil)
    }

    @Test("QUEUE_REORDER moves items before insertBefore (or to the end): QUEUE_CHANGE UPDATE with itemIds and reorderItemIds")
    func queueReorder() throws {
        var media = TestMediaSender()
        media.queueLoad(5)
        var replies = media.send(["type": "QUEUE_REORDER", "requestId": 80, "itemIds": [5, 4], "insertBefore": 2])
        #expect(replies.ofType("QUEUE_CHANGE").first?.json == [
            "type": "QUEUE_CHANGE", "requestId": 0, "changeType": "UPDATE", "itemIds": [1, 5, 4, 2, 3],
            "reorderItemIds": [5, 4], "sequenceNumber": 1,
        ])
        #expect(replies.last?.requestId == 80)
        replies = media.send(["type": "QUEUE_REORDER", "requestId": 81, "itemIds": [1]])
        #expect(media.itemIds == [5, 4, 2, 3, 1])
        #expect(media.send(["type": "QUEUE_REORDER", "requestId": 82, "itemIds": [1], "insertBefore": 1]).first?.json["reason"] == "INVALID_PARAMS")
        #expect(media.send(["type": "QUEUE_REORDER", "requestId": 83, "itemIds": [42]]).first?.json["reason"] == "INVALID_PARAMS")
    }

    @Test("QUEUE_GET_ITEM_IDS, QUEUE_GET_ITEMS and QUEUE_GET_ITEM_RANGE answer unicast with the sequenceNumber")
    func queueQueries() throws {
        var media = TestMediaSender()
        media.queueLoad(5)
        media.send(["type": "QUEUE_REMOVE", "itemIds": [2]])
        let ids = media.send(["type": "QUEUE_GET_ITEM_IDS", "requestId": 90])
        #expect(ids.map(\.json) == [["type": "QUEUE_ITEM_IDS", "requestId": 90, "itemIds": [1, 3, 4, 5], "sequenceNumber": 1]])
        #expect(ids[0].to == [media.connection] && !ids[0].isBroadcast)
        let items = try #require(media.send(["type": "QUEUE_GET_ITEMS", "requestId": 91, "itemIds": [4, 2, 1]]).first)
        #expect(items.type == "QUEUE_ITEMS" && items.requestId == 91 && items.json["sequenceNumber"] == 1)
        #expect(items.json["items"]?.arrayValue?.map { $0["itemId"] } == [4, 1])
        let next = media.send(["type": "QUEUE_GET_ITEM_RANGE", "requestId": 92, "itemId": 3, "nextCount": 5])
        #expect(next.map(\.json) == [["type": "QUEUE_CHANGE", "requestId": 92, "changeType": "NO_CHANGE", "itemIds": [4, 5], "sequenceNumber": 1]])
        let previous = media.send(["type": "QUEUE_GET_ITEM_RANGE", "requestId": 93, "itemId": 4, "prevCount": 1])
        #expect(previous.first?.json["itemIds"] == [3])
        #expect(media.send(["type": "QUEUE_GET_ITEM_RANGE", "requestId": 94, "itemId": 4, "prevCount": 1, "nextCount": 1]).first?.json["reason"] == "INVALID_PARAMS")
    }

    @Test("Queue commands without a session → INVALID_PLAYER_STATE", arguments: [
        "QUEUE_INSERT", "QUEUE_UPDATE", "QUEUE_REMOVE", "QUEUE_REORDER", "QUEUE_NEXT", "QUEUE_PREV", "QUEUE_SHUFFLE",
        "QUEUE_GET_ITEM_IDS", "QUEUE_GET_ITEMS", "QUEUE_GET_ITEM_RANGE", "EDIT_TRACKS_INFO", "EDIT_AUDIO_TRACKS",
    ])
    func noSession(type: String) {
        var media = TestMediaSender()
        #expect(media.send(["type": .string(type), "requestId": 5]).map(\.json) == [["type": "INVALID_PLAYER_STATE", "requestId": 5]])
    }
}

@Suite("Queue playback over time")
struct QueuePlaybackTests {
    @Test("At an item's end: IDLE/FINISHED naming the loadingItemId, then the next item PLAYING with its media")
    func advancesToNext() throws {
        var media = TestMediaSender()
        media.queueLoad(2, duration: 30)
        let sent = media.advance(30)
        let statuses = sent.statuses
        try #require(statuses.count == 2)
        #expect(statuses[0]["playerState"] == "IDLE" && statuses[0]["idleReason"] == "FINISHED")
        #expect(statuses[0]["currentItemId"] == 1 && statuses[0]["loadingItemId"] == 2)
        #expect(statuses[1]["playerState"] == "PLAYING" && statuses[1]["currentItemId"] == 2)
        #expect(statuses[1]["media"]?["metadata"]?["title"] == "t2" && statuses[1]["loadingItemId"] == nil)
        #expect(sent.allSatisfy { $0.requestId == 0 && $0.isBroadcast })
        // The last item's end finishes the session: no loadingItemId.
        let end = media.advance(30).statuses
        #expect(end.count == 1 && end[0]["idleReason"] == "FINISHED" && end[0]["loadingItemId"] == nil)
        #expect(media.session == nil)
    }

    @Test("Per-item autoplay false stops at that item (PAUSED); startTime and playbackDuration bound what plays")
    func itemFields() throws {
        var media = TestMediaSender()
        media.send(["type": "QUEUE_LOAD", "items": [
            TestMediaSender.item("a", duration: 100, extra: ["startTime": 10, "playbackDuration": 20]),
            TestMediaSender.item("b", duration: 100, extra: ["autoplay": false, "startTime": 50]),
        ]])
        #expect(media.session?.currentTime == 10)
        #expect(media.advance(19.9).isEmpty)
        let statuses = media.advance(0.1).statuses
        let last = try #require(statuses.last)
        #expect(last["currentItemId"] == 2 && last["playerState"] == "PAUSED" && last["currentTime"] == 50)
        #expect(media.advance(1000).isEmpty)
    }

    @Test("preloadTime: preloadedItemId appears that many seconds before the current item ends")
    func preload() throws {
        var media = TestMediaSender()
        media.send(["type": "QUEUE_LOAD", "items": [
            TestMediaSender.item("a", duration: 60), TestMediaSender.item("b", duration: 60, extra: ["preloadTime": 15]),
        ]])
        #expect(media.advance(44.9).isEmpty)
        let preloaded = media.advance(0.1)
        #expect(preloaded.statuses.count == 1)
        #expect(preloaded.statuses[0]["preloadedItemId"] == 2 && preloaded.statuses[0]["currentItemId"] == 1)
        let next = media.advance(15).statuses
        #expect(next.last?["currentItemId"] == 2 && next.last?["preloadedItemId"] == nil)
    }

    @Test("REPEAT_SINGLE replays the current item")
    func repeatSingle() {
        var media = TestMediaSender()
        media.queueLoad(2, duration: 10, repeatMode: "REPEAT_SINGLE")
        media.advance(35)
        #expect(media.session?.currentItemId == 1)
        #expect(media.session?.currentTime == 5)
    }

    /// Plays `count` items of 3 minutes to the end (or for `hours`), recording the order.
    private func play(_ repeatMode: String, items count: Int = 40, hours: Double? = nil) -> (TestMediaSender, [Int]) {
        var media = TestMediaSender()
        media.queueLoad(count, duration: 180, repeatMode: repeatMode)
        var played = [1]
        let sent = media.advance(hours.map { $0 * 3600 } ?? Double(count) * 180 + 1)
        for status in sent.statuses where status["playerState"] == "PLAYING" {
            if let id = status["currentItemId"]?.intValue { played.append(id) }
        }
        return (media, played)
    }

    @Test("A 40-item queue under REPEAT_OFF plays every item once, in order, then finishes")
    func fortyItemsRepeatOff() {
        let (media, played) = play("REPEAT_OFF")
        #expect(played == Array(1...40))
        #expect(media.session == nil)
    }

    @Test("A 40-item queue under REPEAT_ALL starts over after the last item and keeps going")
    func fortyItemsRepeatAll() {
        let (media, played) = play("REPEAT_ALL", hours: 4)
        // 4 h of 3-minute items: 80 items, twice round the queue, then item 1 again.
        #expect(Array(played.prefix(81)) == Array(1...40) + Array(1...40) + [1])
        #expect(media.session?.playerState == .playing)
    }

    @Test("A 40-item queue under REPEAT_ALL_AND_SHUFFLE reshuffles at the end and plays every item each round")
    func fortyItemsShuffle() {
        let (media, played) = play("REPEAT_ALL_AND_SHUFFLE", hours: 4)
        let firstRound = Array(played.prefix(40))
        let secondRound = Array(played.dropFirst(40).prefix(40))
        #expect(firstRound == Array(1...40))
        #expect(secondRound.sorted() == Array(1...40) && secondRound != firstRound)
        #expect(media.session?.queue.sequenceNumber ?? 0 >= 1)
    }

    @Test("QUEUE_SHUFFLE then play: every item once in the shuffled order")
    func shuffledPlayback() {
        var media = TestMediaSender()
        media.queueLoad(40, duration: 180)
        media.send(["type": "QUEUE_SHUFFLE"])
        let order = media.itemIds
        // Shuffling keeps the current item playing; play from its position to the end.
        let start = order.firstIndex(of: 1)!
        var played = [1]
        for status in media.advance(40 * 180 + 1).statuses where status["playerState"] == "PLAYING" {
            played.append(status["currentItemId"]!.intValue!)
        }
        #expect(played == Array(order[start...]))
    }

    @Test("The rate applies across items: at 2x a 60 s item ends after 30 s")
    func rateAcrossItems() {
        var media = TestMediaSender()
        media.queueLoad(2, duration: 60)
        media.send(["type": "SET_PLAYBACK_RATE", "playbackRate": 2])
        media.advance(30)
        #expect(media.session?.currentItemId == 2)
        #expect(media.session?.playbackRate == 2)
    }
}
