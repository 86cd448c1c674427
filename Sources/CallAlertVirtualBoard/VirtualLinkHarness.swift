import CallAlertProtocol

/// A host endpoint and a virtual board joined by two simulated wires, driven in virtual time: the
/// deterministic loopback that tests and benchmarks use (no threads, no sleeps, no clock).
///
/// Time is in microseconds so that a paced line's byte times are honest; the board sees milliseconds.
public struct VirtualLinkHarness {
  /// The board.
  public let board: VirtualBoard
  /// The host's end of the link.
  public var host: LinkEndpoint
  /// Host to board.
  public var toBoard: SimulatedWire
  /// Board to host.
  public var toHost: SimulatedWire
  /// The virtual time now, in microseconds.
  public private(set) var nowMicros: UInt64 = 0
  /// Everything the host's end delivered, in order.
  public private(set) var deliveries: [LinkEndpoint.Delivery] = []
  /// Whether the cable is plugged in: when false, both wires lose everything sent.
  public var connected = true

  /// Creates a harness around `board`.
  public init(
    board: VirtualBoard, pacing: WirePacing = .instant, faults: FaultProfile = .none, seed: UInt64 = 1,
    timing: LinkTiming = .standard
  ) {
    self.board = board
    host = LinkEndpoint(role: .host, timing: timing)
    toBoard = SimulatedWire(pacing: pacing, faults: faults, seed: seed &* 2 &+ 1)
    toHost = SimulatedWire(pacing: pacing, faults: faults, seed: seed &* 2 &+ 2)
  }

  /// The virtual time in milliseconds.
  public var nowMs: UInt64 { nowMicros / 1_000 }

  /// Sends a command from the host now; returns its sequence.
  @discardableResult
  public mutating func send(_ command: Command) -> UInt16 {
    let sequence = host.send(command: command, now: nowMs)
    flushHost()
    return sequence
  }

  /// Runs the world until `micros`, moving bytes and waking the board and the host when they asked.
  public mutating func run(untilMicros micros: UInt64) {
    var passesAtSameInstant = 0
    while true {
      step(to: nowMicros)
      guard let next = nextEventMicros, next <= micros else { break }
      if next > nowMicros {
        nowMicros = next
        passesAtSameInstant = 0
      } else {
        // Work due now remains (an instant wire's echo). A party that keeps asking for the same instant
        // without progress is pushed to the next millisecond rather than spinning forever.
        passesAtSameInstant += 1
        if passesAtSameInstant > 1_000 { nowMicros = (nowMs + 1) * 1_000 }
      }
    }
    nowMicros = max(nowMicros, micros)
    step(to: nowMicros)
  }

  /// The earliest time anything happens: a byte arrives, the board wakes, the host's deadline passes.
  public var nextEventMicros: UInt64? {
    [
      toBoard.nextArrivalMicros, toHost.nextArrivalMicros, board.nextWakeMs.map { $0 * 1_000 },
      host.nextDeadline.map { $0 * 1_000 },
    ].compactMap { $0 }.min()
  }

  /// Runs for `ms` more milliseconds.
  public mutating func run(forMs ms: UInt64) { run(untilMicros: nowMicros + ms * 1_000) }

  /// Runs until `predicate` holds or `limitMs` pass; returns whether it held.
  @discardableResult
  public mutating func run(untilMs limitMs: UInt64, _ predicate: (VirtualLinkHarness) -> Bool) -> Bool {
    let end = nowMicros + limitMs * 1_000
    while !predicate(self) {
      guard nowMicros < end else { return false }
      run(untilMicros: min(end, nowMicros + 1_000))
    }
    return true
  }

  /// Takes the deliveries collected so far.
  public mutating func takeDeliveries() -> [LinkEndpoint.Delivery] {
    defer { deliveries.removeAll() }
    return deliveries
  }

  private mutating func step(to micros: UInt64) {
    nowMicros = max(nowMicros, micros)
    let ms = nowMs
    let forBoard = toBoard.receive(nowMicros: nowMicros)
    if !forBoard.isEmpty { board.receive(forBoard, nowMs: ms) }
    if let wake = board.nextWakeMs, wake <= ms { board.tick(nowMs: ms) }
    let fromBoard = board.takeOutput()
    if connected, !fromBoard.isEmpty { toHost.send(fromBoard, nowMicros: nowMicros) }
    let forHost = toHost.receive(nowMicros: nowMicros)
    if !forHost.isEmpty { deliveries += host.receive(forHost, now: ms) }
    if let deadline = host.nextDeadline, deadline <= ms { deliveries += host.poll(now: ms) }
    flushHost()
  }

  private mutating func flushHost() {
    let out = host.takeOutput()
    if connected, !out.isEmpty { toBoard.send(out, nowMicros: nowMicros) }
  }
}
