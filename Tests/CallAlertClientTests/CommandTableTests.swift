import CallAlertProtocol
import Testing

@testable import CallAlertClient

/// The command table's rules, without a link: waiters get their results, batched results wait for their
/// caller, duplicates are dropped, and failing everything leaves nothing behind once callers collect.
@Suite struct CommandTableTests {
  typealias Table = CommandTable<UInt16, String, Int>

  @Test func aWaiterGetsItsResultOnce() {
    var table = Table()
    table.wait(for: 7, "caller")
    #expect(table.complete(7, with: 1) == "caller")
    #expect(table.complete(7, with: 2) == nil)  // a second report of the same sequence is dropped
    #expect(table.count == 0)
  }

  @Test func aResultWithNoWaiterOutsideABatchIsDropped() {
    var table = Table()
    #expect(table.complete(3, with: 1) == nil)
    #expect(table.claim(3, orWait: "late") == nil)  // nothing was kept: the late caller waits
    #expect(table.count == 1)
  }

  @Test func aBatchKeepsResultsThatComeBeforeTheirCallerWaits() {
    var table = Table()
    table.beginBatch([1, 2, 3])
    #expect(table.complete(2, with: 20) == nil)
    #expect(table.complete(3, with: 30) == nil)
    #expect(table.claim(1, orWait: "first") == nil)
    #expect(table.complete(1, with: 10) == "first")
    #expect(table.claim(2, orWait: "second") == 20)
    #expect(table.claim(3, orWait: "third") == 30)
    #expect(table.count == 0)
  }

  @Test func aClaimedSequenceIsNotKeptForACommandThatReusesIt() {
    var table = Table()
    table.beginBatch([5])
    #expect(table.claim(5, orWait: "caller") == nil)
    #expect(table.complete(5, with: 1) == "caller")
    #expect(table.complete(5, with: 2) == nil)  // the give-up's restart reports it again
    #expect(table.count == 0)
  }

  @Test func failingAllFailsWaitersAndTheBatchStillToBeClaimed() {
    var table = Table()
    table.beginBatch([1, 2, 3])
    #expect(table.complete(3, with: 30) == nil)
    #expect(table.claim(1, orWait: "first") == nil)
    table.wait(for: 9, "single")
    #expect(Set(table.failAll(with: -1)) == ["first", "single"])
    #expect(table.claim(2, orWait: "second") == -1)
    #expect(table.claim(3, orWait: "third") == 30)  // a result that came before the failure is kept
    #expect(table.complete(1, with: 10) == nil)  // failed already: a late answer is not kept
    #expect(table.count == 0)
  }
}

/// What plays, from the commands and events the client saw.
@Suite struct LeaseKeeperTests {
  @Test func aPlaySupersedesAndStopsEndIt() {
    var lease = LeaseKeeper()
    let first = lease.track(.play(PlayRequest(token: 1, capMs: 0, source: .slot(0))), .playing(capMs: 0))
    let second = lease.track(.play(PlayRequest(token: 2, capMs: 0, source: .slot(0))), .playing(capMs: 0))
    #expect(first && second)
    #expect(lease.tokens == [2])
    let stop = lease.track(.stop(token: 1), .stopped(count: 0))
    #expect(!stop)
    #expect(lease.isPlaying)
    _ = lease.track(.stop(token: Command.stopAll), .stopped(count: 1))
    #expect(!lease.isPlaying)
  }

  @Test func playEndedAndForgettingEndPlays() {
    var lease = LeaseKeeper()
    _ = lease.track(.play(PlayRequest(token: 4, capMs: 0, source: .slot(0))), .playing(capMs: 0))
    lease.ended(5)
    #expect(lease.isPlaying)
    lease.ended(4)
    #expect(!lease.isPlaying)
    _ = lease.track(.play(PlayRequest(token: 6, capMs: 0, source: .slot(0))), .playing(capMs: 0))
    lease.forgetAll()
    #expect(!lease.isPlaying)
    #expect(LeaseKeeper.renewalPeriod(leaseMs: 3_000) == .seconds(1))
  }
}
