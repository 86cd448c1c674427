import CallAlertProtocol
import CallAlertSerial
import CallAlertTransport
import Foundation

/// A host that speaks frames, not commands: it sends exactly the frames a link scenario gives (any sequence,
/// nonce, payload) and records every frame the board sends, with its arrival time, for the scenario to match.
/// Unlike ``BoardClient`` it never retransmits, acknowledges only when told to, and hides nothing.
actor RawHost {
  /// A frame from the board, its place in the order the board sent frames (0 for the first), and when it
  /// arrived.
  struct Arrival: Sendable {
    let frame: Frame
    let place: Int
    let at: ContinuousClock.Instant
  }

  private let transport: DescriptorChannel
  private var reader: Task<Void, Never>?
  private var decoder = FrameDecoder()
  /// Frames received and not yet taken by a step, oldest first.
  private(set) var pending: [Arrival] = []
  /// Every frame received, taken or not, in the order the board sent them.
  private(set) var log: [Frame] = []
  /// The board's nonce, from its latest frame (0 before any).
  private(set) var boardNonce: UInt32 = 0
  /// Whether the board sent a FAULT tick_overrun (PROTOCOL.md §13.8): its tick fell behind its clock.
  private(set) var sawTickOverrun = false
  /// When true, every event is acknowledged as it arrives (it stays in ``pending`` for the steps to see).
  var acknowledgesEvents = false
  private var waiter: CheckedContinuation<Void, Never>?

  init(slavePath: String) throws {
    transport = try PseudoTerminal.openSlave(slavePath)
  }

  /// Starts reading the line.
  func start() {
    let stream = transport.incoming
    reader = Task { [weak self] in
      do {
        for try await chunk in stream { await self?.take(chunk) }
      } catch {}
    }
  }

  func setAcknowledgesEvents(_ on: Bool) { acknowledgesEvents = on }

  /// Sends `frame` as is.
  func send(_ frame: Frame) async throws {
    try await transport.write(frame.encoded())
  }

  /// Takes every pending frame.
  func drain() -> [Arrival] {
    defer { pending.removeAll() }
    return pending
  }

  /// Takes the first pending frame that `matches`, waiting up to `within` for one to arrive; nil if none.
  /// Its place is where it came in the order the board sent frames.
  func take(within: Duration, where matches: @Sendable (Frame) -> Bool) async -> (frame: Frame, place: Int)? {
    let deadline = ContinuousClock.now + within
    while true {
      if let index = pending.firstIndex(where: { matches($0.frame) }) {
        let arrival = pending.remove(at: index)
        return (arrival.frame, arrival.place)
      }
      if ContinuousClock.now >= deadline { return nil }
      await waitForArrival(until: deadline)
    }
  }

  /// Waits up to `within` for `condition` to hold of every frame received so far; whether it does.
  func waitUntil(within: Duration, _ condition: @Sendable ([Frame]) -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + within
    while !condition(log) {
      if ContinuousClock.now >= deadline { return false }
      await waitForArrival(until: deadline)
    }
    return true
  }

  /// Stops reading and closes the line.
  func close() {
    reader?.cancel()
    transport.close()
    wake()
  }

  private func take(_ chunk: [UInt8]) async {
    for output in decoder.feed(chunk) {
      guard case .frame(let frame) = output else { continue }
      boardNonce = frame.nonce
      pending.append(Arrival(frame: frame, place: log.count, at: .now))
      log.append(frame)
      if frame.type == MessageType.fault.rawValue, frame.flags.isEmpty,
        frame.payload.first == FaultCode.tickOverrun.rawValue
      {
        sawTickOverrun = true
      }
      if acknowledgesEvents, frame.flags.isEmpty, MessageType(rawValue: frame.type)?.isEvent == true {
        let ack = Frame(flags: .response, sequence: frame.sequence, type: frame.type, nonce: frame.nonce)
        try? await transport.write(ack.encoded())
      }
    }
    wake()
  }

  /// Suspends until a frame arrives or `deadline` passes (a bounded wait: the timer always ends it).
  private func waitForArrival(until deadline: ContinuousClock.Instant) async {
    let timer = Task { [weak self] in
      try? await Task.sleep(until: deadline, clock: .continuous)
      await self?.wake()
    }
    await withCheckedContinuation { waiter = $0 }
    timer.cancel()
  }

  private func wake() {
    waiter?.resume()
    waiter = nil
  }
}
