import CallAlertProtocol
import CallAlertVirtualBoard

/// A link scenario's line to a ``VirtualBoard`` in virtual time: the board is ticked exactly at its
/// ``VirtualBoard/nextWakeMs``, frames cross the line in no time, and waiting costs nothing. The same
/// link.json scenarios that run on the real-time boards run here deterministically, to the millisecond.
actor VirtualTimeLine: ScenarioLine {
  private let board = VirtualBoard()
  private var decoder = FrameDecoder()
  private var pending: [Frame] = []
  private let acknowledgesEvents: Bool
  /// The board's clock.
  private(set) var now: UInt64 = 0

  init(acknowledgesEvents: Bool) {
    self.acknowledgesEvents = acknowledgesEvents
  }

  func nonce() -> UInt32 { board.nonce }

  func send(_ frame: Frame) {
    board.receive(frame.encoded(), nowMs: now)
    collect()
  }

  func take(within: Duration, where matches: @Sendable (Frame) -> Bool) -> Frame? {
    let deadline =
      now + UInt64(within.components.seconds) * 1_000
      + UInt64(within.components.attoseconds / 1_000_000_000_000_000)
    collect()
    while true {
      if let index = pending.firstIndex(where: matches) { return pending.remove(at: index) }
      if now >= deadline { return nil }
      step(until: deadline)
    }
  }

  func drainFrames() -> [Frame] {
    collect()
    defer { pending.removeAll() }
    return pending
  }

  func pendingFrames() -> [Frame] { pending }

  func pause(ms: Int) {
    let target = now + UInt64(ms)
    while now < target { step(until: target) }
  }

  /// Moves time to the board's next wake-up, or to `limit` if that comes first, and ticks the board there.
  private func step(until limit: UInt64) {
    let wake = board.nextWakeMs.map { max($0, now) } ?? limit
    now = min(max(wake, now + (wake > now ? 0 : 1)), limit)
    board.tick(nowMs: now)
    collect()
  }

  /// Takes what the board sent, acknowledging events at once when the scenario says so.
  private func collect() {
    var rounds = 0
    while rounds < 100 {
      rounds += 1
      let bytes = board.takeOutput()
      if bytes.isEmpty { return }
      for output in decoder.feed(bytes) {
        guard case .frame(let frame) = output else { continue }
        pending.append(frame)
        if acknowledgesEvents, frame.flags.isEmpty, MessageType(rawValue: frame.type)?.isEvent == true {
          board.receive(
            Frame(flags: .response, sequence: frame.sequence, type: frame.type, nonce: frame.nonce).encoded(),
            nowMs: now)
        }
      }
    }
  }
}
