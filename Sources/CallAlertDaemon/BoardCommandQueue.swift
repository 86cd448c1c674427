import CallAlertEngine
import CallAlertProtocol

/// The engine's effects for one board, waiting for the board driver to carry them out one at a time, in order.
///
/// Every call reaches the board, however briefly, while the link keeps up. Once `coalescingDepth` effects
/// wait (a flood the link cannot carry), a PLAY still waiting when the STOP of its token comes never reaches
/// the board: it would have superseded whatever played, and the STOP would have ended it, so the pair becomes
/// one STOP of whatever plays (``CallAlertProtocol/Command/stopAll``), and two such STOPs in a row at the end
/// of the queue are one. Calls hung up faster than the link carries their PLAYs thus leave the queue near that
/// depth instead of two commands each, and a flood of call/hangup pairs neither grows the daemon's memory
/// without bound nor leaves the board playing stale calls long after the last hangup (docs/BENCH.md, the
/// long-life soak).
struct BoardCommandQueue<Arrival: Sendable>: Sendable {
  /// An effect as queued: with a call's arrival when a call's arrival caused it.
  struct Item: Sendable {
    var effect: EngineEffect
    var callArrival: Arrival?
  }

  private var items: [Item] = []
  /// The first item not yet taken.
  private var head = 0
  /// The PLAYs not yet taken: token -> index in `items`.
  private var waitingPlays: [UInt32: Int] = [:]
  /// From how many waiting effects on a PLAY and its STOP are dropped together.
  let coalescingDepth: Int

  /// The depth from which hung-up PLAYs are dropped in the daemon: a burst of 64 calls is carried out whole.
  static var defaultCoalescingDepth: Int { 64 }

  /// An empty queue that drops a hung-up PLAY once `coalescingDepth` effects wait.
  init(coalescingDepth: Int = Self.defaultCoalescingDepth) {
    self.coalescingDepth = coalescingDepth
  }

  /// Items waiting.
  var count: Int { items.count - head }
  /// PLAYs waiting.
  var plays: Int { waitingPlays.count }

  /// Queues `effect`; returns true when it was a STOP that took a waiting PLAY out of the queue with it.
  mutating func append(_ effect: EngineEffect, callArrival: Arrival? = nil) -> Bool {
    switch effect {
    case .play(_, let token, _, _, _):
      // A PLAY of a token already waiting restarts it: the earlier one no longer needs its own STOP pairing.
      waitingPlays[token] = items.count
    case .stop(let board, let token):
      guard count >= coalescingDepth, let index = waitingPlays.removeValue(forKey: token) else { break }
      let stopAll = Item(effect: .stop(board: board, token: Command.stopAll), callArrival: nil)
      if index == items.count - 1, index > head, Self.isStopAll(items[index - 1]) {
        items.removeLast()
      } else {
        items[index] = stopAll
      }
      return true
    case .indicator, .event:
      break
    }
    items.append(Item(effect: effect, callArrival: callArrival))
    return false
  }

  /// Takes the oldest waiting item.
  mutating func next() -> Item? {
    guard head < items.count else { return nil }
    let item = items[head]
    if case .play(_, let token, _, _, _) = item.effect, waitingPlays[token] == head {
      waitingPlays[token] = nil
    }
    head += 1
    if head == items.count {
      items.removeAll(keepingCapacity: items.count <= 1_024)
      head = 0
    } else if head >= 1_024, head * 2 >= items.count {
      items.removeFirst(head)
      for (token, index) in waitingPlays { waitingPlays[token] = index - head }
      head = 0
    }
    return item
  }

  private static func isStopAll(_ item: Item) -> Bool {
    if case .stop(_, let token) = item.effect { token == Command.stopAll } else { false }
  }
}
