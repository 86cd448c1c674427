import CallAlertEngine
import CallAlertProtocol
import Testing

@testable import CallAlertDaemon

@Suite struct BoardCommandQueueTests {
  static func play(_ token: UInt32) -> EngineEffect {
    .play(board: "desk", token: token, pattern: .named("DE"), capMs: 30_000, options: PlayOptions())
  }

  static func stop(_ token: UInt32) -> EngineEffect { .stop(board: "desk", token: token) }

  /// The effects left, taken in order: `play N`, `stop N`, `stop all`, `indicator`.
  static func drain(_ queue: inout BoardCommandQueue<Int>) -> [String] {
    var names: [String] = []
    while let item = queue.next() {
      switch item.effect {
      case .play(_, let token, _, _, _): names.append("play \(token)")
      case .stop(_, let token): names.append(token == Command.stopAll ? "stop all" : "stop \(token)")
      case .indicator: names.append("indicator")
      case .event: names.append("event")
      }
    }
    return names
  }

  @Test func effectsComeOutInOrder() {
    var queue = BoardCommandQueue<Int>(coalescingDepth: 0)
    let tookPlay = queue.append(Self.play(1), callArrival: 7)
    let tookIndicator = queue.append(.indicator(board: "desk", IndicatorSetting(mode: .off)))
    #expect(!tookPlay && !tookIndicator)
    let first = queue.next()
    #expect(first?.callArrival == 7)
    let drained = Self.drain(&queue)
    #expect(drained == ["indicator"])
  }

  @Test func aPlayStoppedBeforeItsTurnBecomesOneStopOfWhateverPlays() {
    var queue = BoardCommandQueue<Int>(coalescingDepth: 0)
    _ = queue.append(Self.play(1))
    let onTheBoard = queue.next()  // play 1
    #expect(onTheBoard != nil)
    _ = queue.append(Self.play(2))  // would supersede 1
    let tookPlay = queue.append(Self.stop(2))  // and end: the board falls silent either way
    #expect(tookPlay)
    #expect(queue.plays == 0)
    let drained = Self.drain(&queue)
    #expect(drained == ["stop all"])
  }

  @Test func whileTheLinkKeepsUpEveryCallReachesTheBoard() {
    var queue = BoardCommandQueue<Int>()
    for token in UInt32(1)...10 {
      _ = queue.append(Self.play(token))
      _ = queue.append(Self.stop(token))
    }
    #expect(queue.count == 20)
    #expect(queue.plays == 10)
  }

  @Test func aFloodOfHungUpCallsStaysNearTheDepth() {
    var queue = BoardCommandQueue<Int>()
    for token in UInt32(1)...100_000 {
      _ = queue.append(Self.play(token))
      _ = queue.append(Self.stop(token))
    }
    #expect(queue.count <= BoardCommandQueue<Int>.defaultCoalescingDepth + 1)
    let drained = Self.drain(&queue)
    #expect(drained.prefix(4) == ["play 1", "stop 1", "play 2", "stop 2"])
    #expect(drained.last == "stop all")
  }

  @Test func aFloodOfHungUpCallsOnAnEmptyLinkLeavesOneCommand() {
    var queue = BoardCommandQueue<Int>(coalescingDepth: 0)
    for token in UInt32(1)...100_000 {
      _ = queue.append(Self.play(token))
      _ = queue.append(Self.stop(token))
    }
    #expect(queue.count == 1)
    let drained = Self.drain(&queue)
    #expect(drained == ["stop all"])
  }

  @Test func aStopOfAPlayAlreadyTakenIsQueued() {
    var queue = BoardCommandQueue<Int>(coalescingDepth: 0)
    _ = queue.append(Self.play(1))
    _ = queue.next()
    let tookPlay = queue.append(Self.stop(1))
    #expect(!tookPlay)
    let drained = Self.drain(&queue)
    #expect(drained == ["stop 1"])
  }

  @Test func whatCameBetweenStaysInItsPlace() {
    var queue = BoardCommandQueue<Int>(coalescingDepth: 0)
    _ = queue.append(Self.play(1))
    _ = queue.append(.indicator(board: "desk", IndicatorSetting(mode: .off)))
    _ = queue.append(Self.stop(1))
    _ = queue.append(Self.play(2))
    _ = queue.append(Self.stop(2))
    _ = queue.append(Self.play(3))
    let drained = Self.drain(&queue)
    #expect(drained == ["stop all", "indicator", "stop all", "play 3"])
  }

  @Test func aLongQueueTakenHalfWayKeepsItsPlaysFindable() {
    var queue = BoardCommandQueue<Int>(coalescingDepth: 0)
    for token in UInt32(1)...3_000 { _ = queue.append(Self.play(token)) }
    for _ in 0..<2_000 { _ = queue.next() }  // compacts past 1 024 taken
    let tookWaiting = queue.append(Self.stop(2_500))
    let tookTaken = queue.append(Self.stop(1_000))
    #expect(tookWaiting && !tookTaken)
    let left = Self.drain(&queue)
    #expect(left.count == 1_001)
    #expect(left[499] == "stop all")
    #expect(left.last == "stop 1000")
  }
}
