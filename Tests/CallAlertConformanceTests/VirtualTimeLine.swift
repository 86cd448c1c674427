import CallAlertProtocol
import CallAlertVirtualBoard

/// A link scenario's line to a ``VirtualBoard`` in virtual time: the board is ticked exactly at its
/// ``VirtualBoard/nextWakeMs``, frames cross the line in no time, and waiting costs nothing. The same
/// link.json scenarios that run on the real-time boards run here deterministically, to the millisecond.
actor VirtualTimeLine: ScenarioLine {
  private let board = VirtualBoard()
  private var decoder = FrameDecoder()
  /// Frames received and not yet taken, with their places in ``log``.
  private var pending: [(frame: Frame, place: Int)] = []
  /// Every frame received, in the order the board sent them.
  private var log: [Frame] = []
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

  func take(within: Duration, where matches: @Sendable (Frame) -> Bool) -> (frame: Frame, place: Int)? {
    let deadline = deadline(after: within)
    collect()
    while true {
      if let index = pending.firstIndex(where: { matches($0.frame) }) { return pending.remove(at: index) }
      if now >= deadline { return nil }
      step(until: deadline)
    }
  }

  func received() -> [Frame] { log }

  func waitUntil(within: Duration, _ condition: @Sendable ([Frame]) -> Bool) -> Bool {
    let deadline = deadline(after: within)
    collect()
    while !condition(log) {
      if now >= deadline { return false }
      step(until: deadline)
    }
    return true
  }

  func drainFrames() -> [Frame] {
    collect()
    defer { pending.removeAll() }
    return pending.map(\.frame)
  }

  func pendingFrames() -> [Frame] { pending.map(\.frame) }

  func pause(ms: Int) {
    let target = now + UInt64(ms)
    while now < target { step(until: target) }
  }

  private func deadline(after duration: Duration) -> UInt64 {
    now + UInt64(duration.components.seconds) * 1_000
      + UInt64(duration.components.attoseconds / 1_000_000_000_000_000)
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
        pending.append((frame, log.count))
        log.append(frame)
        if acknowledgesEvents, frame.flags.isEmpty, MessageType(rawValue: frame.type)?.isEvent == true {
          board.receive(
            Frame(flags: .response, sequence: frame.sequence, type: frame.type, nonce: frame.nonce).encoded(),
            nowMs: now)
        }
      }
    }
  }
}
