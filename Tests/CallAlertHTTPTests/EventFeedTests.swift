import CallAlertHTTP
import Testing

/// The SSE buffer: ids, resume after `Last-Event-ID`, what is lost beyond the kept events.
@Suite("Event feed")
struct EventFeedTests {
  @Test func aListenerResumesAfterTheIdItSawLast() async {
    let feed = EventFeed(capacity: 3)
    for index in 1...2 { await feed.publish(name: "e", data: "\(index)") }
    let resumed = await feed.subscribe(after: 1)
    #expect(resumed.replay.map(\.id) == [2] && resumed.lost == 0)
    await feed.publish(name: "e", data: "3")
    var live = resumed.live.makeAsyncIterator()
    #expect(await live.next()?.id == 3)
    let fresh = await feed.subscribe(after: nil)
    #expect(fresh.replay.isEmpty)
  }

  @Test func eventsBeyondTheBufferAreCountedAsLostAndAnIdFromAnotherRunGetsAll() async {
    let feed = EventFeed(capacity: 3)
    for index in 1...6 { await feed.publish(name: "e", data: "\(index)") }
    let late = await feed.subscribe(after: 1)
    #expect(late.replay.map(\.id) == [4, 5, 6] && late.lost == 2)
    let other = await feed.subscribe(after: 99)
    #expect(other.replay.map(\.id) == [4, 5, 6] && other.lost == 0)
    #expect(EventFeed.wire(late.replay[0]) == "id: 4\nevent: e\ndata: 4\n\n")
  }

  @Test func finishingEndsEveryListener() async {
    let feed = EventFeed(capacity: 3)
    let subscription = await feed.subscribe(after: nil)
    #expect(await feed.listenerCount == 1)
    await feed.finish()
    var live = subscription.live.makeAsyncIterator()
    #expect(await live.next() == nil)
    let after = await feed.subscribe(after: nil)
    var ended = after.live.makeAsyncIterator()
    #expect(await ended.next() == nil)
  }
}
